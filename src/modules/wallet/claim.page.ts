import { createHash } from 'node:crypto';
import { html, safe, when, type Html } from '../../platform/html.js';
import { FAVICON_LINK } from '../../platform/http/favicon.js';
import {
  direction,
  LANGUAGE_NAMES,
  LANGUAGES,
  message,
  messagesIn,
  type Language,
} from '../../platform/i18n/i18n.js';
import { languageFontCss } from '../shared/language-fonts.js';
import { FONT_STACK, nameFontFaces } from '../shared/name-fonts.js';
import { interactionUrl, qrPng } from '../shared/wallet-links.js';
import type { ClaimPageView } from './wallet.service.js';

// The claim page (GET /claim/{token}, issue 31): what the "Add to your wallet" link opens. One
// self-contained document like the verification page: its CSS inline, allowed by its hash; no
// script at all; the QR code a PNG made here (a data: URL); nothing loaded from elsewhere but the
// service's name fonts. The token is in the page's own address only: never in a link to another site
// (Referrer-Policy no-referrer as well).

const STYLE = (fonts: string) => `
${nameFontFaces(fonts)}
*,*::before,*::after{box-sizing:border-box}
body{margin:0;background:#f1f3f6;color:#1c2430;font:16px/1.5 ${FONT_STACK}}
main{max-width:40rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:14px;box-shadow:0 1px 3px rgba(16,24,40,.1);padding:1.25rem 1.5rem;margin-bottom:1rem}
h1{margin:0 0 .5rem;font-size:1.6rem;line-height:1.2}
dl{margin:0}
dl div{padding:.5rem 0;border-bottom:1px solid #eaecf0}
dt{font-size:.8rem;text-transform:uppercase;letter-spacing:.05em;color:#667085}
dd{margin:.1rem 0 0;font-size:1.05rem;font-weight:600;overflow-wrap:anywhere}
.qr{display:block;margin:1rem auto;width:220px;height:220px;image-rendering:pixelated}
.actions{display:flex;flex-wrap:wrap;gap:.6rem;justify-content:center}
.btn{display:inline-flex;align-items:center;justify-content:center;min-height:44px;box-sizing:border-box;padding:.6rem 1.1rem;border:1px solid #1f5fbf;border-radius:8px;background:#fff;color:#1f5fbf;font-weight:600;text-decoration:none}
.btn.primary{background:#1f5fbf;color:#fff}
.note{color:#475467;font-size:.92rem}
.gone{border-left:6px solid #b42318}
:focus-visible{outline:3px solid #1f5fbf;outline-offset:2px}
.langs{display:flex;flex-wrap:wrap;justify-content:center;gap:.2rem .85rem;margin:0 0 .8rem;font-size:.9rem}
.langs a{display:inline-block;min-height:24px;line-height:24px;color:#1f5fbf;font-weight:400}
.langs a[aria-current]{color:#1c2430;font-weight:700;text-decoration:none}
${languageFontCss(fonts, '.langs')}
`;

function switcher(lang: Language): Html {
  const links = LANGUAGES.map(
    (l) =>
      html`<a
        href="?lang=${l}"
        lang="${l}"
        hreflang="${l}"
        ${when(l === lang, () => html` aria-current="true"`)}
        >${LANGUAGE_NAMES[l]}</a
      > `,
  );
  return html`<nav class="langs" id="languages" aria-label="${message(lang, 'page.language')}">
    ${links}
  </nav>`;
}

