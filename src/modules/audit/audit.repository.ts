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
