/**
 * "Email me the wallet link" (issue 31): the link to the claim page, asked for on the verification
 * page and sent to the certificate's stored address only; its QR code as a picture. No attachment
 * but the picture. The same header sanitising and language as the certificate email.
 */

import { html } from '../../platform/html.js';
import { direction, languageOf, messagesIn } from '../../platform/i18n/i18n.js';
import {
  checkedUrl,
  parseMailAddress,
  sanitizeHeaderText,
  walletLine,
  walletPart,
  type CertificateMailBasics,
  type MailMessage,
} from './mail-message.js';

export function buildWalletLinkMessage(input: CertificateMailBasics & { claimUrl: string }): MailMessage {
  const recipient = sanitizeHeaderText(input.recipientName);
  const title = sanitizeHeaderText(input.title);
  const issuer = sanitizeHeaderText(input.issuerName);
  const url = checkedUrl(input.verificationUrl);
  const claim = walletPart(checkedUrl(input.claimUrl, 'claimUrl'));
  const address = parseMailAddress(input.to, 'recipient').address;
  const lang = languageOf(input.locale) ?? 'en';
  const { text: t, html: h } = messagesIn(lang);

  const text = [
    t('email.hello', { name: recipient }),
    '',
    t('walletEmail.asked', { issuer, title }),
    claim.url,
    '',
    t('walletEmail.notYou'),
    '',
    t('reminder.status'),
    url,
    '',
  ].join('\r\n');

  const bdi = (value: string) => html`<bdi>${value}</bdi>`;
  const body = html`<!doctype html>
<html lang="${lang}" dir="${direction(lang)}"><head><meta charset="utf-8"></head>
<body>
<p>${h('email.hello', { name: bdi(recipient) })}</p>
<p>${h('walletEmail.asked', { issuer: bdi(issuer), title: html`<strong>${bdi(title)}</strong>` })}</p>
${walletLine(claim.url, h)}<p>${h('walletEmail.notYou')}</p>
<p>${h('reminder.status')} <a href="${url}">${url}</a></p>
</body></html>
`;

  return {
    messageId: input.messageId,
    from: parseMailAddress(input.from, 'sender'),
    to: { name: recipient, address },
    subject: t('walletEmail.subject', { title }),
    text,
    html: body.toString(),
    attachments: [claim.qr],
  };
}
