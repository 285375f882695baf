import type { Queryable } from '../../platform/db/db.js';
import type { Actor } from '../../platform/principal.js';
import type { AuditEvent, ChainedEvent } from './audit-chain.js';

export interface AuditRow {
  id: string;
  seq: string;
  occurred_at: Date;
  actor_type: Actor['type'];
  actor_id: string | null;
  actor_label: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  ip: string | null;
  request_id: string | null;
  changes: Record<string, unknown>;
  prev_hash: Buffer;
  hash: Buffer;
}

export const AUDIT_COLUMNS =
  'id, seq, occurred_at, actor_type, actor_id, actor_label, action, target_type, target_id, ip, request_id, changes, prev_hash, hash';

export function eventOf(row: AuditRow): AuditEvent {
  return {
    id: row.id,
    occurredAt: row.occurred_at.toISOString(),
    actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
    action: row.action,
    target: row.target_type === null ? null : { type: row.target_type, id: row.target_id ?? '' },
    ip: row.ip,
    requestId: row.request_id,
    changes: row.changes,
  };
}

export function chainedOf(row: AuditRow): ChainedEvent {
  return { seq: Number(row.seq), event: eventOf(row), prevHash: row.prev_hash, hash: row.hash };
}

// The account's events in chain order, `limit` at a time after `afterSeq`.
export async function chainPage(
  db: Queryable,
  accountId: string,
  afterSeq: number,
  limit: number,
): Promise<AuditRow[]> {
  const { rows } = await db.query<AuditRow>(
    `SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE account_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [accountId, afterSeq, limit],
  );
  return rows;
}

export async function auditHead(
  db: Queryable,
  accountId: string,
): Promise<{ seq: number; hash: Buffer } | undefined> {
  const { rows } = await db.query<{ seq: string; hash: Buffer }>(
    'SELECT seq, hash FROM audit_heads WHERE account_id = $1',
    [accountId],
  );
  return rows[0] ? { seq: Number(rows[0].seq), hash: rows[0].hash } : undefined;
}

/** Which events a list or an export shows (every field optional). */
export interface AuditFilter {
  action?: string;
  /** An actor's id or label (a user's id or email, a key's id or prefix, `cli`'s user name). */
  actor?: string;
  /** From this instant on (inclusive). */
  from?: Date;
  /** Up to this instant (inclusive). */
  to?: Date;
}

function where(accountId: string, f: AuditFilter): { sql: string; values: unknown[] } {
  const values: unknown[] = [accountId];
  const terms = ['account_id = $1'];
  const add = (term: (n: string) => string, value: unknown) => {
    values.push(value);
    terms.push(term(`$${values.length}`));
  };
  if (f.action !== undefined) add((n) => `action = ${n}`, f.action);
  if (f.actor !== undefined) add((n) => `(actor_id = ${n} OR actor_label = ${n})`, f.actor);
  if (f.from !== undefined) add((n) => `occurred_at >= ${n}`, f.from);
  if (f.to !== undefined) add((n) => `occurred_at <= ${n}`, f.to);
  return { sql: terms.join(' AND '), values };
}

// A page of an account's events, newest first, and how many match.
export async function listEvents(
  db: Queryable,
  accountId: string,
  filter: AuditFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: AuditRow[]; total: number }> {
  const w = where(accountId, filter);
  const n = w.values.length;
  const [list, count] = await Promise.all([
    db.query<AuditRow>(
      `SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE ${w.sql}
        ORDER BY occurred_at DESC, seq DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...w.values, page.limit, page.offset],
    ),
    db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_events WHERE ${w.sql}`, w.values),
  ]);
  return { rows: list.rows, total: count.rows[0]!.n };
}

// The events after `before` (newest first; none: from the newest), `limit` at a time (an export).
export async function eventsBefore(
  db: Queryable,
  accountId: string,
  filter: AuditFilter,
  before: { occurredAt: Date; seq: string } | undefined,
  limit: number,
): Promise<AuditRow[]> {
  const w = where(accountId, filter);
  const n = w.values.length;
  const after = before ? ` AND (occurred_at, seq) < ($${n + 2}::timestamptz, $${n + 3}::bigint)` : '';
  const { rows } = await db.query<AuditRow>(
    `SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE ${w.sql}${after}
      ORDER BY occurred_at DESC, seq DESC LIMIT $${n + 1}`,
    [...w.values, limit, ...(before ? [before.occurredAt, before.seq] : [])],
  );
  return rows;
}
