import { createHash } from 'node:crypto';
import { verificationUrl } from '../shared/certificate-links.js';
import { issuerDid } from '../shared/issuer-identity.js';
import type { FrozenPart, LivePart, CacheEntry } from './verify-cache.js';
import type { LiveRow, VerificationRow } from './verify.repository.js';
import type { Verification } from './verify.schemas.js';

// From the rows of verify.repository.ts to the cache's parts (verify-cache.ts), and from a cache
// entry to the answer: the verification (JSON) and what the page needs besides.

export interface PageExtras {
  credentialSha256: string | null;
  linkedinOrganizationId: string | null;
  /** Whether the page offers the PDF (the account's setting). */
  publicDownload: boolean;
  /** The issuer's calendar day of the expiry (YYYY-MM-DD), which the page shows; null: its UTC day. */
  expiresOn: string | null;
  /** The issuer's default language: the page's when the reader's browser asks for none we have. */
  defaultLanguage: string;
}

export function credentialOf(body: Buffer | null): Pick<FrozenPart, 'credential' | 'credentialSha256'> {
  return {
    credential: body,
    credentialSha256: body ? createHash('sha256').update(body).digest('hex') : null,
  };
}

export function frozenOf(row: VerificationRow): FrozenPart {
  return {
    id: row.id,
    uniqueCode: row.unique_code,
    accountId: row.account_id,
    templateId: row.template_id,
    recipientName: row.recipient_name,
    issuedAt: row.issued_at.toISOString(),
    expiresAt: row.expires_at,
    expiresOn: row.expires_on,
    title: row.title,
    issuerName: row.issuer_name,
    sha256: row.sha256,
    pdfSigned: row.pdf_signed,
    ...credentialOf(row.credential),
  };
}

export function liveOf(row: LiveRow): LivePart {
  return {
    status: row.status,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    revocationReason: row.revocation_reason,
    supersededByCode: row.superseded_by_code,
    templateName: row.template_name,
    issuerCurrentName: row.issuer_current_name,
    linkedinOrganizationId: row.linkedin_organization_id,
    publicDownload: row.public_download,
    defaultLanguage: row.default_language,
  };
}

// The answer at `now`: expired from the expiry instant on (the status stays Issued).
export function viewOf(entry: CacheEntry, publicBaseUrl: string, now: Date): Verification & PageExtras {
  const { frozen, live } = entry;
  const signed = frozen.credentialSha256 !== null;
  const expired = frozen.expiresAt !== null && frozen.expiresAt.getTime() <= now.getTime();
  return {
    valid: live.status === 'Issued' && !expired,
    status: live.status,
    uniqueCode: frozen.uniqueCode,
    recipientName: frozen.recipientName,
    issuedAt: frozen.issuedAt,
    expiresAt: frozen.expiresAt?.toISOString() ?? null,
    expiresOn: frozen.expiresAt ? frozen.expiresOn : null,
    expired,
    revokedAt: live.revokedAt,
    revocationReason: live.revocationReason,
    title: frozen.title,
    templateName: live.templateName,
    issuerName: frozen.issuerName,
    issuerCurrentName: live.issuerCurrentName,
    verificationUrl: verificationUrl(publicBaseUrl, frozen.uniqueCode),
    pdfSha256: frozen.sha256,
    signed,
    pdfSigned: frozen.pdfSigned,
    credentialSha256: frozen.credentialSha256,
    linkedinOrganizationId: live.linkedinOrganizationId,
    publicDownload: live.publicDownload,
    defaultLanguage: live.defaultLanguage ?? 'en',
    supersededBy:
      live.supersededByCode === null ? null : verificationUrl(publicBaseUrl, live.supersededByCode),
    issuerDid: signed ? issuerDid(publicBaseUrl, frozen.accountId) : null,
    credentialUrl: signed ? `${publicBaseUrl}/api/v1/verify/${frozen.uniqueCode}/credential` : null,
  };
}
