/**
 * The renewal reminder email (issue 19): the certificate expires soon; renew it at the template's
 * renewal URL. No attachment. The same header sanitising as the certificate email (mail-message.ts),
 * and its language: the template's locale (English when it has no catalog), the date written in it.
 */

import { html } from '../../platform/html.js';
import { direction, languageOf, messagesIn } from '../../platform/i18n/i18n.js';
import { formatIssuedAt } from '../../pdf/placeholders.js';
import {
  checkedUrl,
  parseMailAddress,
  sanitizeHeaderText,
  type CertificateMailBasics,
  type MailMessage,
} from './mail-message.js';

export interface ReminderMessageInput extends CertificateMailBasics {
  expiresAt: Date;
  /** An https URL (the design checks it); none: the email says to contact the issuer. */
  renewalUrl: string | null;
}

export function buildReminderMessage(input: ReminderMessageInput): MailMessage {
  const recipient = sanitizeHeaderText(input.recipientName);
  const title = sanitizeHeaderText(input.title);
  const issuer = sanitizeHeaderText(input.issuerName);
  const url = checkedUrl(input.verificationUrl);
  const renew = input.renewalUrl ? checkedUrl(input.renewalUrl, 'renewalUrl') : undefined;
  const date = formatIssuedAt(input.expiresAt.toISOString(), input.locale ?? 'en')!;
  const code = sanitizeHeaderText(input.uniqueCode);
  const address = parseMailAddress(input.to, 'recipient').address;
  const lang = languageOf(input.locale) ?? 'en';
  const { text: t, html: h } = messagesIn(lang);

  const text = [
    t('email.hello', { name: recipient }),
    '',
    t('reminder.expires', { issuer, title, date }),
    '',
    ...(renew ? [t('reminder.renewAt'), renew] : [t('reminder.contact', { issuer })]),
    '',
    t('reminder.status'),
    url,
    t('email.code', { code }),
    '',
  ].join('\r\n');

  const bdi = (value: string) => html`<bdi>${value}</bdi>`;
  const renewLine = renew
    ? html`<a id="renewal-link" href="${renew}">${h('reminder.renewLink')}</a>`
    : h('reminder.contact', { issuer: bdi(issuer) });
  const body = html`<!doctype html>
<html lang="${lang}" dir="${direction(lang)}"><head><meta charset="utf-8"></head>
<body>
<p>${h('email.hello', { name: bdi(recipient) })}</p>
<p>${h('reminder.expires', { issuer: bdi(issuer), title: html`<strong>${bdi(title)}</strong>`, date: html`${date}` })}</p>
<p>${renewLine}</p>
<p>${h('reminder.status')} <a href="${url}">${url}</a><br>${h('email.code', { code: html`${code}` })}</p>
</body></html>
`;

  return {
    messageId: input.messageId,
    from: parseMailAddress(input.from, 'sender'),
    to: { name: recipient, address },
    subject: t('reminder.subject', { date, title }),
    text,
    html: body.toString(),
    attachments: [],
  };
}
