import type { WorkingTemplate } from '../../modules/templates/templates.views.js';
import { csrfField, typed, type Flash } from '../html.js';
import { html, when } from '../../platform/html.js';
import type { userFrame } from '../session.js';
import { table, titledPage } from './components.js';
import { can } from '../../modules/shared/roles.js';

type User = ReturnType<typeof userFrame>;

export function statusBadge(t: Pick<WorkingTemplate, 'status' | 'version' | 'latestVersion'>) {
  if (t.status === 'draft') return html`<span class="badge Draft">Draft</span>`;
  return html`<span class="badge active">Published</span> ${when(
      t.latestVersion > t.version,
      () => html`<span class="badge queued">Unpublished changes</span>`,
    )}`;
}

function card(t: WorkingTemplate, user: User) {
  const fields =
    t.fields.length === 0
      ? html`<p class="muted small">No fields: only the recipient's name and email.</p>`
      : table({
          wrap: false,
          className: 'small',
          columns: ['Field', 'Label', 'Required'],
          rows: t.fields.map(
            (f) =>
              html`<tr>
                <td><code>${f.key}</code></td>
                <td>${typed(f.label, 'span')}</td>
                <td>${f.required ? 'yes' : 'no'}</td>
              </tr>`,
          ),
        });
  const base = `/dashboard/templates/${t.id}`;
  const preview = `${base}/preview.pdf`;
  // What the role may do with it: design (the studio) and issue.
  const design = can(user.role, 'design');
  return html`<article class="card" data-template-id="${t.id}" aria-labelledby="t-${t.id}">
    <h2 id="t-${t.id}" dir="auto">${t.name}</h2>
    <p class="small">${statusBadge(t)} <span class="muted">version ${t.version}</span></p>
    ${t.description ? html`<p class="muted" dir="auto">${t.description}</p>` : ''}
    <iframe
      class="preview"
      src="${preview}#toolbar=0&navpanes=0&view=Fit"
      title="Preview of ${t.name} with sample values"
      loading="lazy"
    ></iframe>
    <p class="small">
      <a href="${preview}" target="_blank" rel="noopener">Open the preview PDF</a> · sample values, nothing is
      issued
    </p>
    <h3 class="small muted">Fields</h3>
    ${fields}
    <div class="actions">
      ${when(design, () => html`<a class="button" href="${base}/edit">Edit</a>`)}
      ${when(
        t.status === 'active' && can(user.role, 'issue'),
        () =>
          html`<a class="button secondary" href="/dashboard/certificates/new?templateId=${t.id}">Issue one</a>
            <a class="button secondary" href="/dashboard/certificates/upload?templateId=${t.id}"
              >Issue many (CSV)</a
            >`,
      )}
      ${when(
        design,
        () =>
          html`<a class="button secondary" href="${base}/history">History</a>
            <form method="post" action="${base}/duplicate">
              ${csrfField(user.csrf)}<button type="submit" class="secondary">Duplicate</button>
            </form>
            <a class="button secondary" href="${base}/archive">Archive</a>`,
      )}
    </div>
  </article>`;
}

export function templatesPage(opts: { user: User; flash?: Flash; templates: WorkingTemplate[] }): string {
  const body =
    opts.templates.length === 0
      ? html`<div class="card">
          <p>
            This account has no templates yet. Start one from a built-in design with “New template”, or have
            the operator add one with <code>certsvc template create</code>.
          </p>
        </div>`
      : html`<div class="templates">${opts.templates.map((t) => card(t, opts.user))}</div>`;
  return titledPage({
    title: 'Templates',
    section: 'templates',
    user: opts.user,
    flash: opts.flash,
    body: html` ${when(
      can(opts.user.role, 'design'),
      () => html`<p><a class="button" href="/dashboard/templates/new">New template</a></p>`,
    )}
    ${body}`,
  });
}
