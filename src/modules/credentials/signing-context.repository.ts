import type { Queryable } from '../../platform/db/db.js';
import type { PdfCertificateRow } from './pdf-certificates.repository.js';
import type { SigningKeyRow } from './signing-keys.repository.js';

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
