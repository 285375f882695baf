import { createHash } from 'node:crypto';
import type { SessionStore } from '@fastify/session';
import type { Db } from '../platform/db/db.js';
import * as repo from './sessions.repository.js';

const digest = (sessionId: string) => createHash('sha256').update(sessionId).digest();

type Callback = (err?: unknown) => void;
type GetCallback = (err: unknown, session?: unknown) => void;

// @fastify/session's store over operator_sessions (the dashboard's approach, its own table).
export function createOperatorSessionStore(db: Db, now: () => Date, fallbackTtlMs: number): SessionStore {
  const done = (callback: Callback) => [() => callback(), (err: unknown) => callback(err)] as const;
  return {
    get(sessionId: string, callback: GetCallback) {
      repo.readSession(db, digest(sessionId), now()).then(
        (data) => callback(null, data ?? null),
        (err) => callback(err),
      );
    },
    set(sessionId: string, session: unknown, callback: Callback) {
      const s = session as { operatorId?: string; cookie?: { expires?: string | Date | null } };
      const expiresAt = s.cookie?.expires
        ? new Date(s.cookie.expires)
        : new Date(now().getTime() + fallbackTtlMs);
      repo
        .writeSession(db, {
          idHash: digest(sessionId),
          operatorId: s.operatorId ?? null,
          data: JSON.stringify(session),
          expiresAt,
        })
        .then(...done(callback));
    },
    destroy(sessionId: string, callback: Callback) {
      repo.deleteSession(db, digest(sessionId)).then(...done(callback));
    },
  } as SessionStore;
}
