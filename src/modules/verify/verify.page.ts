import { createHash } from 'node:crypto';
import { escapeHtml } from '../../platform/html.js';
import { FAVICON_LINK } from '../../platform/http/favicon.js';
import { verifyPageClient } from './verify-page.client.js';
import type { Verification } from './verify.schemas.js';
import { formatIssuedAt } from '../../pdf/placeholders.js';
import { FONT_STACK, nameFontFaces } from '../shared/name-fonts.js';
import { linkedInAddToProfileUrl } from '../shared/share-links.js';
import { certificateFileName } from '../shared/certificate-links.js';
import {
  direction,
  LANGUAGE_NAMES,
  LANGUAGES,
  message,
  messageHtml,
  type Language,
} from '../../platform/i18n/i18n.js';

// The public page that a certificate's link and QR code open (GET /verify/:code). It is one
// self-contained document: inline CSS and one inline script, both allowed by their sha256 hash in
// VERIFY_PAGE_CSP, nothing loaded from anywhere but the service's own fonts for names in scripts the
// reader's device has no font for. Every value shown comes through escapeHtml(), and every value
// that may be written right to left is isolated with dir="auto" (<bdi> inside sentences).

// The page shows exactly what the JSON verification answers, and uses the account's page settings.
// `expiresAt` is read when the verification carries it (certificates that expire).
export type VerifyView = Verification & {
  credentialSha256?: string | null;
  linkedinOrganizationId?: string | null;
  publicDownload?: boolean;
  expiresAt?: string | null;
  /** The issuer's calendar day of the expiry (YYYY-MM-DD): shown instead of expiresAt's UTC day. */
  expiresOn?: string | null;
};

