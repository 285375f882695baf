import { createHash } from 'node:crypto';
import type { SessionStore } from '@fastify/session';
import type { Db, Queryable } from './db/db.js';

// A door's server-side sessions in a table of their own (the dashboard's dashboard_sessions,
// migration 006; the operator console's operator_sessions, migration 027), keyed by the SHA-256 of
// the session id, so that a copy of the table opens no session. Two tables, one code: a session of
// one door is never one of the other's.

export interface SessionTable {
  table: 'dashboard_sessions' | 'operator_sessions';
  /** The column naming whose session it is, and how it is read from the session's data. */
  owner: { column: 'user_id' | 'operator_id'; of: (session: Record<string, unknown>) => unknown };
}

export const DASHBOARD_SESSIONS: SessionTable = {
  table: 'dashboard_sessions',
  // A session half-way through a two-factor sign-in is the user's too: it ends with theirs.
  owner: { column: 'user_id', of: (s) => s.userId ?? s.codeUserId },
};
export const OPERATOR_SESSIONS: SessionTable = {
  table: 'operator_sessions',
  owner: { column: 'operator_id', of: (s) => s.operatorId },
};

const digest = (sessionId: string) => createHash('sha256').update(sessionId).digest();

type Callback = (err?: unknown) => void;
type GetCallback = (err: unknown, session?: unknown) => void;

// @fastify/session's store interface over the table: every instance sees the same sessions, and a
// session ends for all of them at once (sign out, expiry).
export function createTableSessionStore(
  db: Db,
  t: SessionTable,
  now: () => Date,
  fallbackTtlMs: number,
): SessionStore {
  const done = (callback: Callback) => [() => callback(), (err: unknown) => callback(err)] as const;
  return {
    get(sessionId: string, callback: GetCallback) {
      db.query<{ data: Record<string, unknown> }>(
        `SELECT data FROM ${t.table} WHERE id_hash = $1 AND expires_at > $2`,
        [digest(sessionId), now()],
      ).then(
        ({ rows }) => callback(null, rows[0]?.data ?? null),
        (err) => callback(err),
      );
    },
    set(sessionId: string, session: unknown, callback: Callback) {
      const s = session as Record<string, unknown> & { cookie?: { expires?: string | Date | null } };
      const expiresAt = s.cookie?.expires
        ? new Date(s.cookie.expires)
        : new Date(now().getTime() + fallbackTtlMs);
      db.query(
        `INSERT INTO ${t.table} (id_hash, ${t.owner.column}, data, expires_at) VALUES ($1, $2, $3::jsonb, $4)
         ON CONFLICT (id_hash) DO UPDATE SET ${t.owner.column} = $2, data = $3::jsonb, expires_at = $4, updated_at = now()`,
        [digest(sessionId), t.owner.of(s) ?? null, JSON.stringify(session), expiresAt],
      ).then(...done(callback));
    },
    destroy(sessionId: string, callback: Callback) {
      db.query(`DELETE FROM ${t.table} WHERE id_hash = $1`, [digest(sessionId)]).then(...done(callback));
    },
  } as SessionStore;
}

export async function purgeExpiredSessions(db: Queryable, t: SessionTable, now: Date): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM ${t.table} WHERE expires_at <= $1`, [now]);
  return rowCount ?? 0;
}
