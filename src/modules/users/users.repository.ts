import type { Role } from '../shared/roles.js';
import type { Queryable } from '../../platform/db/db.js';

export interface UserRow {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  role: Role;
  created_at: Date;
  two_factor_enabled_at: Date | null;
  /** The account's "require two-factor for everyone" (read with the user: no second query). */
  require_two_factor: boolean;
}

const COLUMNS = `id, account_id, email, password_hash, role, created_at, two_factor_enabled_at,
  (SELECT a.require_two_factor FROM accounts a WHERE a.id = users.account_id) AS require_two_factor`;

// Emails are stored lower-cased (users.service), so an exact match is a case-insensitive one.
export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE email = $1`, [email]);
  return rows[0];
}

export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
  return rows[0];
}

// undefined when a user with this email already exists.
export async function insertUser(
  db: Queryable,
  input: { id: string; accountId: string; email: string; passwordHash: string; role?: Role },
): Promise<UserRow | undefined> {
  try {
    const { rows } = await db.query<UserRow>(
      `INSERT INTO users (id, account_id, email, password_hash, role) VALUES ($1, $2, $3, $4, $5)
       RETURNING ${COLUMNS}`,
      [input.id, input.accountId, input.email, input.passwordHash, input.role ?? 'owner'],
    );
    return rows[0];
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return undefined;
    throw err;
  }
}

export async function setPasswordHash(db: Queryable, userId: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2 WHERE id = $1', [userId, passwordHash]);
}

export async function stampSignIn(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query('UPDATE users SET last_sign_in_at = $2 WHERE id = $1', [id, at]);
}