const STYLE = `
${nameFontFaces('fonts/')}
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:#f1f3f6;color:#1c2430;font:16px/1.5 ${FONT_STACK}}
main{max-width:40rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:14px;box-shadow:0 1px 3px rgba(16,24,40,.1),0 1px 2px rgba(16,24,40,.06);overflow:hidden;margin-bottom:1rem}
.banner{display:flex;align-items:center;gap:.9rem;padding:1.25rem;color:#fff}
.banner.valid{background:#13793f}
.banner.revoked{background:#b42318}
.banner.superseded{background:#1f5fbf}
.banner.expired{background:#b54708}
.banner.unknown{background:#475467}
.banner svg{flex:none;width:3rem;height:3rem}
.banner h1{margin:0;font-size:1.6rem;line-height:1.2;font-weight:700}
.banner p{margin:.2rem 0 0;font-size:.98rem;opacity:.95}
.banner time{white-space:nowrap}
.reason{margin:0;padding:.9rem 1.25rem;background:#fef3f2;color:#7a271a;border-bottom:1px solid #fecdca;overflow-wrap:anywhere}
.reason strong{display:block;font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#b42318}
.replaced{margin:0;padding:.9rem 1.25rem;background:#eff4ff;color:#1c2430;border-bottom:1px solid #c7d7fe;overflow-wrap:anywhere}
#superseded-by{display:inline-block;margin:0 0 .35rem;padding:.55rem 1rem;border-radius:8px;background:#1f5fbf;color:#fff;font-weight:700;text-decoration:none}
#superseded-by:focus{outline:3px solid #84adff;outline-offset:2px}
.replaced span{display:block;font-size:.9rem;color:#475467}
details.tech{margin-top:.4rem;font-size:.9rem;color:#475467}
details.tech summary{cursor:pointer;color:#1f5fbf}
dl{margin:0;padding:.4rem 1.25rem 1rem}
dl div{padding:.7rem 0;border-bottom:1px solid #eaecf0}
dl div:last-child{border-bottom:0}
dt{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#667085}
dd{margin:.1rem 0 0;font-size:1.05rem;font-weight:600;overflow-wrap:anywhere}
dd.name{font-size:1.45rem;line-height:1.25}
dd.plain{font-size:1rem;font-weight:400}
.code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;letter-spacing:.08em}
section.check{padding:1.25rem}
section.check h2{margin:0 0 .3rem;font-size:1.2rem}
section.check p{margin:0 0 .8rem;color:#475467}
.drop{display:flex;flex-direction:column;align-items:center;justify-content:center;gap:.25rem;min-height:7.5rem;padding:1rem;border:2px dashed #98a2b3;border-radius:12px;background:#f9fafb;text-align:center;cursor:pointer}
.drop:hover,.drop.dragging,.drop:focus-within{border-color:#1f5fbf;background:#eff4ff}
.drop strong{font-size:1.05rem;color:#1f5fbf}
.drop span{font-size:.9rem;color:#667085}
.sr-only{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0,0,0,0);white-space:nowrap;border:0}
.drop:focus-within{outline:3px solid #84adff;outline-offset:2px}
.result{margin-top:1rem;padding:.9rem 1rem;border-radius:10px;border:1px solid #d0d5dd;background:#f9fafb}
.check .result p{margin:0;color:inherit}
.result .msg{font-weight:700;font-size:1.05rem}
.check .result .detail{margin-top:.2rem;font-size:.92rem;overflow-wrap:anywhere}
.result[data-result=match]{background:#ecfdf3;border-color:#75e0a7;color:#05603a}
.result[data-result=mismatch],.result[data-result=error],.result[data-result=unsupported]{background:#fef3f2;border-color:#fda29b;color:#912018}
.check .hash{margin:1rem 0 0;font-size:.8rem;color:#667085}
.hash code{display:block;font-size:.78rem;overflow-wrap:anywhere;word-break:break-all}
section.share{padding:1.25rem}
section.share h2{margin:0 0 .6rem;font-size:1.2rem}
.share-actions{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center}
.share-actions input{flex:1 1 14rem;min-width:0;padding:.55rem .7rem;border:1px solid #d0d5dd;border-radius:8px;font:.92rem/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#344054;background:#f9fafb}
.btn{display:inline-block;padding:.55rem 1rem;border:1px solid #1f5fbf;border-radius:8px;background:#fff;color:#1f5fbf;font-family:inherit;font-size:.95rem;font-weight:600;line-height:1.3;text-decoration:none;cursor:pointer}
.btn.primary{background:#0a66c2;border-color:#0a66c2;color:#fff}
.btn:focus{outline:3px solid #84adff;outline-offset:2px}
.share-actions [role=status]{flex-basis:100%;font-size:.9rem;color:#05603a}
.share-actions [role=status][data-copied=false]{color:#912018}
.langs{display:flex;flex-wrap:wrap;justify-content:center;gap:.2rem .85rem;margin:0 0 .8rem;font:.9rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.langs a{color:#1f5fbf}
.langs a[aria-current]{color:#1c2430;font-weight:700;text-decoration:none}
footer{padding:0 .25rem 1.5rem;font-size:.85rem;color:#667085;text-align:center;overflow-wrap:anywhere}
@media (min-width:40rem){main{padding:2.5rem 1rem}.banner{padding:1.5rem 1.75rem}dl{padding:.4rem 1.75rem 1.2rem}.reason{padding:1rem 1.75rem}section.check{padding:1.5rem 1.75rem}.banner h1{font-size:1.9rem}}
`;

const SCRIPT = `(${verifyPageClient.toString()})();`;

function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

// No connect-src: the PDF check cannot send the file anywhere even if it wanted to.
export const VERIFY_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${cspHash(STYLE)}`,
  `script-src ${cspHash(SCRIPT)}`,
  'img-src data:',
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// "21 November 2026" in UTC: the same form as the date printed on the certificate (also used by
// the dashboard).
export function formatDateUtc(iso: string): string {
  return formatIssuedAt(iso) ?? iso;
}

// A date as the page's language writes it (UTC); English as on the certificate.
export function formatDate(iso: string, lang: Language): string {
  return formatIssuedAt(iso, lang) ?? iso;
}

function time(iso: string, lang: Language): string {
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(formatDate(iso, lang))}</time>`;
}

// The expiry as the issuer meant it: their calendar day (the date part of the expiresAt they
// wrote, offset and all), else the UTC day of the instant. datetime= keeps the instant.
function expiryTime(view: VerifyView, lang: Language): string {
  const day = view.expiresOn && /^\d{4}-\d{2}-\d{2}$/.test(view.expiresOn) ? view.expiresOn : undefined;
  if (!day) return time(view.expiresAt!, lang);
  return `<time datetime="${escapeHtml(view.expiresAt!)}">${escapeHtml(formatDate(`${day}T12:00:00.000Z`, lang))}</time>`;
}

