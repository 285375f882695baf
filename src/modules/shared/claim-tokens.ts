import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../platform/db/db.js';
import { AppError, NotFoundError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';

// The secret of an "Add to your wallet" link (issue 31, decisions 22; migration 031): 32 random
// bytes, base64url, in the link; only their SHA-256 in the database. Valid 30 days, at most 5
// successful claims, ended when its certificate is revoked or superseded. Here because the emails
// (which mint tokens for the links they carry) and the wallet routes (which use them) both need it.

export const CLAIM_TOKEN_DAYS = 30;
export const CLAIMS_PER_TOKEN = 5;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function claimTokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export function isClaimToken(value: unknown): value is string {
  return typeof value === 'string' && TOKEN.test(value);
}

/** A new token for the certificate's link; the only time the token itself exists. */
export async function mintClaimToken(db: Queryable, certificateId: string, now: Date): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const expires = new Date(now.getTime() + CLAIM_TOKEN_DAYS * 86_400_000);
  const { rowCount } = await db.query(
    `INSERT INTO claim_tokens (id, certificate_id, account_id, token_sha256, created_at, expires_at)
     SELECT $1, c.id, c.account_id, $3, $4, $5 FROM certificates c WHERE c.id = $2`,
    [uuidv7(now.getTime()), certificateId, claimTokenHash(token), now, expires],
  );
  if (rowCount !== 1) throw new NotFoundError('Certificate');
  return token;
}

// A token that was real but can no longer be used: 410 with the reason.
export class ClaimTokenGoneError extends AppError {
  constructor(readonly reason: 'expired' | 'used_up' | 'revoked' | 'superseded') {
    super('gone', GONE[reason], { reason });
  }
}

const GONE = {
  expired: 'This wallet link has expired. Ask for a new one from the verification page.',
  used_up:
    'This wallet link has been used the most times it can be. Ask for a new one from the verification page.',
  revoked: 'This certificate has been revoked: it can no longer be added to a wallet.',
  superseded: 'This certificate was replaced by a corrected one: use the link sent with the new one.',
};

export interface ClaimTarget {
  tokenId: string;
  certificateId: string;
  accountId: string;
  claimsUsed: number;
  expiresAt: Date;
}

/**
 * The token's certificate, when the token may still be used; otherwise NotFoundError (malformed or
 * unknown) or ClaimTokenGoneError (expired, used up, revoked, superseded). Reads only: a claim is
 * counted by the statement that records it (wallet/claims.repository.ts).
 */
export async function resolveClaimToken(db: Queryable, token: string, now: Date): Promise<ClaimTarget> {
  if (!isClaimToken(token)) throw new NotFoundError('Wallet link');
  const { rows } = await db.query<ClaimTargetRow>(`${TARGET} WHERE t.token_sha256 = $1`, [
    claimTokenHash(token),
  ]);
  return claimTargetOf(rows[0], now);
}

/**
 * The same, by the token's id: for a grant that came from a token and outlives the request that
 * showed it (an OID4VCI access token), so the token's rules apply again at each later use.
 */
export async function resolveClaimTokenById(db: Queryable, tokenId: string, now: Date): Promise<ClaimTarget> {
  const { rows } = await db.query<ClaimTargetRow>(`${TARGET} WHERE t.id = $1`, [tokenId]);
  return claimTargetOf(rows[0], now);
}

/** A token's row and its certificate's state, as CLAIM_TARGET_COLUMNS read them. */
export interface ClaimTargetRow {
  id: string;
  certificate_id: string;
  account_id: string;
  claims_used: number;
  expires_at: Date;
  status: string;
  superseded_by: string | null;
}
/** The columns of a ClaimTargetRow, from `claim_tokens t` joined with its `certificates c`. */
export const CLAIM_TARGET_COLUMNS =
  't.id, t.certificate_id, t.account_id, t.claims_used, t.expires_at, c.status, c.superseded_by';
const TARGET = `SELECT ${CLAIM_TARGET_COLUMNS} FROM claim_tokens t JOIN certificates c ON c.id = t.certificate_id`;

/** The token's target when it may still be used (see resolveClaimToken); `row` as read, if any. */
export function claimTargetOf(row: ClaimTargetRow | undefined, now: Date): ClaimTarget {
  if (!row || row.status === 'Draft') throw new NotFoundError('Wallet link');
  // A reissue revokes the old certificate and names its successor: it says "superseded".
  if (row.superseded_by) throw new ClaimTokenGoneError('superseded');
  if (row.status === 'Revoked') throw new ClaimTokenGoneError('revoked');
  if (row.expires_at.getTime() <= now.getTime()) throw new ClaimTokenGoneError('expired');
  if (row.claims_used >= CLAIMS_PER_TOKEN) throw new ClaimTokenGoneError('used_up');
  return {
    tokenId: row.id,
    certificateId: row.certificate_id,
    accountId: row.account_id,
    claimsUsed: row.claims_used,
    expiresAt: row.expires_at,
  };
}
