import type { Queryable } from '../platform/db/db.js';

// Sessions are keyed by the SHA-256 of their id (migration 006); callers pass the digest.

export async function readSession(
  db: Queryable,
  idHash: Buffer,
  now: Date,
): Promise<Record<string, unknown> | undefined> {
  const { rows } = await db.query<{ data: Record<string, unknown> }>(
    'SELECT data FROM dashboard_sessions WHERE id_hash = $1 AND expires_at > $2',
    [idHash, now],
  );
  return rows[0]?.data;
}

export async function writeSession(
  db: Queryable,
  session: { idHash: Buffer; userId: string | null; data: string; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO dashboard_sessions (id_hash, user_id, data, expires_at) VALUES ($1, $2, $3::jsonb, $4)
     ON CONFLICT (id_hash) DO UPDATE SET user_id = $2, data = $3::jsonb, expires_at = $4, updated_at = now()`,
    [session.idHash, session.userId, session.data, session.expiresAt],
  );
}

export async function deleteSession(db: Queryable, idHash: Buffer): Promise<void> {
  await db.query('DELETE FROM dashboard_sessions WHERE id_hash = $1', [idHash]);
}

export async function purgeExpiredSessions(db: Queryable, now: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM dashboard_sessions WHERE expires_at <= $1', [now]);
  return rowCount ?? 0;
}

// The named secret, made from `candidate` by the first caller; every later caller reads that one.
// Two statements: when another instance inserts first, ON CONFLICT waits for its commit, but a
// SELECT in the same statement reads the snapshot taken before it, which holds neither row. A new
// statement takes a new snapshot, which holds the winner's. Needs autocommit (the pool), not a
// transaction at REPEATABLE READ.
export async function sharedSecret(db: Queryable, name: string, candidate: string): Promise<string> {
  await db.query('INSERT INTO instance_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    candidate,
  ]);
  const { rows } = await db.query<{ value: string }>('SELECT value FROM instance_secrets WHERE name = $1', [
    name,
  ]);
  if (!rows[0]) throw new Error(`instance secret ${name} is missing after its insert`);
  return rows[0].value;
}