const ICON_CHECK =
  '<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="#fff"/>' +
  '<path d="M14 24.5l7 7 13-14" fill="none" stroke="#13793f" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/></svg>';
const ICON_CROSS =
  '<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="#fff"/>' +
  '<path d="M16 16l16 16M32 16L16 32" fill="none" stroke="#b42318" stroke-width="5" stroke-linecap="round"/></svg>';
const ICON_REPLACED =
  '<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="#fff"/>' +
  '<path d="M13 24h20M26 16l8 8-8 8" fill="none" stroke="#1f5fbf" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/></svg>';
const ICON_QUESTION =
  '<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="#fff"/>' +
  '<path d="M18 18a6 6 0 1 1 8.5 5.5c-1.8.8-2.5 2-2.5 4v1.5" fill="none" stroke="#475467" stroke-width="4.5" stroke-linecap="round"/>' +
  '<circle cx="24" cy="35" r="2.8" fill="#475467"/></svg>';

// Open Graph and Twitter card tags: a shared link previews with the certificate's title and words,
// and, when the page offers the PDF, a picture of its first page (GET /verify/:code/preview.png).
function shareMeta(meta: { title: string; description: string; url: string; image?: string }): string {
  const title = escapeHtml(meta.title);
  const description = escapeHtml(meta.description);
  const image = meta.image
    ? `<meta property="og:image" content="${escapeHtml(meta.image)}">
<meta property="og:image:type" content="image/png">
<meta property="og:image:alt" content="${title}">
<meta name="twitter:image" content="${escapeHtml(meta.image)}">
`
    : '';
  return `<meta name="description" content="${description}">
<meta property="og:type" content="website">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta property="og:url" content="${escapeHtml(meta.url)}">
${image}<meta name="twitter:card" content="${meta.image ? 'summary_large_image' : 'summary'}">
<meta name="twitter:title" content="${title}">
<meta name="twitter:description" content="${description}">
`;
}

// "English · Français · ...": one link per language, each in its own language (?lang=xx keeps the
// choice in the address, so a link that is shared keeps it too). Its font stack leaves out the
// bundled name fonts: the names of the languages must not make every visitor download the Arabic,
// Devanagari and CJK fonts (the device's own fonts show them, or not, as they can).
const switchers = new Map<Language, string>();
function languageSwitcher(lang: Language): string {
  let html = switchers.get(lang);
  if (html === undefined) {
    html = switcherOf(lang);
    switchers.set(lang, html);
  }
  return html;
}

function switcherOf(lang: Language): string {
  const links = LANGUAGES.map((l) =>
    l === lang
      ? `<a href="?lang=${l}" lang="${l}" hreflang="${l}" aria-current="true">${LANGUAGE_NAMES[l]}</a>`
      : `<a href="?lang=${l}" lang="${l}" hreflang="${l}">${LANGUAGE_NAMES[l]}</a>`,
  ).join('\n');
  return `<nav class="langs" id="languages" aria-label="${messageHtml(lang, 'page.language')}">\n${links}\n</nav>`;
}

function layout(opts: {
  lang: Language;
  title: string;
  body: string;
  script: boolean;
  meta?: { title: string; description: string; url: string; image?: string };
  switcher?: boolean;
}): string {
  return `<!doctype html>
<html lang="${opts.lang}" dir="${direction(opts.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(opts.title)}</title>
${FAVICON_LINK}
${opts.meta ? shareMeta(opts.meta) : ''}<style>${STYLE}</style>
</head>
<body>
<main>
${opts.switcher === false ? '' : languageSwitcher(opts.lang)}
${opts.body}
</main>
${opts.script ? `<script>${SCRIPT}</script>\n` : ''}</body>
</html>
`;
}

type PageState = 'valid' | 'revoked' | 'superseded' | 'expired' | 'unknown';

