import type { Queryable } from '../../platform/db/db.js';
import type { PdfCertificateRow } from './pdf-certificates.repository.js';
import type { SigningKeyRow } from './signing-keys.repository.js';

// What signing an issue takes, in one statement: the account's name, its current credential key
// and its current PDF signing certificate (each none until first made). Issuing reads it for every
// issue, so it is one round trip, not three.
export interface SigningContextRow {
  accountName: string;
  key: SigningKeyRow | undefined;
  pdfCertificate: PdfCertificateRow | undefined;
}

export async function readSigningContext(
  db: Queryable,
  accountId: string,
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
  }>(
    `SELECT a.name AS account_name,
            k.id AS k_id, k.public_key AS k_public_key, k.private_key AS k_private_key, k.created_at AS k_created_at,
            p.id AS p_id, p.certificate AS p_certificate, p.chain AS p_chain, p.private_key AS p_private_key,
            p.source AS p_source, p.created_at AS p_created_at
       FROM accounts a
       LEFT JOIN signing_keys k ON k.account_id = a.id AND k.retired_at IS NULL
       LEFT JOIN pdf_signing_certificates p ON p.account_id = a.id AND p.retired_at IS NULL
      WHERE a.id = $1`,
    [accountId],
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
  };
}
