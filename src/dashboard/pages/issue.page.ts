import type { TemplateView } from '../../modules/templates/templates.schemas.js';
import {
  AT_ONCE_ROWS,
  MAX_IMPORT_ROWS,
  type ImportView,
  type RowView,
} from '../../modules/imports/imports.service.js';
import { EXPIRY_COLUMN, MAX_CSV_SIZE } from '../../modules/imports/recipients-csv.js';
import type { UsageView } from '../../modules/usage/usage.schemas.js';
import { csrfField, date, notice, page, typed, type Flash } from '../html.js';
import { html, type Html } from '../../platform/html.js';
import type { userFrame } from '../session.js';
import { badge, select, table, titledPage } from './components.js';
import { count, failureSummary, retryFailed } from './quota.js';

// Issuing from the dashboard: one certificate from a form, many from a CSV file, and the results
// of a file issued at once.

type User = ReturnType<typeof userFrame>;
type Issue = { path: (string | number)[]; message: string };

function templateChooser(action: string, templates: TemplateView[], chosen?: TemplateView): Html {
  if (templates.length === 0) {
    return html`<div class="card">
      <p>
        This account has no active templates yet. The operator adds them with
        <code>certsvc template create</code>.
      </p>
    </div>`;
  }
  const options = templates.map((t) => ({ value: t.id, label: t.name, selected: t.id === chosen?.id }));
  return html`<form class="card filters" method="get" action="${action}">
    ${select('templateId', 'Template', options)}
    <button type="submit" class="secondary">${chosen ? 'Change template' : 'Choose'}</button>
  </form>`;
}

function errorText(issues: Issue[], path: string): string | undefined {
  return (
    issues
      .filter((i) => i.path.slice(1).join('.') === path)
      .map((i) => i.message)
      .join('; ') || undefined
  );
}

function input(opts: {
  id: string;
  name: string;
  label: Html | string;
  type?: string;
  value?: string;
  required?: boolean;
  error?: string;
  hint?: string;
  auto?: boolean;
  min?: string;
}): Html {
  const describedBy = opts.error ? html` aria-invalid="true" aria-describedby="${opts.id}-error"` : '';
  return html`<label for="${opts.id}"
      >${opts.label}${opts.required ? '' : html` <span class="hint">Optional</span>`}${opts.hint ? html` <span class="hint">${opts.hint}</span>` : ''}</label
    >
    <input
      type="${opts.type ?? 'text'}"
      id="${opts.id}"
      name="${opts.name}"
      value="${opts.value ?? ''}"
      ${opts.required ? html` required` : ''}${opts.auto ? html` dir="auto"` : ''}${opts.min ? html` min="${opts.min}"` : ''}${describedBy}
    />
    ${opts.error ? html`<div class="notice error small" id="${opts.id}-error">${opts.error}</div>` : ''}`;
}

/** The columns of the table that shows a list field, in order: one line of the form per item. */
export type ListColumns = Record<string, { key: string; label: string }[]>;

// A list field (a table on the certificate's second page): one item per line, its values separated by
// semicolons in the table's column order.
function listInput(
  f: { key: string; label: string; required: boolean },
  columns: { key: string; label: string }[] | undefined,
  value: string | undefined,
  issues: Issue[],
): Html {
  const id = `data-${f.key}`;
  const error = issues
    .filter((i) => i.path[1] === 'data' && i.path[2] === f.key)
    .map((i) => i.message)
    .join('; ');
  const order = columns?.length
    ? `One item per line, its values separated by semicolons: ${columns.map((c) => c.label).join('; ')}.`
    : 'A JSON array of items, e.g. [{"name": "Unit 1", "hours": 6}] (no table on the certificate shows this list).';
  const describedBy = error ? html` aria-invalid="true" aria-describedby="${id}-error"` : '';
  return html`<label for="${id}"
      >${typed(f.label)}${f.required ? '' : html` <span class="hint">Optional</span>`}
      <span class="hint">${order}</span></label
    >
    <textarea
      id="${id}"
      name="data.${f.key}"
      rows="6"
      dir="auto"
      ${f.required ? html` required` : ''}${describedBy}
    >
${value ?? ''}</textarea>
    ${error ? html`<div class="notice error small" id="${id}-error">${error}</div>` : ''}`;
}

/** What an expiry left empty gives: the template's validity from now, or null (no expiry). */
export interface DefaultExpiry {
  today: string;
  byValidity: { at: string; validity: string } | null;
}

