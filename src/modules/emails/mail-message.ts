/**
 * The certificate delivery email. Every value that can reach a header is sanitised here, so that a
 * recipient or template name can never add headers or recipients (header injection).
 */

import { html, safe, when } from '../../platform/html.js';
import { certificateFileName } from '../shared/certificate-links.js';
import { FONT_STACK, nameFontFaces } from '../shared/name-fonts.js';
import { linkedInAddToProfileUrl } from '../shared/share-links.js';
import { direction, languageOf, messagesIn, type Messages } from '../../platform/i18n/i18n.js';
import { qrPng } from '../shared/wallet-links.js';

export interface MailAddress {
  name: string;
  address: string;
}

export interface MailAttachment {
  filename: string;
  content: Buffer;
  contentType: string;
  /** Content-ID: a picture the HTML part shows (<img src="cid:...">) rather than a file. */
  cid?: string;
}

/** A subset of nodemailer's `SendMailOptions`, so it can be passed to any nodemailer transport. */
export interface MailMessage {
  /** `<id@domain>`, the same on every attempt of one send (see sendMessageId). */
  messageId: string;
  from: MailAddress;
  to: MailAddress;
  subject: string;
  text: string;
  html: string;
  attachments: MailAttachment[];
}

/** What every email about a certificate says: who sends it to whom, about what. */
export interface CertificateMailBasics {
  /** The send's Message-ID (sendMessageId). */
  messageId: string;
  /** `address@example.org` or `Display Name <address@example.org>`. */
  from: string;
  to: string;
  recipientName: string;
  /** What was earned: the certificate's frozen title. */
  title: string;
  issuerName: string;
  verificationUrl: string;
  uniqueCode: string;
  /** The template's locale (BCP 47): the language of the email; English when it has no catalog. */
  locale?: string | null;
}

export interface CertificateMessageInput extends CertificateMailBasics {
  /** Where the signed Open Badges credential is served, when the certificate has one. */
  credentialUrl?: string;
  /** Issue time (ISO 8601); with it the email offers "Add to LinkedIn profile". */
  issuedAt?: string;
  /** Expiry (ISO 8601), for certificates that have one. */
  expiresAt?: string | null;
  /** The issuing account's LinkedIn organisation id, when it set one. */
  linkedinOrganizationId?: string | null;
  /** "Add to your wallet": the claim page's link, minted for this send (only to the stored address). */
  claimUrl?: string;
  pdf: Buffer;
}

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
// eslint-disable-next-line no-control-regex
const HAS_CONTROL_CHAR = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
// No whitespace and none of the characters that delimit addresses or groups in a header.
const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;

/** Replaces control characters (CR, LF, TAB, NUL ...) by spaces and collapses the result. */
export function sanitizeHeaderText(value: string): string {
  return value.replace(CONTROL_CHARS, ' ').replace(/ {2,}/g, ' ').trim();
}

export class InvalidMailAddressError extends Error {
  constructor(what: string) {
    super(`invalid ${what} email address`);
    this.name = 'InvalidMailAddressError';
  }
}

function checkedAddress(value: string, what: string): string {
  if (HAS_CONTROL_CHAR.test(value)) throw new InvalidMailAddressError(what);
  const address = value.trim();
  if (!ADDRESS.test(address)) throw new InvalidMailAddressError(what);
  return address;
}

/** Parses `addr` or `Name <addr>`; refuses anything with control characters or more than one address. */
export function parseMailAddress(value: string, what = 'sender'): MailAddress {
  if (HAS_CONTROL_CHAR.test(value)) throw new InvalidMailAddressError(what);
  const named = /^\s*(.*?)\s*<([^<>]*)>\s*$/.exec(value);
  if (named) {
    const name = sanitizeHeaderText((named[1] ?? '').replace(/^"(.*)"$/, '$1'));
    return { name, address: checkedAddress(named[2] ?? '', what) };
  }
  return { name: '', address: checkedAddress(value, what) };
}

/**
 * The Message-ID of one email send: `<send id@domain of MAIL_FROM>`. It is derived from the send id,
 * so every attempt of a send (a retry after a dropped connection, a redelivery after a worker died
 * or stopped) carries the same Message-ID and the recipient's mail system can drop the duplicate;
 * two sends, even of the same certificate to the same address, have different ones.
 */
export function sendMessageId(sendId: string, mailFrom: string): string {
  const { address } = parseMailAddress(mailFrom, 'sender');
  return `<${sendId}@${address.slice(address.lastIndexOf('@') + 1)}>`;
}

