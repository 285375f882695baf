import { AUDIT_ACTIONS } from '../../modules/audit/audit-log.js';
import type { AuditEvent } from '../../modules/audit/audit-chain.js';
import { html } from '../../platform/html.js';
import { dateTime, notice, type Flash } from '../html.js';
import type { userFrame } from '../session.js';
import { emptyState, pager, select, table } from './components.js';
import { settingsPage } from './settings-nav.js';

// Settings > Audit log: the account's events, newest first, a page at a time, filtered by who,
// action and dates; "Export CSV" downloads what the filters match.

export const AUDIT_PER_PAGE = 50;

/** The filters as typed (the form's values, echoed back). */
export interface AuditFilterText {
  who: string;
  action: string;
  from: string;
  to: string;
}

interface List {
  data: AuditEvent[];
  pagination: { page: number; perPage: number; total: number; totalPages: number };
}

export function auditQuery(f: AuditFilterText, page?: number): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...f, page })) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

function actorText(e: AuditEvent): string {
  const who = e.actor.label ?? e.actor.id ?? '';
  const kind = { user: 'user', api_key: 'API key', cli: 'CLI', system: 'certsvc', operator: 'operator' }[
    e.actor.type
  ];
  return who ? `${who} (${kind})` : kind;
}

function filterForm(f: AuditFilterText) {
  const actions = ['', ...AUDIT_ACTIONS].map((a) => ({
    value: a,
    label: a || 'All',
    selected: f.action === a,
  }));
  return html`<form class="filters" method="get" action="/dashboard/settings/audit" role="search">
    <div>
      <label for="who">Who</label
      ><input id="who" name="who" value="${f.who}" placeholder="An email, a key prefix, an id" />
    </div>
    ${select('action', 'Action', actions)}
    <div><label for="from">From</label><input type="date" id="from" name="from" value="${f.from}" /></div>
    <div><label for="to">To</label><input type="date" id="to" name="to" value="${f.to}" /></div>
    <button type="submit">Show</button>
  </form>`;
}

function exportForm(f: AuditFilterText) {
  const hidden = Object.entries(f)
    .filter(([, v]) => v !== '')
    .map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`);
  return html`<form method="get" action="/dashboard/settings/audit.csv">
    ${hidden}<button type="submit" class="secondary">Export CSV</button>
  </form>`;
}

export function auditPage(opts: {
  user: ReturnType<typeof userFrame>;
  flash?: Flash;
  filter: AuditFilterText;
  list: List;
}): string {
  const { data, pagination: p } = opts.list;
  const rows = data.map(
    (e) =>
      html`<tr data-event-id="${e.id}">
        <td class="small">${dateTime(e.occurredAt)}</td>
        <td>${actorText(e)}</td>
        <td class="mono">${e.action}</td>
        <td class="small mono">${e.target ? `${e.target.type} ${e.target.id}` : ''}</td>
        <td class="small opt">${e.ip ?? ''}</td>
        <td class="small opt mono">${JSON.stringify(e.changes)}</td>
      </tr>`,
  );
  const list =
    data.length === 0
      ? emptyState('No events match.', 'no-results')
      : table({
          id: 'audit-events',
          label: 'Audit events table',
          columns: [
            'When',
            'Who',
            'Action',
            'Target',
            { label: 'From', opt: true },
            { label: 'Changes', opt: true },
          ],
          rows,
        });
  return settingsPage(
    { user: opts.user, title: 'Audit log', current: 'audit' },
    html`<h1>Audit log</h1>
      ${notice(opts.flash)}
      <p class="muted">
        Every change to the organisation, who made it and from where. The events are chained: an operator
        checks that none was edited or removed with <code>certsvc audit verify</code>.
      </p>
      <section class="card" aria-label="Audit events">
        ${filterForm(opts.filter)}
        <div class="actions">${exportForm(opts.filter)}</div>
        <p class="small muted" id="total">
          ${p.total.toLocaleString('en-US')} event${p.total === 1 ? '' : 's'}
        </p>
        ${list} ${pager(p, (page) => `/dashboard/settings/audit${auditQuery(opts.filter, page)}`)}
      </section>`,
  );
}
