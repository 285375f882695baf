import type { Queryable } from '../platform/db/db.js';

// Operators' sessions (operator_sessions, migration 027), keyed by the SHA-256 of their id, as the
// dashboard's are; a table of their own, so that no account user's session is ever an operator's.

export async function readSession(
  db: Queryable,
  idHash: Buffer,
  now: Date,
): Promise<Record<string, unknown> | undefined> {
  const { rows } = await db.query<{ data: Record<string, unknown> }>(
    'SELECT data FROM operator_sessions WHERE id_hash = $1 AND expires_at > $2',
    [idHash, now],
  );
  return rows[0]?.data;
}

export async function writeSession(
  db: Queryable,
  session: { idHash: Buffer; operatorId: string | null; data: string; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO operator_sessions (id_hash, operator_id, data, expires_at) VALUES ($1, $2, $3::jsonb, $4)
     ON CONFLICT (id_hash) DO UPDATE SET operator_id = $2, data = $3::jsonb, expires_at = $4, updated_at = now()`,
    [session.idHash, session.operatorId, session.data, session.expiresAt],
  );
}

export async function deleteSession(db: Queryable, idHash: Buffer): Promise<void> {
  await db.query('DELETE FROM operator_sessions WHERE id_hash = $1', [idHash]);
}

export async function purgeExpiredOperatorSessions(db: Queryable, now: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM operator_sessions WHERE expires_at <= $1', [now]);
  return rowCount ?? 0;
}