// Superseded: revoked by a correction (reissue), which the page points to first.
function stateOf(view: VerifyView): PageState {
  if (view.status === 'Revoked') return view.supersededBy ? 'superseded' : 'revoked';
  if (view.expired && view.expiresAt) return 'expired';
  return view.valid && view.status === 'Issued' ? 'valid' : 'unknown';
}

function banner(view: VerifyView, state: PageState, lang: Language): string {
  const issuer = `<bdi>${escapeHtml(view.issuerName)}</bdi>`;
  if (state === 'valid') {
    return `<header class="banner valid" id="verify-state" data-state="valid">${ICON_CHECK}<div>
<h1>${messageHtml(lang, 'page.valid.heading')}</h1>
<p>${messageHtml(lang, 'page.valid.text', { issuer })}</p></div></header>`;
  }
  if (state === 'revoked') {
    const text = view.revokedAt
      ? messageHtml(lang, 'page.revoked.textOn', { issuer, date: time(view.revokedAt, lang) })
      : messageHtml(lang, 'page.revoked.text', { issuer });
    const reason = view.revocationReason
      ? escapeHtml(view.revocationReason)
      : messageHtml(lang, 'page.revoked.noReason');
    return `<header class="banner revoked" id="verify-state" data-state="revoked">${ICON_CROSS}<div>
<h1>${messageHtml(lang, 'page.revoked.heading')}</h1>
<p>${text}</p></div></header>
<p class="reason" id="revocation-reason"><strong>${messageHtml(lang, 'page.revoked.reason')}</strong><span dir="auto">${reason}</span></p>`;
  }
  if (state === 'superseded' && view.supersededBy) {
    // A correction (reissue): the link to the certificate that replaced this one comes first; the
    // stored reason ("Superseded by <code>", the service's words) is said in the page's language.
    const text = view.revokedAt
      ? messageHtml(lang, 'page.superseded.textOn', { issuer, date: time(view.revokedAt, lang) })
      : messageHtml(lang, 'page.superseded.textNoDate', { issuer });
    const newCode = view.supersededBy.slice(view.supersededBy.lastIndexOf('/') + 1);
    const said = messageHtml(lang, 'page.superseded.reason', {
      code: escapeHtml(newCode),
    });
    return `<header class="banner superseded" id="verify-state" data-state="superseded">${ICON_REPLACED}<div>
<h1>${messageHtml(lang, 'page.superseded.heading')}</h1>
<p>${text}</p></div></header>
<p class="replaced" id="superseded"><a id="superseded-by" href="${escapeHtml(view.supersededBy)}">${messageHtml(lang, 'page.superseded.link')}</a><span id="revocation-reason">${said}</span></p>`;
  }
  if (state === 'expired' && view.expiresAt) {
    return `<header class="banner expired" id="verify-state" data-state="expired">${ICON_CROSS}<div>
<h1>${messageHtml(lang, 'page.expired.text', { date: expiryTime(view, lang) })}</h1>
<p>${messageHtml(lang, 'page.expired.body', { issuer })}</p></div></header>`;
  }
  return `<header class="banner unknown" id="verify-state" data-state="unknown">${ICON_QUESTION}<div>
<h1>${messageHtml(lang, 'page.unknown.heading')}</h1>
<p>${messageHtml(lang, 'page.unknown.text')}</p></div></header>`;
}

// Values people typed (names, titles) get dir="auto": a right-to-left name reads right to left.
function row(label: string, valueHtml: string, id: string, className = '', typed = false): string {
  const cls = className ? ` class="${className}"` : '';
  return `<div><dt>${label}</dt><dd id="${id}"${cls}${typed ? ' dir="auto"' : ''}>${valueHtml}</dd></div>`;
}

const TITLES = {
  valid: 'title.valid',
  revoked: 'title.revoked',
  superseded: 'title.superseded',
  expired: 'title.expired',
  unknown: 'title.unknown',
} as const;