export function checkedUrl(value: string, what = 'verificationUrl'): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${what} is not a valid URL`);
  }
  // Only web links: the URL becomes an href in the HTML part.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`${what} must be http(s)`);
  return url.href;
}

// "Add to your wallet": the claim page's link and its QR code, a small picture in the message.
export const WALLET_QR_CID = 'wallet-qr@certsvc';
export function walletPart(url: string): { url: string; qr: MailAttachment } {
  return {
    url,
    qr: { filename: 'wallet-qr.png', content: qrPng(url, 3), contentType: 'image/png', cid: WALLET_QR_CID },
  };
}

export function walletLine(url: string, h: Messages['html']) {
  return html`<p>${h('email.wallet')}<br>
<a href="${url}"><strong>${h('email.walletLink')}</strong></a></p>
<p><img src="cid:${WALLET_QR_CID}" alt="${h('email.walletQrAlt')}" width="150" height="150"></p>
`;
}

export function buildCertificateMessage(input: CertificateMessageInput): MailMessage {
  const recipient = sanitizeHeaderText(input.recipientName);
  const title = sanitizeHeaderText(input.title);
  const issuer = sanitizeHeaderText(input.issuerName);
  const url = checkedUrl(input.verificationUrl);
  const credential =
    input.credentialUrl === undefined ? undefined : checkedUrl(input.credentialUrl, 'credentialUrl');
  const claim = input.claimUrl === undefined ? undefined : walletPart(checkedUrl(input.claimUrl, 'claimUrl'));
  const from = parseMailAddress(input.from, 'sender');
  const linkedIn =
    input.issuedAt === undefined
      ? undefined
      : linkedInAddToProfileUrl({
          name: title,
          organizationName: issuer,
          organizationId: input.linkedinOrganizationId,
          issuedAt: input.issuedAt,
          expiresAt: input.expiresAt,
          certUrl: url,
          certId: sanitizeHeaderText(input.uniqueCode),
        });
  const to: MailAddress = { name: recipient, address: checkedAddress(input.to, 'recipient') };

  const lang = languageOf(input.locale) ?? 'en';
  const code = sanitizeHeaderText(input.uniqueCode);
  const { text: t, html: h } = messagesIn(lang);
  const text = [
    t('email.hello', { name: recipient }),
    '',
    t('email.issued', { issuer, title }),
    '',
    t('email.attached'),
    t('email.checkAt'),
    url,
    '',
    t('email.code', { code }),
    '',
    ...(linkedIn ? [t('email.linkedin'), linkedIn, ''] : []),
    ...(credential ? [t('email.credential'), credential, ''] : []),
    ...(claim ? [t('email.wallet'), claim.url, ''] : []),
  ].join('\r\n');

  const bdi = (value: string) => html`<bdi>${value}</bdi>`;
  const linkedInLine = when(
    linkedIn,
    () => html`<p><a href="${linkedIn}">${h('email.linkedinLink')}</a></p>\n`,
  );
  const credentialLine = when(
    credential,
    () => html`<p>${h('email.credential')} <a href="${credential}">${h('email.credentialLink')}</a>.</p>\n`,
  );
  // Names and titles in any script: isolated (<bdi>) so that a right-to-left name reads right to
  // left without turning the sentence around it, in the fonts the verification page uses (clients
  // that load web fonts get the service's own fonts for scripts the reader's device lacks).
  const body = html`<!doctype html>
<html lang="${lang}" dir="${direction(lang)}"><head><meta charset="utf-8"><style>
${safe(nameFontFaces(new URL('fonts/', url).href))}
</style></head>
<body style="font-family:${FONT_STACK}">
<p>${h('email.hello', { name: bdi(recipient) })}</p>
<p>${h('email.issued', { issuer: bdi(issuer), title: html`<strong>${bdi(title)}</strong>` })}</p>
<p>${h('email.attached')} ${h('email.checkAt')}<br>
<a href="${url}">${url}</a></p>
<p>${h('email.code', { code: html`${code}` })}</p>
${linkedInLine}${credentialLine}${when(claim, () => walletLine(claim!.url, h))}</body></html>
`;

  return {
    messageId: input.messageId,
    from,
    to,
    subject: t('email.subject', { title, name: recipient }),
    text,
    html: body.toString(),
    attachments: [
      {
        filename: certificateFileName(input.uniqueCode),
        content: input.pdf,
        contentType: 'application/pdf',
      },
      ...(claim ? [claim.qr] : []),
    ],
  };
}
