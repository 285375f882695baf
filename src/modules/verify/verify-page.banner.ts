import { html, safe, type Html } from '../../platform/html.js';
import { messagesIn, type Language } from '../../platform/i18n/i18n.js';
import { expiryTime, time } from './verify-page.dates.js';
import type { VerifyView } from './verify.schemas.js';

// The banner at the top of the verification page: the state of the certificate in a word and a
// colour (valid, revoked, superseded by a correction, expired, unknown), with its icon.

export const ICON_CHECK = safe(
  '<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="#fff"/>' +
    '<path d="M14 24.5l7 7 13-14" fill="none" stroke="#13793f" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/></svg>',
);
export const ICON_CROSS = safe(
  '<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="#fff"/>' +
    '<path d="M16 16l16 16M32 16L16 32" fill="none" stroke="#b42318" stroke-width="5" stroke-linecap="round"/></svg>',
);
export const ICON_REPLACED = safe(
  '<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="#fff"/>' +
    '<path d="M13 24h20M26 16l8 8-8 8" fill="none" stroke="#1f5fbf" stroke-width="5" stroke-linecap="round" stroke-linejoin="round"/></svg>',
);
export const ICON_QUESTION = safe(
  '<svg viewBox="0 0 48 48" aria-hidden="true" focusable="false"><circle cx="24" cy="24" r="22" fill="#fff"/>' +
    '<path d="M18 18a6 6 0 1 1 8.5 5.5c-1.8.8-2.5 2-2.5 4v1.5" fill="none" stroke="#475467" stroke-width="4.5" stroke-linecap="round"/>' +
    '<circle cx="24" cy="35" r="2.8" fill="#475467"/></svg>',
);

export type PageState = 'valid' | 'revoked' | 'superseded' | 'expired' | 'unknown';

// Superseded: revoked by a correction (reissue), which the page points to first.
export function stateOf(view: VerifyView): PageState {
  if (view.status === 'Revoked') return view.supersededBy ? 'superseded' : 'revoked';
  if (view.expired && view.expiresAt) return 'expired';
  return view.valid && view.status === 'Issued' ? 'valid' : 'unknown';
}

// Who issued it: the name it was issued under, and the organisation's name now when it was renamed
// since ("Demo Academy, now Northwind Academy").
export function issuerOf(view: VerifyView, lang: Language): Html {
  const issued = html`<bdi>${view.issuerName}</bdi>`;
  const current = view.issuerCurrentName;
  if (current === undefined || current === view.issuerName) return issued;
  return messagesIn(lang).html('issuer.renamed', { issuer: issued, current: html`<bdi>${current}</bdi>` });
}

export function banner(view: VerifyView, state: PageState, lang: Language): Html {
  const say = messagesIn(lang).html;
  const issuer = issuerOf(view, lang);
  if (state === 'valid') {
    return html`<header class="banner valid" id="verify-state" data-state="valid">${ICON_CHECK}<div>
<h1>${say('page.valid.heading')}</h1>
<p>${say('page.valid.text', { issuer })}</p></div></header>`;
  }
  if (state === 'revoked') {
    const text = view.revokedAt
      ? say('page.revoked.textOn', { issuer, date: time(view.revokedAt, lang) })
      : say('page.revoked.text', { issuer });
    return html`<header class="banner revoked" id="verify-state" data-state="revoked">${ICON_CROSS}<div>
<h1>${say('page.revoked.heading')}</h1>
<p>${text}</p></div></header>
<p class="reason" id="revocation-reason"><strong>${say('page.revoked.reason')}</strong><span dir="auto">${view.revocationReason || say('page.revoked.noReason')}</span></p>`;
  }
  if (state === 'superseded' && view.supersededBy) {
    // A correction (reissue): the link to the certificate that replaced this one comes first; the
    // stored reason ("Superseded by <code>", the service's words) is said in the page's language.
    const text = view.revokedAt
      ? say('page.superseded.textOn', { issuer, date: time(view.revokedAt, lang) })
      : say('page.superseded.textNoDate', { issuer });
    const newCode = view.supersededBy.slice(view.supersededBy.lastIndexOf('/') + 1);
    return html`<header class="banner superseded" id="verify-state" data-state="superseded">${ICON_REPLACED}<div>
<h1>${say('page.superseded.heading')}</h1>
<p>${text}</p></div></header>
<p class="replaced" id="superseded"><a id="superseded-by" href="${view.supersededBy}">${say('page.superseded.link')}</a><span id="revocation-reason">${say('page.superseded.reason', { code: html`${newCode}` })}</span></p>`;
  }
  if (state === 'expired' && view.expiresAt) {
    return html`<header class="banner expired" id="verify-state" data-state="expired">${ICON_CROSS}<div>
<h1>${say('page.expired.text', { date: expiryTime(view, lang) })}</h1>
<p>${say('page.expired.body', { issuer })}</p></div></header>`;
  }
  return html`<header class="banner unknown" id="verify-state" data-state="unknown">${ICON_QUESTION}<div>
<h1>${say('page.unknown.heading')}</h1>
<p>${say('page.unknown.text')}</p></div></header>`;
}
