import { AT_ONCE_ROWS, MAX_IMPORT_ROWS, type ImportView } from '../../modules/imports/imports.service.js';
import { csrfField, dateTime, type Flash } from '../html.js';
import { html, type Html } from '../../platform/html.js';
import type { userFrame } from '../session.js';
import { badge, tableOrEmpty, titledPage } from './components.js';
import { failureSummary, retryFailed } from './quota.js';
import { can } from '../../modules/shared/roles.js';

// Imports (docs/dashboard.md, Imports): the account's imports, and one import's live progress.

type User = ReturnType<typeof userFrame>;
const FINAL = new Set(['done', 'cancelled', 'failed']);

function duration(seconds: number | null): string {
  if (seconds === null) return '–';
  if (seconds < 60) return `${seconds} s`;
  const m = Math.floor(seconds / 60);
  return `${m} min ${seconds % 60} s`;
}

function stateBadge(state: ImportView['state']): Html {
  return html`<span
    class="badge ${state === 'done' ? 'created' : state === 'running' ? 'sending' : state}"
    id="import-state"
    >${state}</span
  >`;
}

function importRow(i: ImportView): Html {
  return html`<tr data-import-id="${i.id}">
    <td><a href="/dashboard/imports/${i.id}">${i.fileName}</a></td>
    <td>${badge(i.state === 'done' ? 'created' : i.state, i.state)}</td>
    <td class="num">${i.done.toLocaleString('en-US')} / ${i.rows.toLocaleString('en-US')}</td>
    <td class="num">${i.created.toLocaleString('en-US')}</td>
    <td class="num">${i.failed.toLocaleString('en-US')}</td>
    <td class="small opt">${dateTime(i.createdAt)}</td>
  </tr>`;
}

export function importsPage(opts: { user: User; flash?: Flash; imports: ImportView[] }): string {
  return titledPage({
    title: 'Imports',
    section: 'certificates',
    user: opts.user,
    flash: opts.flash,
    body: html` <p>
        Every CSV file uploaded is an import: one of up to ${AT_ONCE_ROWS} rows is issued at once, while you
        wait; larger ones (up to ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows) are issued in the
        background, on every instance of the service.
        <a href="/dashboard/certificates/upload">Upload a file</a>
      </p>
      <section class="card">
        ${tableOrEmpty(opts.imports, 'No imports yet.', {
          id: 'imports',
          columns: ['File', 'State', 'Rows done', 'Created', 'Failed', { label: 'Uploaded', opt: true }],
          row: importRow,
        })}
      </section>`,
  });
}

export function importPage(opts: {
  user: User;
  flash?: Flash;
  imp: ImportView;
  templateName: string | undefined;
  csrf: string;
  emailDelivery: boolean;
  reasons: { reason: string; rows: number }[];
}): string {
  const i = opts.imp;
  const final = FINAL.has(i.state);
  const base = `/dashboard/imports/${i.id}`;
  const mayIssue = can(opts.user.role, 'issue');
  return titledPage({
    title: `Import ${i.fileName}`,
    section: 'certificates',
    user: opts.user,
    flash: opts.flash,
    heading: html`Import of <bdi>${i.fileName}</bdi>`,
    body: html`${failureSummary(i.failed, opts.reasons)}
      ${i.retryOf ? html`<p class="small" id="retry-of">This import retries the failed rows of <a href="/dashboard/imports/${i.retryOf}">an earlier import</a>.</p>` : ''}
      <section class="card" ${final ? '' : html`data-import-progress="${base}/progress.json"`}>
        <p>
          ${stateBadge(i.state)} from <bdi>${opts.templateName ?? 'an archived template'}</bdi>, uploaded
          ${dateTime(i.createdAt)}
        </p>
        <label for="import-bar"
          >Rows done: <span id="import-done">${i.done.toLocaleString('en-US')}</span> of
          ${i.rows.toLocaleString('en-US')}</label
        >
        <progress
          id="import-bar"
          class="bar"
          role="progressbar"
          aria-valuemin="0"
          aria-valuenow="${i.done}"
          aria-valuemax="${i.rows}"
          value="${i.done}"
          max="${i.rows}"
        ></progress>
        <dl class="facts" aria-live="polite">
          <dt>Created</dt>
          <dd id="import-created">${i.created.toLocaleString('en-US')}</dd>
          <dt>Failed</dt>
          <dd id="import-failed">${i.failed.toLocaleString('en-US')}</dd>
          <dt>Rows per second</dt>
          <dd id="import-rate">
            ${i.rowsPerSecond === null ? '–' : i.rowsPerSecond.toLocaleString('en-US')}
          </dd>
          <dt>Time left</dt>
          <dd id="import-left">${final ? '–' : duration(i.secondsLeft)}</dd>
        </dl>
        ${i.error ? html`<div class="notice error" role="alert">${i.error}</div>` : ''}
      </section>
      <div class="actions">
        <a class="button" href="${base}/results.csv" download>Download the results (CSV)</a>
        ${
          i.created > 0
            ? html`<a class="button secondary" id="download-zip" href="${base}/pdfs.zip" download
                >Download PDFs (ZIP)</a
              >`
            : ''
        }
        ${
          final && i.created > 0 && opts.emailDelivery && mayIssue
            ? i.emailedAt
              ? html`<p class="small muted" id="emailed">The created certificates were queued for email.</p>`
              : html`<form method="post" action="${base}/email" id="email-all">
                  ${csrfField(opts.csrf)}
                  <button type="submit" class="secondary">Email all created</button>
                </form>`
            : ''
        }
        ${
          final || !mayIssue
            ? ''
            : html`<form method="post" action="${base}/cancel">
                ${csrfField(opts.csrf)}
                <button type="submit" class="secondary" id="cancel-import">Cancel the import</button>
              </form>`
        }
        ${retryFailed(i, { csrf: opts.csrf, role: opts.user.role, final })}
        <a class="button secondary" href="/dashboard/imports">All imports</a>
      </div>`,
  });
}
