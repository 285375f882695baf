import pg from 'pg';
import type { Db, Queryable } from '../../platform/db/db.js';
import { uuidv7 } from '../../platform/ids.js';
import { CLAIM_TARGET_COLUMNS, type ClaimTargetRow } from '../shared/claim-tokens.js';

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

/** What a claim spends once: an OID4VCI c_nonce (by its hash) or a VC API exchange's challenge. */
export type ClaimGrant = { kind: 'nonce'; nonceSha256: Buffer } | { kind: 'exchange'; challenge: string };

/** recorded; or nothing written: the grant unknown, used or expired, or the token used up meanwhile. */
export type ClaimOutcome = 'recorded' | 'grant_spent' | 'used_up';

// The grant's use, as the first data-modifying CTE of the claim's statement ($1 the time, $2 the
// claim token's id, $4 the account's id, $9 the nonce's hash or the challenge).
const USE_GRANT = {
  nonce: `UPDATE oid4vci_nonces SET used_at = $1
      WHERE nonce_sha256 = $9 AND account_id = $4 AND used_at IS NULL AND expires_at > $1 RETURNING 1`,
  exchange: `UPDATE vcapi_exchanges SET used_at = $1
      WHERE claim_token_id = $2 AND challenge = $9 AND used_at IS NULL AND expires_at > $1 RETURNING 1`,
};

// One round trip and one commit instead of five (BEGIN, three writes, COMMIT): the grant used, the
// claim counted on the token only when the grant was, and recorded only when counted. A token used
// up meanwhile (two wallets at once on the fifth claim) fails the CHECK of migration 031 on
// claims_used, which ends the statement and undoes the grant's use with it.
const claimStatement = (grant: ClaimGrant['kind']) => `WITH used AS (
  ${USE_GRANT[grant]}
), counted AS (
  UPDATE claim_tokens SET claims_used = claims_used + 1 WHERE id = $2 AND EXISTS (SELECT 1 FROM used) RETURNING id
), recorded AS (
  INSERT INTO credential_claims (id, claim_token_id, certificate_id, account_id, claimed_at, holder_did, protocol, format)
  SELECT $5, id, $3, $4, $1, $6, $7, $8 FROM counted RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM recorded) AS recorded`;

/**
 * One successful claim, as its own transaction (or a SAVEPOINT of the caller's): the grant used
 * once, the claim counted on the token (at most CLAIMS_PER_TOKEN, migration 031) and recorded.
 */
export async function recordClaimAtOnce(
  db: Db,
  input: { tokenId: string; certificateId: string; accountId: string; at: Date; grant: ClaimGrant } & Omit<
    ClaimRecord,
    'claimedAt'
  >,
): Promise<ClaimOutcome> {
  const { grant } = input;
  try {
    const { rows } = await db.statement<{ recorded: boolean }>({
      name: `claim-at-once-${grant.kind}`,
      text: claimStatement(grant.kind),
      values: [
        input.at,
        input.tokenId,
        input.certificateId,
        input.accountId,
        uuidv7(input.at.getTime()),
        input.holderDid,
        input.protocol,
        input.format,
        grant.kind === 'nonce' ? grant.nonceSha256 : grant.challenge,
      ],
    });
    return rows[0]!.recorded ? 'recorded' : 'grant_spent';
  } catch (err) {
    if (err instanceof pg.DatabaseError && err.constraint === 'claim_tokens_claims_used_check')
      return 'used_up';
    throw err;
  }
}

/** A certificate's claims, newest first (the dashboard's certificate page). */
export async function listClaims(
  db: Queryable,
  accountId: string,
  certificateId: string,
): Promise<ClaimRecord[]> {
  const { rows } = await db.query<{
    claimed_at: Date;
    holder_did: string;
    protocol: ClaimProtocol;
    format: ClaimFormat;
  }>(
    `SELECT claimed_at, holder_did, protocol, format FROM credential_claims
      WHERE account_id = $1 AND certificate_id = $2 ORDER BY claimed_at DESC, id DESC LIMIT 200`,
    [accountId, certificateId],
  );
  return rows.map((r) => ({
    claimedAt: r.claimed_at,
    holderDid: r.holder_did,
    protocol: r.protocol,
    format: r.format,
  }));
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

/**
 * A claim token (by its hash) with its certificate's state, and whether its exchange with this
 * challenge (null: none looked up, 'unknown') may still be answered, in one round trip; undefined
 * when there is no such token.
 */
export async function tokenWithExchange(
  db: Queryable,
  input: { tokenSha256: Buffer; challenge: string | null; at: Date },
): Promise<{ target: ClaimTargetRow; exchange: ExchangeState } | undefined> {
  const { rows } = await db.query<
    ClaimTargetRow & { used_at: Date | null; exchange_expires_at: Date | null }
  >({
    name: 'vcapi-token-with-exchange',
    text: `SELECT ${CLAIM_TARGET_COLUMNS}, e.used_at, e.expires_at AS exchange_expires_at
       FROM claim_tokens t JOIN certificates c ON c.id = t.certificate_id
       LEFT JOIN vcapi_exchanges e ON e.claim_token_id = t.id AND e.challenge = $2
      WHERE t.token_sha256 = $1`,
    values: [input.tokenSha256, input.challenge],
  });
  const row = rows[0];
  if (!row) return undefined;
  const { used_at: usedAt, exchange_expires_at: expiresAt, ...target } = row;
  const exchange: ExchangeState =
    expiresAt === null
      ? 'unknown'
      : usedAt
        ? 'used'
        : expiresAt.getTime() <= input.at.getTime()
          ? 'expired'
          : 'open';
  return { target, exchange };
}
