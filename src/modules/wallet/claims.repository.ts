import type { Queryable } from '../../platform/db/db.js';
import { uuidv7 } from '../../platform/ids.js';

// The record of successful claims (credential_claims, migration 031) and the VC API exchanges that
// lead to them (vcapi_exchanges, migration 032).

export type ClaimProtocol = 'vcapi' | 'OID4VCI';
export type ClaimFormat = 'ldp_vc' | 'dc+sd-jwt';

export interface ClaimRecord {
  claimedAt: Date;
  holderDid: string;
  protocol: ClaimProtocol;
  format: ClaimFormat;
}

export async function insertClaim(
  tx: Queryable,
  input: { tokenId: string; certificateId: string; accountId: string; at: Date } & Omit<ClaimRecord, 'claimedAt'>,
): Promise<void> {
  await tx.query(
    `INSERT INTO credential_claims (id, claim_token_id, certificate_id, account_id, claimed_at, holder_did, protocol, format)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      uuidv7(input.at.getTime()),
      input.tokenId,
      input.certificateId,
      input.accountId,
      input.at,
      input.holderDid,
      input.protocol,
      input.format,
    ],
  );
}

/** A certificate's claims, newest first (the dashboard's certificate page). */
export async function listClaims(db: Queryable, accountId: string, certificateId: string): Promise<ClaimRecord[]> {
  const { rows } = await db.query<{ claimed_at: Date; holder_did: string; protocol: ClaimProtocol; format: ClaimFormat }>(
    `SELECT claimed_at, holder_did, protocol, format FROM credential_claims
      WHERE account_id = $1 AND certificate_id = $2 ORDER BY claimed_at DESC, id DESC LIMIT 200`,
    [accountId, certificateId],
  );
  return rows.map((r) => ({ claimedAt: r.claimed_at, holderDid: r.holder_did, protocol: r.protocol, format: r.format }));
}

export const EXCHANGE_TTL_MS = 15 * 60 * 1000;

export async function insertExchange(
  db: Queryable,
  input: { tokenId: string; challenge: string; at: Date },
): Promise<{ id: string; expiresAt: Date }> {
  const id = uuidv7(input.at.getTime());
  const expiresAt = new Date(input.at.getTime() + EXCHANGE_TTL_MS);
  await db.query(
    `INSERT INTO vcapi_exchanges (id, claim_token_id, challenge, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
    [id, input.tokenId, input.challenge, input.at, expiresAt],
  );
  return { id, expiresAt };
}

export type ExchangeState = 'open' | 'unknown' | 'used' | 'expired';

/** Whether the token's exchange with this challenge may still be answered. */
export async function exchangeState(
  db: Queryable,
  input: { tokenId: string; challenge: string; at: Date },
): Promise<ExchangeState> {
  const { rows } = await db.query<{ used_at: Date | null; expires_at: Date }>(
    'SELECT used_at, expires_at FROM vcapi_exchanges WHERE claim_token_id = $1 AND challenge = $2',
    [input.tokenId, input.challenge],
  );
  const row = rows[0];
  if (!row) return 'unknown';
  if (row.used_at) return 'used';
  return row.expires_at.getTime() <= input.at.getTime() ? 'expired' : 'open';
}

/** Marks the exchange used, in the claim's transaction; false when another request did first. */
export async function useExchange(
  tx: Queryable,
  input: { tokenId: string; challenge: string; at: Date },
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE vcapi_exchanges SET used_at = $3
      WHERE claim_token_id = $1 AND challenge = $2 AND used_at IS NULL AND expires_at > $3`,
    [input.tokenId, input.challenge, input.at],
  );
  return rowCount === 1;
}
