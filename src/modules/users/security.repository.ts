import type { Queryable } from '../../platform/db/db.js';

// Each user's sign-in security (migration 023): sealed TOTP secrets, recovery code hashes, passwords.

export interface TwoFactorRow {
  two_factor_secret: Buffer | null;
  two_factor_pending_secret: Buffer | null;
}

export async function readSecrets(db: Queryable, userId: string): Promise<TwoFactorRow | undefined> {
  const { rows } = await db.query<TwoFactorRow>(
    'SELECT two_factor_secret, two_factor_pending_secret FROM users WHERE id = $1',
    [userId],
  );
  return rows[0];
}

export async function setPendingSecret(db: Queryable, userId: string, sealed: Buffer): Promise<void> {
  await db.query('UPDATE users SET two_factor_pending_secret = $2 WHERE id = $1', [userId, sealed]);
}

// Turns two-factor on with the pending secret, the confirming code's step already used, and the
// new recovery codes in place of any old ones. false when the pending secret changed meanwhile.
export async function enable(
  db: Queryable,
  input: { userId: string; pending: Buffer; step: number; codeHashes: string[]; now: Date },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE users SET two_factor_secret = two_factor_pending_secret, two_factor_pending_secret = NULL,
            two_factor_last_step = $3, two_factor_enabled_at = $4
      WHERE id = $1 AND two_factor_pending_secret = $2`,
    [input.userId, input.pending, input.step, input.now],
  );
  if (rowCount !== 1) return false;
  await db.query('DELETE FROM user_recovery_codes WHERE user_id = $1', [input.userId]);
  await db.query('INSERT INTO user_recovery_codes (user_id, code_hash) SELECT $1, unnest($2::text[])', [
    input.userId,
    input.codeHashes,
  ]);
  return true;
}

export async function disable(db: Queryable, userId: string): Promise<void> {
  await db.query(
    `UPDATE users SET two_factor_secret = NULL, two_factor_pending_secret = NULL,
            two_factor_last_step = NULL, two_factor_enabled_at = NULL
      WHERE id = $1`,
    [userId],
  );
  await db.query('DELETE FROM user_recovery_codes WHERE user_id = $1', [userId]);
}

// Takes a TOTP step: true only when it is later than the last one taken (a code works once).
export async function takeStep(db: Queryable, userId: string, step: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE users SET two_factor_last_step = $2
      WHERE id = $1 AND two_factor_secret IS NOT NULL
        AND (two_factor_last_step IS NULL OR two_factor_last_step < $2)`,
    [userId, step],
  );
  return rowCount === 1;
}

// Takes a recovery code: true when it was one of the user's unused codes (it is gone afterwards).
export async function takeRecoveryCode(db: Queryable, userId: string, codeHash: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM user_recovery_codes WHERE user_id = $1 AND code_hash = $2',
    [userId, codeHash],
  );
  return rowCount === 1;
}

export async function countRecoveryCodes(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM user_recovery_codes WHERE user_id = $1',
    [userId],
  );
  return rows[0]?.n ?? 0;
}

export async function setRequireTwoFactor(db: Queryable, accountId: string, on: boolean): Promise<void> {
  await db.query('UPDATE accounts SET require_two_factor = $2 WHERE id = $1', [accountId, on]);
}