// Whether the certificate carries a signed credential and a signed PDF, by whom, and where to get it.
function signature(view: VerifyView, lang: Language): string {
  if (!view.signed || !view.credentialUrl || !view.issuerDid) return messageHtml(lang, 'signature.none');
  const pdf = view.pdfSigned
    ? messageHtml(lang, 'signature.pdfSigned', { file: '<code>credential.json</code>' })
    : messageHtml(lang, 'signature.pdfUnsigned');
  const signed = messageHtml(lang, 'signature.signed', {
    issuer: `<bdi>${escapeHtml(view.issuerName)}</bdi>`,
  });
  // Who signed, in words; the issuer's DID only under "Technical details".
  const did = messageHtml(lang, 'signature.issuer', { did: `<code>${escapeHtml(view.issuerDid)}</code>` });
  return `${signed} ${pdf} <a id="credential-link" href="${escapeHtml(view.credentialUrl)}" download="credential-${escapeHtml(view.uniqueCode)}.json">${messageHtml(lang, 'signature.download')}</a>
<details class="tech" id="signature-details"><summary>${messageHtml(lang, 'signature.details')}</summary><span class="did">${did}</span></details>`;
}

// "Add to LinkedIn profile" (for a valid certificate) and "Copy link". The copy button appears
// once the page's script runs; without it, the link box is there to copy by hand.
function share(view: VerifyView, state: PageState, lang: Language): string {
  const linkedIn =
    state === 'valid'
      ? `<a class="btn primary" id="linkedin-link" href="${escapeHtml(
          linkedInAddToProfileUrl({
            name: view.title,
            organizationName: view.issuerName,
            organizationId: view.linkedinOrganizationId,
            issuedAt: view.issuedAt,
            expiresAt: view.expiresAt,
            certUrl: view.verificationUrl,
            certId: view.uniqueCode,
          }),
        )}" target="_blank" rel="noopener noreferrer">${messageHtml(lang, 'share.linkedin')}</a>\n`
      : '';
  // Relative: /verify/<code> -> /verify/<code>/pdf, also under a base path.
  const download =
    view.publicDownload && view.status === 'Issued'
      ? `<a class="btn" id="download-pdf" href="${escapeHtml(view.uniqueCode)}/pdf" download="${escapeHtml(certificateFileName(view.uniqueCode))}">${messageHtml(lang, 'share.download')}</a>\n`
      : '';
  return `<section class="card share" id="share" aria-labelledby="share-title">
<h2 id="share-title">${messageHtml(lang, 'share.heading')}</h2>
<div class="share-actions">
${linkedIn}${download}<input id="share-url" type="url" dir="ltr" readonly value="${escapeHtml(view.verificationUrl)}" aria-label="${messageHtml(lang, 'share.linkLabel')}">
<button class="btn" type="button" id="copy-link" data-copied="${messageHtml(lang, 'share.copied')}" data-copy-failed="${messageHtml(lang, 'share.copyFailed')}" hidden>${messageHtml(lang, 'share.copy')}</button>
<span id="copy-status" role="status"></span>
</div>
</section>`;
}

