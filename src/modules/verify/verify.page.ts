import { html, join, safe, when, type Html } from '../../platform/html.js';
import { message, messageFragment, messagesIn, type Language } from '../../platform/i18n/i18n.js';
import { certificateFileName } from '../shared/certificate-links.js';
import { linkedInAddToProfileUrl } from '../shared/share-links.js';
import { banner, ICON_QUESTION, issuerOf, stateOf, type PageState } from './verify-page.banner.js';
import { expiryTime, formatDate, time } from './verify-page.dates.js';
import { cspHash, layout, type PageMeta } from './verify-page.layout.js';
import { VERIFY_PAGE_STYLE } from './verify-page.style.js';
import type { VerifyView } from './verify.schemas.js';

// The public page that a certificate's link and QR code open (GET /verify/:code). It is one
// self-contained document: inline CSS allowed by its sha256 hash in VERIFY_PAGE_CSP and one script
// of the service's own (script-src 'self'), nothing loaded from anywhere but the service's own
// script and fonts for names in scripts the
// reader's device has no font for. Every value shown is escaped by the `html` tag, and every value
// that may be written right to left is isolated with dir="auto" (<bdi> inside sentences). Its parts:
// the banner (verify-page.banner.ts), the frame (verify-page.layout.ts), the CSS and the script
// (verify-page.style.ts, src/browser/verify.ts).

// The page shows exactly what the JSON verification answers, and uses the account's page settings.
// `expiresAt` is read when the verification carries it (certificates that expire).

// No connect-src: the PDF check cannot send the file anywhere even if it wanted to.
export const VERIFY_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${cspHash(VERIFY_PAGE_STYLE)}`,
  "script-src 'self'",
  'img-src data:',
  "font-src 'self'",
  "base-uri 'none'",
  // "Email me the wallet link" posts to this service (wallet.routes.ts).
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

// Headers of every answer under /verify/, page or error page.
export const VERIFY_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': VERIFY_PAGE_CSP,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

// Values people typed (names, titles) get dir="auto": a right-to-left name reads right to left.
function row(label: Html, value: unknown, id: string, className = '', typed = false): Html {
  const cls = when(className, () => html` class="${className}"`);
  return html`<div><dt>${label}</dt><dd id="${id}"${cls}${when(typed, () => html` dir="auto"`)}>${value}</dd></div>`;
}

const TITLES = {
  valid: 'title.valid',
  revoked: 'title.revoked',
  superseded: 'title.superseded',
  expired: 'title.expired',
  unknown: 'title.unknown',
} as const;

// Whether the certificate carries a signed credential and a signed PDF, by whom, and where to get it.
function signature(view: VerifyView, lang: Language): Html {
  const say = messagesIn(lang).html;
  if (!view.signed || !view.credentialUrl || !view.issuerDid) return say('signature.none');
  const pdf = view.pdfSigned
    ? say('signature.pdfSigned', { file: html`<code>credential.json</code>` })
    : say('signature.pdfUnsigned');
  const signed = say('signature.signed', { issuer: html`<bdi>${view.issuerName}</bdi>` });
  // Who signed, in words; the issuer's DID only under "Technical details".
  const did = say('signature.issuer', { did: html`<code>${view.issuerDid}</code>` });
  return html`${signed} ${pdf} <a id="credential-link" href="${view.credentialUrl}" download="credential-${view.uniqueCode}.json">${say('signature.download')}</a>
<details class="tech" id="signature-details"><summary>${say('signature.details')}</summary><span class="did">${did}</span></details>`;
}

// "Add to LinkedIn profile" (for a valid certificate) and "Copy link". The copy button appears
// once the page's script runs; without it, the link box is there to copy by hand.
function share(view: VerifyView, state: PageState, lang: Language): Html {
  const say = messagesIn(lang).html;
  const linkedInUrl = () =>
    linkedInAddToProfileUrl({
      name: view.title,
      organizationName: view.issuerName,
      organizationId: view.linkedinOrganizationId,
      issuedAt: view.issuedAt,
      expiresAt: view.expiresAt,
      certUrl: view.verificationUrl,
      certId: view.uniqueCode,
    });
  const linkedIn = when(
    state === 'valid',
    () =>
      html`<a class="btn primary" id="linkedin-link" href="${linkedInUrl()}" target="_blank" rel="noopener noreferrer">${say('share.linkedin')}</a>\n`,
  );
  // Relative: /verify/<code> -> /verify/<code>/pdf, also under a base path.
  const download = when(
    view.publicDownload && view.status === 'Issued',
    () =>
      html`<a class="btn" id="download-pdf" href="${view.uniqueCode}/pdf" download="${certificateFileName(view.uniqueCode)}">${say('share.download')}</a>\n`,
  );
  return html`<section class="card share" id="share" aria-labelledby="share-title">
