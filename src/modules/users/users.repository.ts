import type { Queryable } from '../../platform/db/db.js';

export interface UserRow {
  id: string;
  account_id: string;
  email: string;
  password_hash: string;
  created_at: Date;
}

const COLUMNS = 'id, account_id, email, password_hash, created_at';

// Emails are stored lower-cased (users.service), so an exact match is a case-insensitive one.
export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE email = $1`, [email]);
  return rows[0];
}

export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
  return rows[0];
}
