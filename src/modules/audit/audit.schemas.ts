import { Type } from 'typebox';
import { PageQuery, Timestamp } from '../../platform/http/schemas.js';
import { AUDIT_ACTIONS } from './audit-log.js';

// GET /api/v1/audit-events (decisions 21): its query and the event it lists.

const Nullable = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

export const AuditEventSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: "The event's id (its row in audit_events)" }),
    occurredAt: Timestamp,
    actor: Type.Object({
      type: Type.Union(
        ['user', 'api_key', 'cli', 'system', 'operator'].map((t) => Type.Literal(t)),
        {
          description:
            'Who made the change: a dashboard user, an API key, the CLI, the service itself or an instance operator',
        },
      ),
      id: Nullable("The user's or key's id (the import's for the worker's imports); null for the CLI"),
      label: Nullable("A user's email, a key's prefix, the CLI's operating-system user; null when none"),
    }),
    action: Type.String({ description: '`<noun>.<verb>` in the past tense, e.g. certificate.issued' }),
    target: Type.Union([Type.Object({ type: Type.String(), id: Type.String() }), Type.Null()], {
      description: 'What was changed (a certificate, template, import, ...); null when the account itself',
    }),
    ip: Nullable("The caller's address (null for the CLI and the service's workers)"),
    requestId: Nullable("The request's id (the X-Request-Id of the answer that made the change)"),
    changes: Type.Record(Type.String(), Type.Unknown(), {
      description: 'A summary of what changed (never a secret, password, key or email body)',
    }),
  },
  { $id: 'AuditEvent', title: 'AuditEvent' },
);

export const AUDIT_EVENT_EXAMPLE = {
  id: '0192f7a1-2c4b-7d10-8000-0000000000a1',
  occurredAt: '2026-11-27T10:15:00.123Z',
  actor: { type: 'api_key', id: '0192f7a1-0000-7000-8000-000000000001', label: 'svc_live_AbCd' },
  action: 'certificate.issued',
  target: { type: 'certificate', id: '0192f7a1-2c4b-7d10-8000-00000000c0de' },
  ip: '203.0.113.7',
  requestId: 'req-5f1c',
  changes: { code: 'K7QX-2M9P-4TRW', templateId: '0192f7a1-0000-7000-8000-0000000000aa' },
};

export const AuditQuery = Type.Object({
  action: Type.Optional(
    Type.Union(
      AUDIT_ACTIONS.map((a) => Type.Literal(a)),
      { description: 'Only events of this action' },
    ),
  ),
  actor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 320,
      description: "Only events of this actor: its id or its label (a user's email, a key's prefix)",
    }),
  ),
  from: Type.Optional(
    Type.String({ format: 'date-time', description: 'Only events at or after this instant (ISO 8601)' }),
  ),
  to: Type.Optional(
    Type.String({ format: 'date-time', description: 'Only events at or before this instant (ISO 8601)' }),
  ),
  ...PageQuery,
});
