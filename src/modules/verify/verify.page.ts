import { createHash } from 'node:crypto';
import { escapeHtml } from '../../platform/html.js';
import { verifyPageClient } from './verify-page.client.js';
import type { Verification } from './verify.schemas.js';
import { formatIssuedAt } from '../../pdf/placeholders.js';
import { FONT_STACK, nameFontFaces } from './name-fonts.js';
import { linkedInAddToProfileUrl } from './share-links.js';
import { certificateFileName } from '../certificates/certificate.view.js';

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
.banner.unknown{background:#475467}
.banner svg{flex:none;width:3rem;height:3rem}
.banner h1{margin:0;font-size:1.6rem;line-height:1.2;font-weight:700}
.banner p{margin:.2rem 0 0;font-size:.98rem;opacity:.95}
.banner time{white-space:nowrap}
.reason{margin:0;padding:.9rem 1.25rem;background:#fef3f2;color:#7a271a;border-bottom:1px solid #fecdca;overflow-wrap:anywhere}
.reason strong{display:block;font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#b42318}
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
.result[data-result=mismatch],.result[data-result=error]{background:#fef3f2;border-color:#fda29b;color:#912018}
.check .hash{margin:1rem 0 0;font-size:.8rem;color:#667085}
.hash code{display:block;font-size:.78rem;overflow-wrap:anywhere;word-break:break-all}
section.share{padding:1.25rem}
section.share h2{margin:0 0 .6rem;font-size:1.2rem}
.share-actions{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center}
.share-actions input{flex:1 1 14rem;min-width:0;padding:.55rem .7rem;border:1px solid #d0d5dd;border-radius:8px;font:.92rem/1.3 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;color:#344054;background:#f9fafb}
.btn{display:inline-block;padding:.55rem 1rem;border:1px solid #1f5fbf;border-radius:8px;background:#fff;color:#1f5fbf;font:600 .95rem/1.3 inherit;text-decoration:none;cursor:pointer}
.btn.primary{background:#0a66c2;border-color:#0a66c2;color:#fff}
.btn:focus{outline:3px solid #84adff;outline-offset:2px}
.share-actions [role=status]{flex-basis:100%;font-size:.9rem;color:#05603a}
.share-actions [role=status][data-copied=false]{color:#912018}
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

function time(iso: string): string {
  return `<time datetime="${escapeHtml(iso)}">${escapeHtml(formatDateUtc(iso))}</time>`;
}

const ICON_CHECK =
  '<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="#fff"/>' +
  '<path d="M14 24.5l7 7 13-14" fill="none" stroke="#13793f" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/></svg>';
const ICON_CROSS =
  '<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="#fff"/>' +
  '<path d="M16 16l16 16M32 16L16 32" fill="none" stroke="#b42318" stroke-width="5" stroke-linecap="round"/></svg>';
const ICON_QUESTION =
  '<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="#fff"/>' +
  '<path d="M18 18a6 6 0 1 1 8.5 5.5c-1.8.8-2.5 2-2.5 4v1.5" fill="none" stroke="#475467" stroke-width="4.5" stroke-linecap="round"/>' +
  '<circle cx="24" cy="35" r="2.8" fill="#475467"/></svg>';

// Open Graph and Twitter card tags: a shared link previews with the certificate's title and words.
function shareMeta(meta: { title: string; description: string; url: string }): string {
  const title = escapeHtml(meta.title);
  const description = escapeHtml(meta.description);
  return `<meta name="description" content="${description}">
<meta property="og:type" content="website">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta property="og:url" content="${escapeHtml(meta.url)}">
<meta name="twitter:card" content="summary">
<meta name="twitter:title" content="${title}">
<meta name="twitter:description" content="${description}">
`;
}

function layout(opts: {
  title: string;
  body: string;
  script: boolean;
  meta?: { title: string; description: string; url: string };
}): string {
  return `<!doctype html>
<html lang="en" dir="ltr">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(opts.title)}</title>
${opts.meta ? shareMeta(opts.meta) : ''}<style>${STYLE}</style>
</head>
<body>
<main>
${opts.body}
</main>
${opts.script ? `<script>${SCRIPT}</script>\n` : ''}</body>
</html>
`;
}

type PageState = 'valid' | 'revoked' | 'unknown';

function stateOf(view: VerifyView): PageState {
  if (view.status === 'Revoked') return 'revoked';
  return view.valid && view.status === 'Issued' ? 'valid' : 'unknown';
}

function banner(view: VerifyView, state: PageState): string {
  if (state === 'valid') {
    return `<header class="banner valid" id="verify-state" data-state="valid">${ICON_CHECK}<div>
<h1>Valid certificate</h1>
<p>Issued by <bdi>${escapeHtml(view.issuerName)}</bdi> and not revoked.</p></div></header>`;
  }
  if (state === 'revoked') {
    const when = view.revokedAt ? ` on ${time(view.revokedAt)}` : '';
    const reason = view.revocationReason ? escapeHtml(view.revocationReason) : 'The issuer gave no reason.';
    return `<header class="banner revoked" id="verify-state" data-state="revoked">${ICON_CROSS}<div>
<h1>Revoked</h1>
<p>This certificate was revoked by <bdi>${escapeHtml(view.issuerName)}</bdi>${when}. It is no longer valid.</p></div></header>
<p class="reason" id="revocation-reason"><strong>Reason</strong><span dir="auto">${reason}</span></p>`;
  }
  return `<header class="banner unknown" id="verify-state" data-state="unknown">${ICON_QUESTION}<div>
<h1>Not valid</h1>
<p>This certificate is not currently valid.</p></div></header>`;
}

// Values people typed (names, titles) get dir="auto": a right-to-left name reads right to left.
function row(label: string, valueHtml: string, id: string, className = '', typed = false): string {
  const cls = className ? ` class="${className}"` : '';
  return `<div><dt>${label}</dt><dd id="${id}"${cls}${typed ? ' dir="auto"' : ''}>${valueHtml}</dd></div>`;
}

const TITLES: Record<PageState, string> = {
  valid: 'Valid certificate',
  revoked: 'Revoked certificate',
  unknown: 'Certificate not valid',
};

// Whether the certificate carries a signed credential and a signed PDF, by whom, and where to get it.
function signature(view: VerifyView): string {
  if (!view.signed || !view.credentialUrl || !view.issuerDid) {
    return 'Not digitally signed: issued before this service signed its certificates.';
  }
  const pdf = view.pdfSigned
    ? ' The PDF itself is digitally signed too (a PAdES signature that PDF readers show) and carries the credential as its attached file <code>credential.json</code>.'
    : ' Its PDF was issued before PDFs were signed: the PDF carries no signature of its own.';
  return `Signed by <bdi>${escapeHtml(view.issuerName)}</bdi> as an Open Badges 3.0 credential that any standard verifier can check, with or without this site.${pdf} <span class="did">Issuer: <code>${escapeHtml(view.issuerDid)}</code></span> <a id="credential-link" href="${escapeHtml(view.credentialUrl)}" download="credential-${escapeHtml(view.uniqueCode)}.json">Download the signed credential</a>`;
}

// "Add to LinkedIn profile" (for a valid certificate) and "Copy link". The copy button appears
// once the page's script runs; without it, the link box is there to copy by hand.
function share(view: VerifyView, state: PageState): string {
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
        )}" target="_blank" rel="noopener noreferrer">Add to LinkedIn profile</a>\n`
      : '';
  // Relative: /verify/<code> -> /verify/<code>/pdf, also under a base path.
  const download =
    view.publicDownload && view.status === 'Issued'
      ? `<a class="btn" id="download-pdf" href="${escapeHtml(view.uniqueCode)}/pdf" download="${escapeHtml(certificateFileName(view.uniqueCode))}">Download PDF</a>\n`
      : '';
  return `<section class="card share" id="share" aria-labelledby="share-title">
<h2 id="share-title">Keep and share</h2>
<div class="share-actions">
${linkedIn}${download}<input id="share-url" type="url" readonly value="${escapeHtml(view.verificationUrl)}" aria-label="Link to this page">
<button class="btn" type="button" id="copy-link" data-copied="Link copied." data-copy-failed="Select the link and copy it." hidden>Copy link</button>
<span id="copy-status" role="status"></span>
</div>
</section>`;
}

// The words of a link preview: who earned what, from whom, and whether it holds.
function previewOf(view: VerifyView, state: PageState): { title: string; description: string; url: string } {
  const what = `${view.recipientName}: ${view.title}`;
  const description =
    state === 'valid'
      ? `Certificate issued by ${view.issuerName} on ${formatDateUtc(view.issuedAt)} to ${view.recipientName}. Verified: valid.`
      : state === 'revoked'
        ? `Certificate issued by ${view.issuerName} to ${view.recipientName}. Revoked: no longer valid.`
        : `Certificate issued by ${view.issuerName} to ${view.recipientName}. Not currently valid.`;
  return { title: what, description, url: view.verificationUrl };
}

export function renderVerifyPage(view: VerifyView): string {
  const state = stateOf(view);
  const details = [
    row('Awarded to', escapeHtml(view.recipientName), 'recipient-name', 'name', true),
    row('Awarded for', escapeHtml(view.title), 'title', '', true),
    row('Certificate', escapeHtml(view.templateName), 'template-name', '', true),
    row('Issued by', escapeHtml(view.issuerName), 'issuer-name', '', true),
    row('Issued on', time(view.issuedAt), 'issued-at'),
    row('Certificate code', escapeHtml(view.uniqueCode), 'unique-code', 'code'),
    row('Digital signature', signature(view), 'signature', 'plain'),
  ].join('\n');
  const body = `<article class="card">
${banner(view, state)}
<dl>
${details}
</dl>
</article>
${share(view, state)}
<section class="card check" id="pdf-check" aria-labelledby="pdf-check-title" data-pdf-sha256="${escapeHtml(view.pdfSha256)}" data-credential-sha256="${escapeHtml(view.credentialSha256 ?? '')}" data-revoked="${state === 'revoked'}">
<h2 id="pdf-check-title">Check a PDF</h2>
<p>Have a copy of this certificate, or of its signed credential? Check that it is the original file. The file is checked on your device and never leaves your browser.</p>
<label class="drop" id="pdf-drop" for="pdf-file">
<strong>Drop the PDF or the credential here</strong>
<span>or choose a file</span>
<input class="sr-only" type="file" id="pdf-file" accept="application/pdf,.pdf,application/json,application/vc,.json">
</label>
<div class="result" id="pdf-check-result" role="status" aria-live="polite" hidden>
<p class="msg" id="pdf-check-message"></p>
<p class="detail" id="pdf-check-detail"></p>
</div>
<p class="hash">SHA-256 fingerprint of the original PDF:<code id="pdf-sha256">${escapeHtml(view.pdfSha256)}</code></p>
</section>
<footer>Verification page for certificate <span class="code">${escapeHtml(view.uniqueCode)}</span></footer>`;
  return layout({
    title: `${TITLES[state]} \u00b7 ${view.uniqueCode}`,
    body,
    script: true,
    meta: previewOf(view, state),
  });
}

export function renderNotFoundPage(code: string): string {
  const body = `<article class="card">
<header class="banner unknown" id="verify-state" data-state="not-found">${ICON_QUESTION}<div>
<h1>No certificate found</h1>
<p>There is no certificate with the code <span class="code" id="unique-code">${escapeHtml(code)}</span>.</p></div></header>
<dl>
<div><dt>What you can do</dt><dd class="plain">Check the code for typing mistakes, or scan the QR code on the certificate again. If it still cannot be found, the certificate was not issued by this service.</dd></div>
</dl>
</article>`;
  return layout({ title: 'No certificate found', body, script: false });
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
  return layout({ title: 'This page cannot be shown', body, script: false });
}

// Headers of every answer under /verify/, page or error page.
export const VERIFY_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': VERIFY_PAGE_CSP,
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};