// The form's expiry: a day (the end of it, UTC), else the template's validity, as the hint says.
function expiryInput(expiry: DefaultExpiry | undefined, value: string | undefined, issues: Issue[]): Html {
  const passed =
    errorText(issues, 'expiresAt') && 'must be today or a later day (it must be after the issue)';
  const leftEmpty = expiry?.byValidity
    ? html`Leave empty: expires on ${date(expiry.byValidity.at)} (template: ${expiry.byValidity.validity}).`
    : html`Leave empty: does not expire (the template sets no validity).`;
  return html`${input({
      id: 'expiresOn',
      name: 'expiresOn',
      label: 'Expires on',
      type: 'date',
      value,
      min: expiry?.today,
      error: errorText(issues, 'expiresOn') ?? passed,
      hint: 'The certificate expires at the end of that day (UTC).',
    })}
    <p class="small muted" id="expiry-default">${leftEmpty}</p>`;
}

export function issueOnePage(opts: {
  user: User;
  templates: TemplateView[];
  template?: TemplateView;
  expiry?: DefaultExpiry;
  lists?: ListColumns;
  values: Record<string, string>;
  error?: string;
  issues?: Issue[];
}): string {
  const t = opts.template;
  const issues = opts.issues ?? [];
  const fields = t
    ? html`<form class="card" method="post" action="/dashboard/certificates/new">
        ${csrfField(opts.user.csrf)}<input type="hidden" name="templateId" value="${t.id}" />
        ${input({ id: 'name', name: 'name', label: 'Recipient name', value: opts.values.name, required: true, error: errorText(issues, 'name'), auto: true, hint: 'As it should be printed, in any script.' })}
        ${input({ id: 'email', name: 'email', label: 'Recipient email', type: 'email', value: opts.values.email, required: true, error: errorText(issues, 'email') })}
        ${t.fields.map((f) =>
          f.type === 'list'
            ? listInput(f, opts.lists?.[f.key], opts.values[`data.${f.key}`], issues)
            : input({
                id: `data-${f.key}`,
                name: `data.${f.key}`,
                label: typed(f.label),
                value: opts.values[`data.${f.key}`],
                required: f.required,
                error: errorText(issues, `data.${f.key}`),
                auto: true,
              }),
        )}
        ${expiryInput(opts.expiry, opts.values.expiresOn, issues)}
        <div class="actions"><button type="submit">Issue the certificate</button></div>
        <p class="small muted">
          Issuing uses one certificate of this month's quota. The PDF is rendered once and frozen.
        </p>
      </form>`
    : '';
  return page({
    title: 'Issue a certificate',
    section: 'certificates',
    user: opts.user,
    body: html`<h1>Issue a certificate</h1>
      ${opts.error ? html`<div class="notice error" role="alert" id="form-error">${opts.error}</div>` : ''}
      ${templateChooser('/dashboard/certificates/new', opts.templates, t)} ${fields}`,
  });
}