// The words of a link preview: who earned what, from whom, and whether it holds.
function previewOf(
  view: VerifyView,
  state: PageState,
  lang: Language,
): { title: string; description: string; url: string; image?: string } {
  const params = {
    issuer: view.issuerName,
    name: view.recipientName,
    date: formatDate(view.issuedAt, lang),
  };
  const key =
    state === 'valid'
      ? 'preview.valid'
      : state === 'revoked'
        ? 'preview.revoked'
        : state === 'superseded'
          ? 'preview.superseded'
          : 'preview.unknown';
  return {
    title: `${view.recipientName}: ${view.title}`,
    description: message(lang, key, params),
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

const clientMessages = new Map<Language, string>();
function clientMessagesOf(lang: Language): string {
  let json = clientMessages.get(lang);
  if (json === undefined) {
    const entries = Object.entries(CLIENT_MESSAGES).map(([name, key]) => [name, message(lang, key)]);
    json = escapeHtml(JSON.stringify(Object.fromEntries(entries)));
    clientMessages.set(lang, json);
  }
  return json;
}

export function renderVerifyPage(view: VerifyView, lang: Language = 'en'): string {
  const state = stateOf(view);
  const details = [
    row(messageHtml(lang, 'label.awardedTo'), escapeHtml(view.recipientName), 'recipient-name', 'name', true),
    row(messageHtml(lang, 'label.awardedFor'), escapeHtml(view.title), 'title', '', true),
    row(messageHtml(lang, 'label.certificate'), escapeHtml(view.templateName), 'template-name', '', true),
    row(messageHtml(lang, 'label.issuedBy'), escapeHtml(view.issuerName), 'issuer-name', '', true),
    row(messageHtml(lang, 'label.issuedOn'), time(view.issuedAt, lang), 'issued-at'),
    ...(view.expiresAt
      ? [
          row(
            messageHtml(lang, view.expired ? 'label.expiredOn' : 'label.validUntil'),
            expiryTime(view, lang),
            'expires-at',
          ),
        ]
      : []),
    row(messageHtml(lang, 'label.code'), escapeHtml(view.uniqueCode), 'unique-code', 'code'),
    row(messageHtml(lang, 'label.signature'), signature(view, lang), 'signature', 'plain'),
  ].join('\n');
  const body = `<article class="card">
${banner(view, state, lang)}
<dl>
${details}
</dl>
</article>
${share(view, state, lang)}
<section class="card check" id="pdf-check" aria-labelledby="pdf-check-title" data-pdf-sha256="${escapeHtml(view.pdfSha256)}" data-credential-sha256="${escapeHtml(view.credentialSha256 ?? '')}" data-revoked="${state === 'revoked' || state === 'superseded'}" data-messages="${clientMessagesOf(lang)}">
<h2 id="pdf-check-title">${messageHtml(lang, 'check.heading')}</h2>
<p>${messageHtml(lang, 'check.intro')}</p>
<label class="drop" id="pdf-drop" for="pdf-file">
<strong>${messageHtml(lang, 'check.drop')}</strong>
<span>${messageHtml(lang, 'check.choose')}</span>
<input class="sr-only" type="file" id="pdf-file" accept="application/pdf,.pdf,application/json,application/vc,application/ld+json,.json,.jsonld,.vc">
</label>
<div class="result" id="pdf-check-result" role="status" aria-live="polite" hidden>
<p class="msg" id="pdf-check-message"></p>
<p class="detail" id="pdf-check-detail"></p>
</div>
<p class="hash">${messageHtml(lang, 'check.fingerprint')}<code id="pdf-sha256">${escapeHtml(view.pdfSha256)}</code></p>
</section>
<footer>${messageHtml(lang, 'page.footer', { code: `<span class="code">${escapeHtml(view.uniqueCode)}</span>` })}</footer>`;
  return layout({
    lang,
    title: `${message(lang, TITLES[state])} \u00b7 ${view.uniqueCode}`,
    body,
    script: true,
    meta: previewOf(view, state, lang),
  });
}

export function renderNotFoundPage(code: string, lang: Language = 'en'): string {
  const shown = `<span class="code" id="unique-code">${escapeHtml(code)}</span>`;
  const body = `<article class="card">
<header class="banner unknown" id="verify-state" data-state="not-found">${ICON_QUESTION}<div>
<h1>${messageHtml(lang, 'notFound.heading')}</h1>
<p>${messageHtml(lang, 'notFound.text', { code: shown })}</p></div></header>
<dl>
<div><dt>${messageHtml(lang, 'notFound.whatLabel')}</dt><dd class="plain">${messageHtml(lang, 'notFound.what')}</dd></div>
</dl>
</article>`;
  return layout({ lang, title: message(lang, 'notFound.heading'), body, script: false });
}

// Any other refusal under /verify/ (a malformed request, a method other than GET, the rate limit):
// the same page layout, so that a browser always gets a page.
export function renderErrorPage(status: number, message: string): string {
  const body = `<article class="card">
<header class="banner unknown" id="verify-state" data-state="error">${ICON_QUESTION}<div>
<h1>This page cannot be shown</h1>
<p id="error-message">${escapeHtml(message)}</p></div></header>
<dl>
<div><dt>What you can do</dt><dd class="plain">Open the link or scan the QR code on the certificate again${status === 429 ? ' in a minute' : ''}.</dd></div>
</dl>
</article>`;
  return layout({ lang: 'en', title: 'This page cannot be shown', body, script: false, switcher: false });
}

// Headers of every answer under /verify/, page or error page.
export const VERIFY_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': VERIFY_PAGE_CSP,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};
