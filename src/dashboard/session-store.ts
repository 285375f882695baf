import { createHash, randomBytes } from 'node:crypto';
import type { SessionStore } from '@fastify/session';
import type { Db } from '../platform/db/db.js';
import * as repo from './sessions.repository.js';

function digest(sessionId: string): Buffer {
  return createHash('sha256').update(sessionId).digest();
}

type Callback = (err?: unknown) => void;
type GetCallback = (err: unknown, session?: unknown) => void;

interface StoredSession {
  userId?: string;
  codeUserId?: string;
  cookie?: { expires?: string | Date | null };
}

// @fastify/session's store interface over PostgreSQL: every instance sees the same sessions, and a
// session ends for all of them at once (sign out, expiry).
export function createSessionStore(db: Db, now: () => Date, fallbackTtlMs: number): SessionStore {
  return {
    get(sessionId: string, callback: GetCallback) {
      repo.readSession(db, digest(sessionId), now()).then(
        (data) => callback(null, data ?? null),
        (err) => callback(err),
      );
    },
    set(sessionId: string, session: unknown, callback: Callback) {
      const s = session as StoredSession;
      const expires = s.cookie?.expires
        ? new Date(s.cookie.expires)
        : new Date(now().getTime() + fallbackTtlMs);
      repo
        .writeSession(db, {
          idHash: digest(sessionId),
          // A session half-way through a two-factor sign-in is the user's too: it ends with theirs.
          userId: s.userId ?? s.codeUserId ?? null,
          data: JSON.stringify(session),
          expiresAt: expires,
        })
        .then(
          () => callback(),
          (err) => callback(err),
        );
    },
    destroy(sessionId: string, callback: Callback) {
      repo.deleteSession(db, digest(sessionId)).then(
        () => callback(),
        (err) => callback(err),
      );
    },
  } as SessionStore;
}

// The cookie signing key: one per deployment, kept in the database.
export function sessionSecret(db: Db): Promise<string> {
  return repo.sharedSecret(db, 'dashboard-session', randomBytes(48).toString('base64url'));
}
