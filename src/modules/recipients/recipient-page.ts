import { createHash } from 'node:crypto';
import { EMPTY, html, safe, when, type Html } from '../../platform/html.js';
import { FAVICON_LINK } from '../../platform/http/favicon.js';

// The frame of the recipient's pages (/my, and a certificate's correction form): one self-contained
// document, its CSS inline and allowed by its hash, no script at all, forms only to this service.

const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1f24;background:#f4f5f7}
main{max-width:52rem;margin:0 auto;padding:1.5rem 1rem 3rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}
h2{font-size:1.15rem;margin:0 0 .25rem}
.card{background:#fff;border:1px solid #d8dce1;border-radius:8px;padding:1rem 1.25rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=email],input[type=text],textarea{width:100%;padding:.5rem;border:1px solid #8a939e;border-radius:6px;font:inherit}
textarea{min-height:5rem}
button,.button{display:inline-block;padding:.45rem .9rem;border-radius:6px;border:1px solid #1d4ed8;background:#1d4ed8;color:#fff;font:inherit;text-decoration:none;cursor:pointer}
.button.secondary,button.secondary{background:#fff;color:#1d4ed8}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin-top:.75rem}
.actions form{margin:0}
.muted{color:#56606b}
.small{font-size:.875rem}
.notice{padding:.75rem 1rem;border-radius:6px;margin:0 0 1rem;border:1px solid}
.notice.ok{background:#ecfdf3;border-color:#2f9e5b}
.notice.error{background:#fef2f2;border-color:#c62828}
.state{display:inline-block;font-size:.8rem;padding:0 .5rem;border-radius:999px;border:1px solid}
.state.valid{color:#1e6b3a;border-color:#2f9e5b}
.state.revoked,.state.superseded,.state.expired{color:#8a1c1c;border-color:#c62828}
.share{word-break:break-all}
`;

// One fragment, so that no formatting of the page's template can change the text the hash covers.
const STYLE_ELEMENT = safe(`<style>${STYLE}</style>`);

const hash = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

export const RECIPIENT_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'none'",
    `style-src ${hash(STYLE)}`,
    'img-src data:',
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

export interface Notice {
  kind: 'ok' | 'error';
  text: string;
}

export function notice(n: Notice | undefined): Html {
  if (!n) return EMPTY;
  return html`<div class="notice ${n.kind}" role="${n.kind === 'error' ? 'alert' : 'status'}">
    ${n.text}
  </div>`;
}

export function recipientPage(opts: { title: string; body: Html; notice?: Notice }): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <meta name="referrer" content="no-referrer" />
        <title>${opts.title}</title>
        ${safe(FAVICON_LINK)} ${STYLE_ELEMENT}
      </head>
      <body>
        <main>
          <h1>${opts.title}</h1>
          ${notice(opts.notice)}${opts.body}
        </main>
      </body>
    </html> `.toString();
}

/** A page that says why nothing can be shown (a used link, an unknown page, a refusal). */
export function messagePage(status: number, message: string): string {
  const again = status === 410 || status === 404;
  return recipientPage({
    title: status === 410 ? 'This link can no longer be used' : 'This page cannot be shown',
    body: html`<section class="card">
      <p id="message">${message}</p>
      ${when(again, () => html`<p><a href="/my">Ask for a new sign-in link</a></p>`)}
    </section>`,
  });
}

export function csrfField(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}" />`;
}
