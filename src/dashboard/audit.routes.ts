import { stringify } from 'csv-stringify/sync';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AUDIT_ACTIONS } from '../modules/audit/audit-log.js';
import type { AuditFilter } from '../modules/audit/audit.service.js';
import { spreadsheetCell } from '../modules/imports/recipients-csv.js';
import { ValidationError } from '../platform/errors.js';
import type { DashboardDeps } from './deps.js';
import { sendCsv } from './downloads.js';
import { auditPage, AUDIT_PER_PAGE, type AuditFilterText } from './pages/audit.page.js';
import { pageNumber } from './params.js';
import { pageFrame, routeKit } from './routes.js';
import { html as send, signedIn } from './session.js';
import { assertStorable } from '../platform/validation.js';

// Settings > Audit log and its CSV export (permission `audit`): the same filters, the same service
// as GET /api/v1/audit-events. The export is itself an event (audit.exported).

const CSV_HEADER = [
  'id',
  'occurred_at',
  'actor_type',
  'actor_id',
  'actor_label',
  'action',
  'target_type',
  'target_id',
  'ip',
  'request_id',
  'changes',
];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function textOf(request: FastifyRequest): AuditFilterText {
  const q = request.query as Record<string, unknown>;
  const text = (k: string) => (typeof q[k] === 'string' ? (q[k] as string).trim().slice(0, 320) : '');
  return { who: text('who'), action: text('action'), from: text('from'), to: text('to') };
}

// A day (the whole day, UTC) or an ISO 8601 instant; anything else is refused by name.
function instant(value: string, field: 'from' | 'to'): Date | undefined {
  if (value === '') return undefined;
  const at = new Date(
    DAY.test(value) ? `${value}T${field === 'from' ? '00:00:00.000' : '23:59:59.999'}Z` : value,
  );
  if (Number.isNaN(at.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    throw new ValidationError(
      [{ path: [field], message: 'is not a date' }],
      `“${field === 'from' ? 'From' : 'To'}” is not a date (2026-11-27).`,
    );
  }
  return at;
}

export function filterOf(f: AuditFilterText): AuditFilter {
  // Text the database cannot hold (a NUL) is refused here, as the API's query schema refuses it.
  assertStorable({ who: f.who, action: f.action, from: f.from, to: f.to });
  if (f.action !== '' && !(AUDIT_ACTIONS as readonly string[]).includes(f.action)) {
    throw new ValidationError(
      [{ path: ['action'], message: 'is not an action' }],
      `“${f.action}” is not an action.`,
    );
  }
  const from = instant(f.from, 'from');
  const to = instant(f.to, 'to');
  return {
    ...(f.who ? { actor: f.who } : {}),
    ...(f.action ? { action: f.action } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
  };
}

export function auditRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { audit } = deps.services;
  const kit = routeKit(app, deps);
  const empty = { data: [], pagination: { page: 1, perPage: AUDIT_PER_PAGE, total: 0, totalPages: 0 } };

  app.get('/settings/audit', { preHandler: kit.allow('audit') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const filter = textOf(request);
    let parsed: AuditFilter;
    try {
      parsed = filterOf(filter);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const flash = { kind: 'error' as const, text: `Not shown: ${err.message}` };
      return send(reply, auditPage({ ...pageFrame(request, reply), flash, filter, list: empty }), 422);
    }
    const page = pageNumber((request.query as Record<string, string | undefined>).page);
    const list = await audit.list(accountId, { ...parsed, page, perPage: AUDIT_PER_PAGE });
    return send(reply, auditPage({ ...pageFrame(request, reply), filter, list }));
  });

  // Bad filters answer the page with the message (422), and nothing is exported or recorded.
  app.get('/settings/audit.csv', { preHandler: kit.allow('audit') }, async (request, reply) => {
    const s = signedIn(request);
    const filter = textOf(request);
    let parsed: AuditFilter;
    try {
      parsed = filterOf(filter);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const flash = { kind: 'error' as const, text: `Not exported: ${err.message}` };
      return send(reply, auditPage({ ...pageFrame(request, reply), flash, filter, list: empty }), 422);
    }
    const events = await audit.exportEvents(s.principal, s.user.accountId, parsed);
    async function* csv() {
      yield '\uFEFF' + stringify([CSV_HEADER]);
      for await (const page of events) {
        yield stringify(
          page.map((e) =>
            [
              e.id,
              e.occurredAt,
              e.actor.type,
              e.actor.id,
              e.actor.label,
              e.action,
              e.target?.type,
              e.target?.id,
              e.ip,
              e.requestId,
              JSON.stringify(e.changes),
            ].map(spreadsheetCell),
          ),
        );
      }
    }
    const day = deps.now().toISOString().slice(0, 10);
    return sendCsv(reply, `audit-${day}.csv`, csv());
  });
}
