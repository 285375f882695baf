import type { SessionStore } from '@fastify/session';
import type { Db } from '../platform/db/db.js';
import { createTableSessionStore, OPERATOR_SESSIONS } from '../platform/session-table.js';

// The operator console's sessions: a table of their own (platform/session-table.ts).
export function createOperatorSessionStore(db: Db, now: () => Date, fallbackTtlMs: number): SessionStore {
  return createTableSessionStore(db, OPERATOR_SESSIONS, now, fallbackTtlMs);
}