<h2 id="share-title">${say('share.heading')}</h2>
<div class="share-actions">
${linkedIn}${download}<input id="share-url" type="url" dir="ltr" readonly value="${view.verificationUrl}" aria-label="${say('share.linkLabel')}">
<button class="btn" type="button" id="copy-link" data-copied="${say('share.copied')}" data-copy-failed="${say('share.copyFailed')}" hidden>${say('share.copy')}</button>
<span id="copy-status" role="status"></span>
</div>
</section>`;
}

const PREVIEWS = {
  valid: 'preview.valid',
  revoked: 'preview.revoked',
  superseded: 'preview.superseded',
  expired: 'preview.unknown',
  unknown: 'preview.unknown',
} as const;

// The words of a link preview: who earned what, from whom, and whether it holds.
function previewOf(view: VerifyView, state: PageState, lang: Language): PageMeta {
  const params = {
    issuer: view.issuerName,
    name: view.recipientName,
    date: formatDate(view.issuedAt, lang),
  };
  return {
    title: `${view.recipientName}: ${view.title}`,
    description: message(lang, PREVIEWS[state], params),
    url: view.verificationUrl,
    // The same condition as "Download PDF": the picture is of the PDF.
    ...(view.publicDownload && view.status === 'Issued'
      ? { image: `${view.verificationUrl}/preview.png` }
      : {}),
  };
}

// The messages of the page's script (the "Check a PDF" verdicts), in the page's language: the
// script is the same text in every language (its hash is in the CSP), so it reads them from here.
const CLIENT_MESSAGES = {
  checking: 'check.checking',
  pdfMatch: 'check.pdfMatch',
  pdfMatchExact: 'check.pdfMatchExact',
  pdfMatchRevoked: 'check.pdfMatchRevoked',
  pdfMismatch: 'check.pdfMismatch',
  credentialMatch: 'check.credentialMatch',
  credentialMatchExact: 'check.credentialMatchExact',
  credentialMatchRevoked: 'check.credentialMatchRevoked',
  credentialMismatch: 'check.credentialMismatch',
  credentialNone: 'check.credentialNone',
  mismatchDetail: 'check.mismatchDetail',
  notPdfOrCredential: 'check.notPdfOrCredential',
  notPdfOrCredentialDetail: 'check.notPdfOrCredentialDetail',
  error: 'check.error',
} as const;

const clientMessages = new Map<Language, Html>();
function clientMessagesOf(lang: Language): Html {
  let json = clientMessages.get(lang);
  if (json === undefined) {
    const entries = Object.entries(CLIENT_MESSAGES).map(([name, key]) => [name, message(lang, key)]);
    json = html`${JSON.stringify(Object.fromEntries(entries))}`;
    clientMessages.set(lang, json);
  }
  return json;
}

function details(view: VerifyView, lang: Language): Html {
  const say = messagesIn(lang).html;
  const expiry = view.expiresAt
    ? [row(say(view.expired ? 'label.expiredOn' : 'label.validUntil'), expiryTime(view, lang), 'expires-at')]
    : [];
  const rows = [
    row(say('label.awardedTo'), view.recipientName, 'recipient-name', 'name', true),
    row(say('label.awardedFor'), view.title, 'title', '', true),
    row(say('label.certificate'), view.templateName, 'template-name', '', true),
    row(say('label.issuedBy'), issuerOf(view, lang), 'issuer-name', '', true),
    row(say('label.issuedOn'), time(view.issuedAt, lang), 'issued-at'),
    ...expiry,
    row(say('label.code'), view.uniqueCode, 'unique-code', 'code'),
    row(say('label.signature'), signature(view, lang), 'signature', 'plain'),
  ];
  return join(rows, '\n');
}

// "Check a PDF": the drop zone the page's script runs, with what the file must hash to.
function pdfCheck(view: VerifyView, state: PageState, lang: Language): Html {
  const say = messagesIn(lang).html;
  const revoked = state === 'revoked' || state === 'superseded';
  return html`<section class="card check" id="pdf-check" aria-labelledby="pdf-check-title" data-pdf-sha256="${view.pdfSha256}" data-credential-sha256="${view.credentialSha256 ?? ''}" data-revoked="${revoked}" data-messages="${clientMessagesOf(lang)}">
