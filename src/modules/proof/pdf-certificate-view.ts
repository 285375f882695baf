import { createHash, X509Certificate } from 'node:crypto';
import type { PdfCertificateRow } from './signing-keys.repository.js';

// A PDF signing certificate as people see it (the CLI, the dashboard): public parts only.
export interface PdfCertificateView {
  id: string;
  subject: string;
  issuer: string;
  fingerprintSha256: string;
  keyType: string;
  source: 'generated' | 'imported';
  validFrom: string;
  validTo: string;
  chainLength: number;
  createdAt: string;
  retiredAt: string | null;
  current: boolean;
}

export function pdfCertificateView(row: PdfCertificateRow): PdfCertificateView {
  const x509 = new X509Certificate(row.certificate);
  return {
    id: row.id,
    subject: x509.subject.replaceAll('\n', ', '),
    issuer: x509.issuer.replaceAll('\n', ', '),
    fingerprintSha256: createHash('sha256').update(row.certificate).digest('hex'),
    keyType: x509.publicKey.asymmetricKeyType === 'ec' ? 'ECDSA' : 'RSA',
    source: row.source,
    validFrom: new Date(x509.validFrom).toISOString(),
    validTo: new Date(x509.validTo).toISOString(),
    chainLength: row.chain.length,
    createdAt: row.created_at.toISOString(),
    retiredAt: row.retired_at?.toISOString() ?? null,
    current: row.retired_at === null,
  };
}
