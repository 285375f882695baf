import { randomBytes } from 'node:crypto';
import type { SessionStore } from '@fastify/session';
import type { Db } from '../platform/db/db.js';
import { createTableSessionStore, DASHBOARD_SESSIONS } from '../platform/session-table.js';
import * as repo from './sessions.repository.js';

// The dashboard's sessions: users' (platform/session-table.ts).
export function createSessionStore(db: Db, now: () => Date, fallbackTtlMs: number): SessionStore {
  return createTableSessionStore(db, DASHBOARD_SESSIONS, now, fallbackTtlMs);
}

// The cookie signing key: one per deployment, kept in the database.
export function sessionSecret(db: Db): Promise<string> {
  return repo.sharedSecret(db, 'dashboard-session', randomBytes(48).toString('base64url'));
}