export function uploadPage(opts: {
  user: User;
  flash?: Flash;
  templates: TemplateView[];
  template?: TemplateView;
  usage: UsageView;
  error?: string;
}): string {
  const left = opts.usage.certificates.remaining;
  const t = opts.template;
  const header = t ? ['name', 'email', ...t.fields.map((f) => f.key)].join(',') : '';
  const form = t
    ? html`<form
        class="card"
        method="post"
        action="/dashboard/certificates/upload"
        enctype="multipart/form-data"
      >
        ${csrfField(opts.user.csrf)}<input type="hidden" name="templateId" value="${t.id}" />
        <h2>The file</h2>
        <p id="upload-limits">
          A CSV file with a header row, then one row per recipient: at most ${count(MAX_IMPORT_ROWS)} rows and
          ${MAX_CSV_SIZE}. A file of up to ${count(AT_ONCE_ROWS)} rows is issued while you wait; a larger one
          is issued in the background, on its import's page.
        </p>
        <p id="upload-quota">
          ${
            left === null
              ? 'This account has no monthly limit (partner contract).'
              : html`This period has <strong>${count(left)}</strong> certificate${left === 1 ? '' : 's'} left.
                  A file with more rows is not issued before you choose to issue the first ${count(left)} or
                  cancel.`
          }
        </p>
        <p>Its header for <bdi>${t.name}</bdi>:</p>
        <code class="newkey" id="csv-header">${header}</code>
        <ul class="small">
          <li>
            <code>name</code> and <code>email</code> first, then one column per template
            field${t.fields.length ? html` (${t.fields.map((f, i) => html`${i ? ', ' : ''}<code>${f.key}</code>${f.required ? ' required' : ''}`)})` : ''}.
          </li>
          ${
            t.fields.some((f) => f.key === EXPIRY_COLUMN)
              ? ''
              : html`<li id="csv-expiry">
                  Optional: a column <code>${EXPIRY_COLUMN}</code>, the row's own expiry: a date
                  (<code>2028-11-27</code>: the end of that day, UTC) or a date-time with a time zone
                  (<code>2028-11-27T17:00:00+01:00</code>). Empty: the template's validity. A bad or past
                  value fails that row with its reason.
                </li>`
          }
          <li>
            UTF-8, with or without a byte-order mark (“CSV UTF-8” in spreadsheet programs); commas or
            semicolons.
          </li>
          <li>
            Each valid row uses one certificate of this month's quota; a bad row is reported and issues
            nothing.
          </li>
        </ul>
        <label for="file">CSV file</label>
        <input type="file" id="file" name="file" accept=".csv,text/csv" required />
        <div class="actions"><button type="submit">Upload and issue</button></div>
      </form>`
    : '';
  return page({
    title: 'Issue many from a CSV file',
    section: 'certificates',
    user: opts.user,
    body: html`<h1>Issue many from a CSV file</h1>
      ${notice(opts.flash)}
      ${opts.error ? html`<div class="notice error" role="alert" id="form-error">${opts.error}</div>` : ''}
      ${templateChooser('/dashboard/certificates/upload', opts.templates, t)} ${form}`,
  });
}

// The results of an upload issued at once: one row per line of the file, in file order.
export function resultsPage(opts: {
  user: User;
  flash?: Flash;
  imp: ImportView;
  templateName: string;
  rows: RowView[];
  reasons: { reason: string; rows: number }[];
  emailDelivery: boolean;
}): string {
  const b = opts.imp;
  const base = `/dashboard/certificates/upload/results/${b.id}`;
  // Uploads from a template with emailOnIssue were emailed with the issue; the others can be, once.
  const emailAll =
    b.created === 0 || !opts.emailDelivery
      ? ''
      : b.emailedAt
        ? html`<p class="small muted" id="emailed">The created certificates were queued for email.</p>`
        : html`<form method="post" action="${base}/email" id="email-all">
            ${csrfField(opts.user.csrf)}
            <button type="submit" class="secondary">Email all created</button>
          </form>`;
  const row = (r: RowView) =>
    html`<tr class="${r.status}" data-row="${r.line}">
      <td class="num">${r.line}</td>
      <td>
        ${typed(r.name)}
        <div class="small muted">${r.email}</div>
      </td>
      <td>${badge(r.status ?? '')}</td>
      <td>
        ${r.status === 'created' ? html`<a href="/dashboard/certificates/${r.certificateId}">${r.uniqueCode}</a>` : html`<span class="reason">${r.reason}</span>`}
      </td>
    </tr>`;
  return titledPage({
    title: 'Upload results',
    section: 'certificates',
    user: opts.user,
    flash: opts.flash,
    body: html` <div class="notice ${b.failed ? 'warn' : 'ok'}" role="status" id="batch-summary">
        <strong id="created-count">${b.created}</strong> created,
        <strong id="failed-count">${b.failed}</strong> failed, from <bdi>${opts.templateName}</bdi>.
      </div>
      ${failureSummary(b.failed, opts.reasons)}
      <div class="actions">
        <a class="button" href="${base}/results.csv" download>Download the results (CSV)</a>${
          b.created > 0
            ? html`<a class="button secondary" id="download-zip" href="${base}/pdfs.zip" download
                >Download PDFs (ZIP)</a
              >`
            : ''
        }<a class="button secondary" href="/dashboard/certificates/upload">Upload another file</a>
      </div>
      ${emailAll} ${retryFailed(b, { csrf: opts.user.csrf, role: opts.user.role, final: true })}
      <section class="card">
        ${table({
          id: 'batch-results',
          columns: ['Row', 'Recipient', 'Result', 'Certificate or reason'],
          rows: opts.rows.map(row),
        })}
      </section>`,
  });
}
