import { formatIssuedAt } from '../../pdf/placeholders.js';
import { html, type Html } from '../../platform/html.js';
import type { Language } from '../../platform/i18n/i18n.js';
import type { VerifyView } from './verify.schemas.js';

// The dates of the verification page, written as the certificate writes them.

// "21 November 2026" in UTC: the same form as the date printed on the certificate (also used by
// the dashboard).
export function formatDateUtc(iso: string): string {
  return formatIssuedAt(iso) ?? iso;
}

// A date as the page's language writes it (UTC); English as on the certificate.
export function formatDate(iso: string, lang: Language): string {
  return formatIssuedAt(iso, lang) ?? iso;
}

export function time(iso: string, lang: Language): Html {
  return html`<time datetime="${iso}">${formatDate(iso, lang)}</time>`;
}

// The expiry as the issuer meant it: their calendar day (the date part of the expiresAt they
// wrote, offset and all), else the UTC day of the instant. datetime= keeps the instant.
export function expiryTime(view: VerifyView, lang: Language): Html {
  const day = view.expiresOn && /^\d{4}-\d{2}-\d{2}$/.test(view.expiresOn) ? view.expiresOn : undefined;
  if (!day) return time(view.expiresAt!, lang);
  return html`<time datetime="${view.expiresAt!}">${formatDate(`${day}T12:00:00.000Z`, lang)}</time>`;
}
