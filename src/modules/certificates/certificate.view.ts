import type { CertificateRow } from './certificates.repository.js';

export interface CertificateView {
  id: string;
  uniqueCode: string;
  templateId: string;
  recipientName: string;
  recipientEmail: string;
  title: string;
  data: Record<string, string | number | boolean>;
  status: CertificateRow['status'];
  verificationUrl: string;
  issuedAt: string | null;
  revokedAt: string | null;
  revocationReason: string | null;
  downloadCount: number;
  emailCount: number;
  verificationCount: number;
  createdAt: string;
}

export function verificationUrl(publicBaseUrl: string, uniqueCode: string): string {
  return `${publicBaseUrl}/verify/${uniqueCode}`;
}

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
    revokedAt: row.revoked_at?.toISOString() ?? null,
    revocationReason: row.revocation_reason,
    downloadCount: row.download_count,
    emailCount: row.email_count,
    verificationCount: row.verification_count,
    createdAt: row.created_at.toISOString(),
  };
}
