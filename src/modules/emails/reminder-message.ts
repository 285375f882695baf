/**
 * The renewal reminder email (issue 19): the certificate expires soon; renew it at the template's
 * renewal URL. No attachment. The same header sanitising as the certificate email (mail-message.ts).
 */

import { escapeHtml } from '../../platform/html.js';
import { formatIssuedAt } from '../../pdf/placeholders.js';
import { parseMailAddress, sanitizeHeaderText, type MailMessage } from './mail-message.js';

export interface ReminderMessageInput {
  messageId: string;
  from: string;
  to: string;
  recipientName: string;
  title: string;
  issuerName: string;
  verificationUrl: string;
  uniqueCode: string;
  expiresAt: Date;
  /** An https URL (the design checks it); none: the email says to contact the issuer. */
  renewalUrl: string | null;
}

function webUrl(value: string, what: string): string {
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${what} must be http(s)`);
  return url.href;
}

export function buildReminderMessage(input: ReminderMessageInput): MailMessage {
  const recipient = sanitizeHeaderText(input.recipientName);
  const title = sanitizeHeaderText(input.title);
  const issuer = sanitizeHeaderText(input.issuerName);
  const url = webUrl(input.verificationUrl, 'verificationUrl');
  const renew = input.renewalUrl ? webUrl(input.renewalUrl, 'renewalUrl') : undefined;
  const date = formatIssuedAt(input.expiresAt.toISOString())!;
  const code = sanitizeHeaderText(input.uniqueCode);
  const address = parseMailAddress(input.to, 'recipient').address;

  const text = [
    `Hello ${recipient},`,
    '',
    `Your certificate from ${issuer}, ${title}, expires on ${date}.`,
    '',
    ...(renew ? ['Renew it here:', renew] : [`To renew it, contact ${issuer}.`]),
    '',
    'The certificate and its status:',
    url,
    `Certificate code: ${code}`,
    '',
  ].join('\r\n');

  const e = escapeHtml;
  const html = `<!doctype html>
<html lang="en" dir="ltr"><head><meta charset="utf-8"></head>
<body>
<p>Hello <bdi>${e(recipient)}</bdi>,</p>
<p>Your certificate from <bdi>${e(issuer)}</bdi>, <strong><bdi>${e(title)}</bdi></strong>, expires on ${e(date)}.</p>
<p>${renew ? `<a id="renewal-link" href="${e(renew)}">Renew it here</a>` : `To renew it, contact <bdi>${e(issuer)}</bdi>.`}</p>
<p>The certificate and its status: <a href="${e(url)}">${e(url)}</a><br>Certificate code: ${e(code)}</p>
</body></html>
`;

  return {
    messageId: input.messageId,
    from: parseMailAddress(input.from, 'sender'),
    to: { name: recipient, address },
    subject: `Your certificate expires on ${date}: ${title}`,
    text,
    html,
    attachments: [],
  };
}
