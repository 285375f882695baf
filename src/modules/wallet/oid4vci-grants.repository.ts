import type { Queryable } from '../../platform/db/db.js';
import { uuidv7 } from '../../platform/ids.js';
import { CLAIM_TARGET_COLUMNS, type ClaimTargetRow } from '../shared/claim-tokens.js';

// The OID4VCI grants (migration 033): pre-authorized codes, access tokens and c_nonces, each found
// by the SHA-256 of its secret and scoped to the issuing account. The claims they end in are
// recorded by claims.repository.ts, as the VC API exchange's are, with the c_nonce used there.

export async function issuerName(db: Queryable, accountId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM accounts WHERE id = $1', [accountId]);
  return rows[0]?.name;
}

export async function insertPreAuthorizedCode(
  db: Queryable,
  row: { claimTokenId: string; accountId: string; codeSha256: Buffer; now: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO oid4vci_pre_authorized_codes (id, claim_token_id, account_id, code_sha256, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [uuidv7(row.now.getTime()), row.claimTokenId, row.accountId, row.codeSha256, row.now, row.expiresAt],
  );
}

/** Marks the code used, once: undefined when it is unknown, another issuer's or already used. */
export async function takePreAuthorizedCode(
  db: Queryable,
  accountId: string,
  codeSha256: Buffer,
  now: Date,
): Promise<{ claimTokenId: string; expiresAt: Date } | undefined> {
  const { rows } = await db.query<{ claim_token_id: string; expires_at: Date }>(
    `UPDATE oid4vci_pre_authorized_codes SET used_at = $3
      WHERE code_sha256 = $2 AND account_id = $1 AND used_at IS NULL
      RETURNING claim_token_id, expires_at`,
    [accountId, codeSha256, now],
  );
  const row = rows[0];
  return row && { claimTokenId: row.claim_token_id, expiresAt: row.expires_at };
}

export async function insertAccessToken(
  db: Queryable,
  row: { claimTokenId: string; accountId: string; tokenSha256: Buffer; now: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO oid4vci_access_tokens (id, claim_token_id, account_id, token_sha256, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [uuidv7(row.now.getTime()), row.claimTokenId, row.accountId, row.tokenSha256, row.now, row.expiresAt],
  );
}

/** What a credential request is checked against, read at once: its access token's claim token. */
export interface CredentialRequestState {
  /** The claim token and its certificate; undefined when the token's row is gone. */
  target: ClaimTargetRow | undefined;
  /** When the c_nonce looked up expires, if it is unused, unexpired and this issuer's. */
  nonceExpiresAt: Date | undefined;
}

/**
 * An unexpired access token of this issuer with its claim token, that token's certificate and the
 * c_nonce the request carries (null: none read), in one round trip; undefined when the access
 * token is unknown or expired.
 */
export async function credentialRequestState(
  db: Queryable,
  input: { accountId: string; tokenSha256: Buffer; nonceSha256: Buffer | null; now: Date },
): Promise<CredentialRequestState | undefined> {
  const { rows } = await db.query<
    Omit<ClaimTargetRow, 'id'> & { id: string | null; nonce_expires_at: Date | null }
  >({
    name: 'oid4vci-credential-request',
    text: `SELECT ${CLAIM_TARGET_COLUMNS},
            (SELECT n.expires_at FROM oid4vci_nonces n
              WHERE n.nonce_sha256 = $4 AND n.account_id = $1 AND n.used_at IS NULL AND n.expires_at > $3)
              AS nonce_expires_at
       FROM oid4vci_access_tokens a
       LEFT JOIN (claim_tokens t JOIN certificates c ON c.id = t.certificate_id) ON t.id = a.claim_token_id
      WHERE a.token_sha256 = $2 AND a.account_id = $1 AND a.expires_at > $3`,
    values: [input.accountId, input.tokenSha256, input.now, input.nonceSha256],
  });
  const row = rows[0];
  if (!row) return undefined;
  const { nonce_expires_at: nonceExpiresAt, ...target } = row;
  return {
    target: target.id === null ? undefined : (target as ClaimTargetRow),
    nonceExpiresAt: nonceExpiresAt ?? undefined,
  };
}

export async function insertNonce(
  db: Queryable,
  row: { accountId: string; nonceSha256: Buffer; now: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO oid4vci_nonces (nonce_sha256, account_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
    [row.nonceSha256, row.accountId, row.now, row.expiresAt],
  );
}

/** When an unused, unexpired c_nonce of this issuer expires; undefined when there is none. */
export async function nonceExpiry(
  db: Queryable,
  accountId: string,
  nonceSha256: Buffer,
  now: Date,
): Promise<Date | undefined> {
  const { rows } = await db.query<{ expires_at: Date }>(
    `SELECT expires_at FROM oid4vci_nonces
      WHERE nonce_sha256 = $2 AND account_id = $1 AND used_at IS NULL AND expires_at > $3`,
    [accountId, nonceSha256, now],
  );
  return rows[0]?.expires_at;
}
