import type { TemplateView } from '../../modules/templates/templates.schemas.js';
import { html, notice, page, typed, type Flash } from '../html.js';
import type { userFrame } from '../session.js';

function card(t: TemplateView) {
  const fields =
    t.fields.length === 0
      ? html`<p class="muted small">No fields: only the recipient's name and email.</p>`
      : html`<table class="small">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Label</th>
              <th scope="col">Required</th>
            </tr>
          </thead>
          <tbody>
            ${t.fields.map(
              (f) =>
                html`<tr>
                  <td><code>${f.key}</code></td>
                  <td>${typed(f.label, 'span')}</td>
                  <td>${f.required ? 'yes' : 'no'}</td>
                </tr>`,
            )}
          </tbody>
        </table>`;
  const preview = `/dashboard/templates/${t.id}/preview.pdf`;
  return html`<article class="card" data-template-id="${t.id}" aria-labelledby="t-${t.id}">
    <h2 id="t-${t.id}" dir="auto">${t.name}</h2>
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
      <a class="button" href="/dashboard/certificates/new?templateId=${t.id}">Issue one</a>
      <a class="button secondary" href="/dashboard/certificates/upload?templateId=${t.id}"
        >Issue many (CSV)</a
      >
    </div>
  </article>`;
}

export function templatesPage(opts: {
  user: ReturnType<typeof userFrame>;
  flash?: Flash;
  templates: TemplateView[];
  total: number;
}): string {
  const body =
    opts.templates.length === 0
      ? html`<div class="card">
          <p>
            This account has no active templates yet. The operator adds them with
            <code>certsvc template create</code>.
          </p>
        </div>`
      : html`<div class="templates">${opts.templates.map(card)}</div>`;
  return page({
    title: 'Templates',
    section: 'templates',
    user: opts.user,
    body: html`<h1>Templates</h1>
      ${notice(opts.flash)}
      ${opts.total > opts.templates.length ? html`<p class="muted">Showing the ${opts.templates.length} newest of ${opts.total} templates.</p>` : ''}
      ${body}`,
  });
}