<h2 id="pdf-check-title">${say('check.heading')}</h2>
<p>${say('check.intro')}</p>
<label class="drop" id="pdf-drop" for="pdf-file">
<strong>${say('check.drop')}</strong>
<span>${say('check.choose')}</span>
<input class="sr-only" type="file" id="pdf-file" accept="application/pdf,.pdf,application/json,application/vc,application/ld+json,.json,.jsonld,.vc">
</label>
<div class="result" id="pdf-check-result" role="status" aria-live="polite" hidden>
<p class="msg" id="pdf-check-message"></p>
<p class="detail" id="pdf-check-detail"></p>
</div>
<p class="hash">${say('check.fingerprint')}<code id="pdf-sha256">${view.pdfSha256}</code></p>
</section>`;
}

// "Are you the recipient? Email me the wallet link" (issue 31): a valid, signed certificate only. The
// form asks for nothing: the link goes to the stored address (wallet.routes.ts); no token is here.
function walletLink(view: VerifyView, state: PageState, lang: Language): Html {
  if (state !== 'valid' || !view.signed) return html``;
  const say = messagesIn(lang).html;
  return html`<section class="card share" id="wallet-link" aria-labelledby="wallet-link-title">
<h2 id="wallet-link-title">${say('wallet.heading')}</h2>
<p>${say('wallet.intro')}</p>
<form method="post" action="${view.uniqueCode}/wallet-link?lang=${lang}"><button class="btn" type="submit" id="email-wallet-link">${say('wallet.button')}</button></form>
</section>
`;
}

export function renderVerifyPage(view: VerifyView, lang: Language = 'en'): string {
  const state = stateOf(view);
  const code = html`<span class="code">${view.uniqueCode}</span>`;
  const body = html`<article class="card">
${banner(view, state, lang)}
<dl>
${details(view, lang)}
</dl>
</article>
${share(view, state, lang)}
${walletLink(view, state, lang)}${pdfCheck(view, state, lang)}
<footer>${messageFragment(lang, 'page.footer', { code })}</footer>`;
  return layout({
    lang,
    title: `${message(lang, TITLES[state])} \u00b7 ${view.uniqueCode}`,
    body,
    script: true,
    meta: previewOf(view, state, lang),
  });
}

export function renderNotFoundPage(code: string, lang: Language = 'en'): string {
  const say = messagesIn(lang).html;
  const shown = html`<span class="code" id="unique-code">${code}</span>`;
  const body = html`<article class="card">
<header class="banner unknown" id="verify-state" data-state="not-found">${ICON_QUESTION}<div>
<h1>${say('notFound.heading')}</h1>
<p>${say('notFound.text', { code: shown })}</p></div></header>
<dl>
<div><dt>${say('notFound.whatLabel')}</dt><dd class="plain">${say('notFound.what')}</dd></div>
</dl>
</article>`;
  return layout({ lang, title: message(lang, 'notFound.heading'), body, script: false });
}

// Any other refusal under /verify/ (a malformed request, a method other than GET, the rate limit):
// the same page layout, so that a browser always gets a page.
export function renderErrorPage(status: number, message: string): string {
  const body = html`<article class="card">
<header class="banner unknown" id="verify-state" data-state="error">${ICON_QUESTION}<div>
<h1>This page cannot be shown</h1>
<p id="error-message">${message}</p></div></header>
<dl>
<div><dt>What you can do</dt><dd class="plain">Open the link or scan the QR code on the certificate again${safe(status === 429 ? ' in a minute' : '')}.</dd></div>
</dl>
</article>`;
  return layout({ lang: 'en', title: 'This page cannot be shown', body, script: false, switcher: false });
}
