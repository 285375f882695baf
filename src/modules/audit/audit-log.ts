import type { Queryable } from '../../platform/db/db.js';
import { uuidv7 } from '../../platform/ids.js';
import type { Doer } from '../../platform/principal.js';
import { canonicalJson, type AuditEvent } from './audit-chain.js';

// The actions of decisions 21: `<noun>.<verb>` in the past tense.
export const AUDIT_ACTIONS = [
  'certificate.issued',
  'certificate.revoked',
  'certificate.reissued',
  'certificate.sent',
  'certificate.downloaded',
  'template.saved',
  'template.published',
  'template.archived',
  // Issue 31: a template's badge image uploaded or removed (changes.badge: its media type, or null).
  'template.badge_changed',
  'key.created',
  'key.revoked',
  'user.invited',
  'user.joined',
  'user.removed',
  'user.role_changed',
  'user.signed_in',
  'user.sign_in_failed',
  'user.password_changed',
  'user.two_factor_enabled',
  // Not in decisions 21's list: turning two-factor off is a change too (issue 29, profile page).
  'user.two_factor_disabled',
  'account.updated',
  'account.suspended',
  'account.resumed',
  'import.started',
  'import.cancelled',
  'signing_key.rotated',
  'sso.updated',
  'audit.exported',
  // Issue 31: a recipient's correction request, and the account's decision on it.
  'correction.requested',
  'correction.approved',
  'correction.rejected',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditInput {
  action: AuditAction;
  target?: { type: string; id: string };
  /** A summary of what changed: never a secret, password, key or a full email body. */
  changes?: Record<string, unknown>;
}

// Writes one audit event per input, chained after the account's last one, in the transaction of
// `db` (pass the change's own transaction, so the change and its events commit together). One
// round trip for any number of events (the database function audit_append, migration 021).
// The canonical JSON of each input's event (what audit_append takes): for a statement that appends
// them itself (a single issue's, issue.repository.ts issueAtOnce).
export function auditBodies(doer: Doer, inputs: AuditInput[], now: Date): string[] {
  const occurredAt = now.toISOString();
  return inputs.map((input) => {
    const event: AuditEvent = {
      id: uuidv7(),
      occurredAt,
      actor: doer.actor,
      action: input.action,
      target: input.target ?? null,
      ip: doer.origin?.ip ?? null,
      requestId: doer.origin?.requestId ?? null,
      changes: input.changes ?? {},
    };
    return canonicalJson(event);
  });
}

export async function recordAudit(
  db: Queryable,
  accountId: string,
  doer: Doer,
  inputs: AuditInput[],
  now: Date,
): Promise<void> {
  if (inputs.length === 0) return;
  await db.query('SELECT audit_append($1::uuid, $2::text[])', [accountId, auditBodies(doer, inputs, now)]);
}
