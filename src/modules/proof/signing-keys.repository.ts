import type { Queryable } from '../../platform/db/db.js';

// The accounts' two kinds of signing key, sealed by the key vault: the Ed25519 key that signs the
// credentials (signing_keys) and the PDF signing certificate with its key (pdf_signing_certificates).
// Each account has one current key of each kind (retired_at IS NULL); retired ones stay, so that what
// they signed keeps verifying. And the one read an issue's signing takes (readSigningContext).

// Credential keys (Ed25519).

export interface SigningKeyRow {
  id: string;
  account_id: string;
  public_key: Buffer;
  private_key: Buffer;
  created_at: Date;
  retired_at: Date | null;
}

export async function currentKey(db: Queryable, accountId: string): Promise<SigningKeyRow | undefined> {
  const { rows } = await db.query<SigningKeyRow>(
    'SELECT * FROM signing_keys WHERE account_id = $1 AND retired_at IS NULL',
    [accountId],
  );
  return rows[0];
}

// Any one stored key: enough to tell whether a master key is the one they were sealed with.
export async function anyKey(db: Queryable): Promise<SigningKeyRow | undefined> {
  const { rows } = await db.query<SigningKeyRow>('SELECT * FROM signing_keys LIMIT 1');
  return rows[0];
}

export async function listKeys(db: Queryable, accountId: string): Promise<SigningKeyRow[]> {
  const { rows } = await db.query<SigningKeyRow>(
    'SELECT * FROM signing_keys WHERE account_id = $1 ORDER BY created_at, id',
    [accountId],
  );
  return rows;
}

// The account's first key; when another instance made one first, nothing (the caller reads theirs).
export async function insertFirstKey(
  db: Queryable,
  key: { id: string; accountId: string; publicKey: Buffer; privateKey: Buffer },
): Promise<void> {
  await db.query(
    `INSERT INTO signing_keys (id, account_id, public_key, private_key) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id) WHERE retired_at IS NULL DO NOTHING`,
    [key.id, key.accountId, key.publicKey, key.privateKey],
  );
}

// Retires the current key and makes `key` current, in the caller's transaction.
export async function rotateKey(
  db: Queryable,
  key: { id: string; accountId: string; publicKey: Buffer; privateKey: Buffer },
  at: Date,
): Promise<void> {
  await db.query('UPDATE signing_keys SET retired_at = $2 WHERE account_id = $1 AND retired_at IS NULL', [
    key.accountId,
    at,
  ]);
  await db.query(
    'INSERT INTO signing_keys (id, account_id, public_key, private_key, created_at) VALUES ($1, $2, $3, $4, $5)',
    [key.id, key.accountId, key.publicKey, key.privateKey, at],
  );
}

// PDF signing certificates (X.509, generated or imported).

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

// A certificate that becomes current at `at` (the caller retired the one before).
async function insertCertificate(db: Queryable, cert: NewPdfCertificate, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO pdf_signing_certificates (id, account_id, certificate, chain, private_key, source, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [cert.id, cert.accountId, cert.certificate, cert.chain, cert.privateKey, cert.source, at],
  );
}

// Retires the current certificate and makes `cert` current, in the caller's transaction.
export async function replaceCertificate(db: Queryable, cert: NewPdfCertificate, at: Date): Promise<void> {
  await db.query(
    'UPDATE pdf_signing_certificates SET retired_at = $2 WHERE account_id = $1 AND retired_at IS NULL',
    [cert.accountId, at],
  );
  await insertCertificate(db, cert, at);
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
  await insertCertificate(db, cert, at);
  return true;
}

// Retires the account's current PDF signing certificate (none current: the next issue makes one).
export async function retireCertificate(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query('UPDATE pdf_signing_certificates SET retired_at = $2 WHERE id = $1 AND retired_at IS NULL', [
    id,
    at,
  ]);
}

// What signing an issue takes, in one statement: the account's name, its current credential key
// and its current PDF signing certificate (each none until first made), and its newest status list
// (none before its first credential). Issuing reads it for every issue, so it is one round trip.
export interface SigningContextRow {
  accountName: string;
  key: SigningKeyRow | undefined;
  pdfCertificate: PdfCertificateRow | undefined;
  /** The newest status list as read (not locked): how many of its entries were taken, and which
   * of the `candidates` entries were free. */
  statusList: { n: number; used: number; free: number[] } | undefined;
}

// `candidates`: status list entries (indexes) to look up in the newest list.
export async function readSigningContext(
  db: Queryable,
  accountId: string,
  candidates: number[] = [],
): Promise<SigningContextRow | undefined> {
  const { rows } = await db.query<{
    account_name: string;
    k_id: string | null;
    k_public_key: Buffer;
    k_private_key: Buffer;
    k_created_at: Date;
    p_id: string | null;
    p_certificate: Buffer;
    p_chain: Buffer[];
    p_private_key: Buffer;
    p_source: PdfCertificateRow['source'];
    p_created_at: Date;
    s_n: number | null;
    s_used: number;
    s_free: number[] | null;
  }>(
    `SELECT a.name AS account_name,
            k.id AS k_id, k.public_key AS k_public_key, k.private_key AS k_private_key, k.created_at AS k_created_at,
            p.id AS p_id, p.certificate AS p_certificate, p.chain AS p_chain, p.private_key AS p_private_key,
            p.source AS p_source, p.created_at AS p_created_at, s.n AS s_n, s.used AS s_used,
            (SELECT array_agg(i) FROM unnest($2::int[]) AS i
              WHERE NOT EXISTS (SELECT 1 FROM credentials cr
                                 WHERE cr.account_id = a.id AND cr.status_list = s.n AND cr.status_index = i)) AS s_free
       FROM accounts a
       LEFT JOIN signing_keys k ON k.account_id = a.id AND k.retired_at IS NULL
       LEFT JOIN pdf_signing_certificates p ON p.account_id = a.id AND p.retired_at IS NULL
       LEFT JOIN LATERAL (SELECT n, used FROM status_lists WHERE account_id = a.id ORDER BY n DESC LIMIT 1) s ON true
      WHERE a.id = $1`,
    [accountId, candidates],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    accountName: r.account_name,
    key: r.k_id
      ? {
          id: r.k_id,
          account_id: accountId,
          public_key: r.k_public_key,
          private_key: r.k_private_key,
          created_at: r.k_created_at,
          retired_at: null,
        }
      : undefined,
    pdfCertificate: r.p_id
      ? {
          id: r.p_id,
          account_id: accountId,
          certificate: r.p_certificate,
          chain: r.p_chain,
          private_key: r.p_private_key,
          source: r.p_source,
          created_at: r.p_created_at,
          retired_at: null,
        }
      : undefined,
    statusList: r.s_n === null ? undefined : { n: r.s_n, used: r.s_used, free: r.s_free ?? [] },
  };
}
