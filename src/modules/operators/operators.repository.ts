import type { Queryable } from '../../platform/db/db.js';

export interface OperatorRow {
  id: string;
  email: string;
  password_hash: string;
  totp_secret: Buffer | null;
  totp_enabled_at: Date | null;
  totp_last_step: number | null;
  created_at: Date;
}

const COLUMNS = 'id, email, password_hash, totp_secret, totp_enabled_at, totp_last_step, created_at';

// undefined when an operator with this email already exists (emails are stored lower-cased).
export async function insertOperator(
  db: Queryable,
  input: { id: string; email: string; passwordHash: string },
): Promise<OperatorRow | undefined> {
  const { rows } = await db.query<OperatorRow>(
    `INSERT INTO operators (id, email, password_hash) VALUES ($1, $2, $3)
     ON CONFLICT (email) DO NOTHING RETURNING ${COLUMNS}`,
    [input.id, input.email, input.passwordHash],
  );
  return rows[0];
}

export async function findOperatorByEmail(db: Queryable, email: string): Promise<OperatorRow | undefined> {
  const { rows } = await db.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE email = $1`, [email]);
  return rows[0];
}

export async function findOperator(db: Queryable, id: string): Promise<OperatorRow | undefined> {
  const { rows } = await db.query<OperatorRow>(`SELECT ${COLUMNS} FROM operators WHERE id = $1`, [id]);
  return rows[0];
}

// The secret shown at set-up, kept sealed until a code confirms it (a confirmed one is never replaced).
export async function setPendingSecret(db: Queryable, id: string, sealed: Buffer): Promise<void> {
  await db.query('UPDATE operators SET totp_secret = $2 WHERE id = $1 AND totp_enabled_at IS NULL', [
    id,
    sealed,
  ]);
}

// Takes a code's time step: true when it is later than the last one used (and, at set-up, turns
// two-factor on). One statement, so two requests with the same code cannot both pass.
export async function useTotpStep(
  db: Queryable,
  input: { id: string; step: number; enable: boolean; now: Date },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE operators SET totp_last_step = $2,
            totp_enabled_at = CASE WHEN $3 THEN $4 ELSE totp_enabled_at END
      WHERE id = $1 AND (totp_enabled_at IS NULL) = $3 AND (totp_last_step IS NULL OR totp_last_step < $2)`,
    [input.id, input.step, input.enable, input.now],
  );
  return rowCount === 1;
}