export function createClaimPages(publicBaseUrl: string) {
  const style = STYLE(`${new URL(publicBaseUrl).pathname.replace(/\/$/, '')}/verify/fonts/`);
  // The element's whole content is what the CSP hash covers: built here, out of the formatted markup.
  const styleTag = safe(`<style>${style}</style>`);
  const csp = [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(style, 'utf8').digest('base64')}'`,
    "script-src 'self'",
    'img-src data:',
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

  function page(lang: Language, title: string, body: Html): string {
    return html`<!doctype html>
      <html lang="${lang}" dir="${direction(lang)}">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="robots" content="noindex" />
          <meta name="referrer" content="no-referrer" />
          <title>${title}</title>
          ${safe(FAVICON_LINK)} ${styleTag}
        </head>
        <body>
          <main>${switcher(lang)} ${body}</main>
        </body>
      </html> `.toString();
  }

  return {
    headers: {
      'Content-Security-Policy': csp,
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
      'X-Robots-Tag': 'noindex',
    } as Record<string, string>,

    claim(view: ClaimPageView, lang: Language): string {
      const say = messagesIn(lang).html;
      const interact = interactionUrl(publicBaseUrl, view.token);
      const qr = `data:image/png;base64,${qrPng(interact, 6).toString('base64')}`;
      const date = new Intl.DateTimeFormat(lang, { dateStyle: 'long', timeZone: 'UTC' }).format(
        view.expiresAt,
      );
      const body = html`<article class="card" id="claim">
        <h1>${say('claim.heading')}</h1>
        <dl>
          <div>
            <dt>${say('label.awardedFor')}</dt>
            <dd id="title" dir="auto">${view.title}</dd>
          </div>
          <div>
            <dt>${say('label.awardedTo')}</dt>
            <dd id="recipient-name" dir="auto">${view.recipientName}</dd>
          </div>
          <div>
            <dt>${say('label.issuedBy')}</dt>
            <dd id="issuer-name" dir="auto">${view.issuerName}</dd>
          </div>
        </dl>
        <p>${say('claim.intro')}</p>
        <img class="qr" id="wallet-qr" src="${qr}" width="220" height="220" alt="${say('claim.qrAlt')}" />
        <div class="actions">
          <a class="btn primary" id="add-to-wallet" href="${interact}">${say('claim.add')}</a>
          <a class="btn" id="download-badge" href="${view.token}/badge.png" download>${say('claim.badge')}</a>
          <a class="btn" id="request-correction" href="${view.token}/correction"
            >${say('claim.correction')}</a
          >
        </div>
        <p class="note" id="claim-uses">
          ${say('claim.uses', { date: html`${date}`, n: html`${String(view.claimsLeft)}` })}
        </p>
        <p class="note">${say('claim.private')}</p>
      </article>`;
      return page(lang, message(lang, 'claim.title', { title: view.title, name: view.recipientName }), body);
    },

    // The one answer of "Email me the wallet link", whatever happened.
    walletLinkSent(lang: Language, code: string): string {
      const say = messagesIn(lang).html;
      const back = `${publicBaseUrl}/verify/${encodeURIComponent(code)}`;
      const body = html`<article class="card" id="wallet-link-sent">
        <h1>${say('wallet.sent.heading')}</h1>
        <p id="wallet-link-message" role="status">${say('wallet.sent.text')}</p>
        <p><a class="btn" href="${back}">${say('wallet.sent.back')}</a></p>
      </article>`;
      return page(lang, message(lang, 'wallet.sent.heading'), body);
    },

    notFound(lang: Language): string {
      const say = messagesIn(lang).html;
      const body = html`<article class="card gone" id="claim" data-state="not-found">
        <h1>${say('claim.notFound.heading')}</h1>
        <p id="claim-message">${say('claim.notFound.text')}</p>
      </article>`;
      return page(lang, message(lang, 'claim.notFound.heading'), body);
    },

    gone(reason: 'expired' | 'used_up' | 'revoked' | 'superseded', lang: Language): string {
      const say = messagesIn(lang).html;
      const body = html`<article class="card gone" id="claim" data-state="gone" data-reason="${reason}">
        <h1>${say('claim.gone.heading')}</h1>
        <p id="claim-message">${say(`claim.gone.${reason}`)}</p>
      </article>`;
      return page(lang, message(lang, 'claim.gone.heading'), body);
    },
  };
}

export type ClaimPages = ReturnType<typeof createClaimPages>;
