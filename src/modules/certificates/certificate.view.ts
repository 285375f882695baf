import type { Static } from 'typebox';
import type { Certificate } from './certificates.schemas.js';
import type { CertificateRow } from './certificates.repository.js';
import { verificationUrl } from '../shared/certificate-links.js';

export type CertificateView = Static<typeof Certificate>;

export function certificateView(row: CertificateRow, publicBaseUrl: string): CertificateView {
  return {
    id: row.id,
    uniqueCode: row.unique_code,
    templateId: row.template_id,
    recipientName: row.recipient_name,
    recipientEmail: row.recipient_email,
    title: row.title,
    data: row.data,
    status: row.status,
    verificationUrl: verificationUrl(publicBaseUrl, row.unique_code),
    issuedAt: row.issued_at?.toISOString() ?? null,
    expiresAt: row.expires_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
    revocationReason: row.revocation_reason,
    downloadCount: row.download_count,
    emailCount: row.email_count,
    verificationCount: row.verification_count,
    createdAt: row.created_at.toISOString(),
  };
}
