import type { Queryable } from '../../platform/db/db.js';

// The wallets' short-lived rows (OID4VCI pre-authorized codes, access tokens and c_nonces; VC API
// exchanges) live minutes, and each claim link's visits make new ones: `certsvc serve` deletes those
// that expired more than a day ago, each hour with the other purges (docs/wallets.md). For that day
// a late request is still told "expired" rather than "unknown". A claim's record
// (credential_claims) keeps no reference to them.

const TABLES = [
  'oid4vci_pre_authorized_codes',
  'oid4vci_access_tokens',
  'oid4vci_nonces',
  'vcapi_exchanges',
] as const;
export const KEPT_AFTER_EXPIRY_MS = 24 * 60 * 60 * 1000;

/** Deletes the rows that expired more than a day before `now`; the number deleted. */
export async function purgeExpiredWalletGrants(db: Queryable, now: Date): Promise<number> {
  const before = new Date(now.getTime() - KEPT_AFTER_EXPIRY_MS);
  const { rows } = await db.query<{ n: number }>(
    `WITH ${TABLES.map((t, i) => `d${i} AS (DELETE FROM ${t} WHERE expires_at < $1 RETURNING 1)`).join(', ')}
     SELECT (${TABLES.map((_, i) => `(SELECT count(*) FROM d${i})`).join(' + ')})::int AS n`,
    [before],
  );
  return rows[0]!.n;
}
