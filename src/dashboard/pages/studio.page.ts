import type { GalleryDesign } from '../../modules/templates/gallery.js';
import type { TemplateVersion, WorkingTemplate } from '../../modules/templates/templates.views.js';
import { csrfField, dateTime, page, typed, type Flash } from '../html.js';
import { html, when } from '../../platform/html.js';
import type { userFrame } from '../session.js';
import { confirmForm, table, titledPage } from './components.js';
import { statusBadge } from './templates.page.js';

type User = ReturnType<typeof userFrame>;

function orientation(d: { page: { width: number; height: number } }) {
  return d.page.width >= d.page.height ? 'landscape' : 'portrait';
}

// "New template": the built-in starting designs, each a button named after the design.
export function galleryPage(opts: { user: User; flash?: Flash; designs: GalleryDesign[] }): string {
  const entries = opts.designs.map(
    (g) =>
      html`<li class="card gallery-entry">
        <iframe
          class="preview ${orientation(g.design)}"
          src="/dashboard/templates/gallery/${g.slug}/preview.pdf#toolbar=0&navpanes=0&view=Fit"
          title="Preview of ${g.design.name}"
          loading="lazy"
        ></iframe>
        <p class="small muted" dir="auto">${g.design.description ?? ''}</p>
        <form method="post" action="/dashboard/templates/new">
          ${csrfField(opts.user.csrf)}
          <input type="hidden" name="design" value="${g.slug}" />
          <button type="submit">${g.design.name}</button>
        </form>
      </li>`,
  );
  return titledPage({
    title: 'New template',
    section: 'templates',
    user: opts.user,
    flash: opts.flash,
    body: html` <p>
        Start from one of these designs. The new template is a draft: the API does not see it until you
        publish it.
      </p>
      <ul class="gallery" aria-label="Starting designs">
        ${entries}
      </ul>`,
  });
}

export function historyPage(opts: {
  user: User;
  flash?: Flash;
  template: WorkingTemplate;
  versions: TemplateVersion[];
}): string {
  const t = opts.template;
  const base = `/dashboard/templates/${t.id}`;
  const rows = opts.versions.map(
    (v) =>
      html`<tr data-version="${v.version}">
        <td class="num">${v.version}</td>
        <td>${typed(v.name)}</td>
        <td>
          ${v.note}
          ${when(v.version === t.version && t.status === 'active', () => html`<span class="badge active">Published</span>`)}
        </td>
        <td>${dateTime(v.createdAt)}</td>
        <td>
          <div class="actions">
            <a href="${base}/preview.pdf?version=${v.version}" target="_blank" rel="noopener"
              >Preview version ${v.version}</a
            >
            <form method="post" action="${base}/versions/${v.version}/restore">
              ${csrfField(opts.user.csrf)}
              <button type="submit" class="secondary">Restore version ${v.version}</button>
            </form>
          </div>
        </td>
      </tr>`,
  );
  return titledPage({
    title: `History of ${t.name}`,
    section: 'templates',
    user: opts.user,
    flash: opts.flash,
    heading: html`History of ${typed(t.name)}`,
    body: html` <p>${statusBadge(t)} <a href="${base}/edit">Back to the editor</a></p>
      <p class="muted small">
        Every save is a version. Restoring copies that version as the newest; publish it to issue with it.
        Certificates already issued keep their PDFs.
      </p>
      ${table({
        wrap: 'card table-wrap',
        columns: ['Version', 'Name', 'What', 'Saved', 'Actions'],
        rows,
      })}`,
  });
}

export function confirmArchivePage(opts: { user: User; template: WorkingTemplate }): string {
  const t = opts.template;
  return page({
    title: 'Archive template',
    section: 'templates',
    user: opts.user,
    body: html`<h1>Archive ${typed(t.name)}?</h1>
      <div class="card">
        <p>
          The template disappears from the dashboard and the API: nothing more can be issued with it.
          Certificates already issued stay valid and keep their PDFs. This cannot be undone here.
        </p>
        ${confirmForm({
          action: `/dashboard/templates/${t.id}/archive`,
          csrf: opts.user.csrf,
          button: 'Archive the template',
          cancel: '/dashboard/templates',
        })}
      </div>`,
  });
}
