import type { Queryable } from '../../platform/db/db.js';

export interface PdfCertificateRow {
  id: string;
  account_id: string;
  certificate: Buffer;
  chain: Buffer[];
  private_key: Buffer;
  source: 'generated' | 'imported';
  created_at: Date;
  retired_at: Date | null;
}

export interface NewPdfCertificate {
  id: string;
  accountId: string;
  certificate: Buffer;
  chain: Buffer[];
  privateKey: Buffer;
  source: 'generated' | 'imported';
}

export async function currentCertificate(
  db: Queryable,
  accountId: string,
): Promise<PdfCertificateRow | undefined> {
  const { rows } = await db.query<PdfCertificateRow>(
    'SELECT * FROM pdf_signing_certificates WHERE account_id = $1 AND retired_at IS NULL',
    [accountId],
  );
  return rows[0];
}

export async function listCertificates(db: Queryable, accountId: string): Promise<PdfCertificateRow[]> {
  const { rows } = await db.query<PdfCertificateRow>(
    'SELECT * FROM pdf_signing_certificates WHERE account_id = $1 ORDER BY created_at, id',
    [accountId],
  );
  return rows;
}

// The account's first certificate; when another instance made one first, nothing (the caller reads theirs).
export async function insertFirstCertificate(db: Queryable, cert: NewPdfCertificate): Promise<void> {
  await db.query(
    `INSERT INTO pdf_signing_certificates (id, account_id, certificate, chain, private_key, source)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (account_id) WHERE retired_at IS NULL DO NOTHING`,
    [cert.id, cert.accountId, cert.certificate, cert.chain, cert.privateKey, cert.source],
  );
}

// Retires the current certificate and makes `cert` current, in the caller's transaction.
export async function replaceCertificate(db: Queryable, cert: NewPdfCertificate, at: Date): Promise<void> {
  await db.query(
    'UPDATE pdf_signing_certificates SET retired_at = $2 WHERE account_id = $1 AND retired_at IS NULL',
    [cert.accountId, at],
  );
  await db.query(
    `INSERT INTO pdf_signing_certificates (id, account_id, certificate, chain, private_key, source, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [cert.id, cert.accountId, cert.certificate, cert.chain, cert.privateKey, cert.source, at],
  );
}

// The certificate that sealed a certificate's frozen PDF; none for PDFs frozen before signing.
export async function signerOfPdf(
  db: Queryable,
  accountId: string,
  certificateId: string,
): Promise<PdfCertificateRow | undefined> {
  const { rows } = await db.query<PdfCertificateRow>(
    `SELECT s.* FROM certificate_pdfs p JOIN pdf_signing_certificates s ON s.id = p.signed_by
      WHERE p.certificate_id = $1 AND s.account_id = $2`,
    [certificateId, accountId],
  );
  return rows[0];
}

// Retires `oldId` if it is still current and makes `cert` current; false when another instance
// replaced it first (then nothing is written).
export async function replaceIfCurrent(
  db: Queryable,
  oldId: string,
  cert: NewPdfCertificate,
  at: Date,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE pdf_signing_certificates SET retired_at = $2 WHERE id = $1 AND retired_at IS NULL',
    [oldId, at],
  );
  if (!rowCount) return false;
  await db.query(
    `INSERT INTO pdf_signing_certificates (id, account_id, certificate, chain, private_key, source, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [cert.id, cert.accountId, cert.certificate, cert.chain, cert.privateKey, cert.source, at],
  );
  return true;
}
