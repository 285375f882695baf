import type { Design } from '../../pdf/design.schema.js';
import { sampleValues } from '../../pdf/pdf-renderer.js';
import type { WorkingTemplate } from '../../modules/templates/templates.views.js';
import { PDFJS_FILES, STUDIO_SCRIPT_PATH } from '../studio-assets.js';
import { csrfField, dateTime, typed, type Flash } from '../html.js';
import { html, longText, safe, type Html } from '../../platform/html.js';
import { LANGUAGES } from '../../platform/i18n/i18n.js';
import type { userFrame } from '../session.js';
import { badgeSection } from './badge-section.js';
import { titledPage } from './components.js';
import { statusBadge } from './templates.page.js';

type User = ReturnType<typeof userFrame>;

// The design tools, shown by the script (hidden without it).
function toolbar(d: Design): Html {
  return html`<div class="studio-toolbar" role="toolbar" aria-label="Design tools" hidden>
    <button type="button" class="secondary" data-action="undo" disabled>Undo</button>
    <button type="button" class="secondary" data-action="redo" disabled>Redo</button>
    <button type="button" class="secondary" data-action="add-text">Add text</button>
    <button type="button" class="secondary" data-action="add-rect">Add rectangle</button>
    <button type="button" class="secondary" data-action="add-qr">Add QR code</button>
    <button type="button" class="secondary" data-action="add-line">Add line</button>
    <button type="button" class="secondary" data-action="duplicate" disabled>Duplicate element</button>
    <button type="button" class="secondary" data-action="delete" disabled>Delete element</button>
    <button type="button" class="secondary" data-action="add-page">Add page</button>
    <button type="button" class="secondary" data-action="remove-page">Remove page 2</button>
    <button type="button" class="secondary" data-action="add-table">Add table</button>
    <span class="studio-pages" role="group" aria-label="Page shown">
      <button type="button" class="secondary" data-show-page="1" aria-pressed="true">Page 1</button>
      <button type="button" class="secondary" data-show-page="2" aria-pressed="false">Page 2</button>
    </span>
    <button
      type="button"
      class="secondary"
      id="studio-settings-button"
      aria-controls="studio-settings"
      aria-expanded="false"
    >
      Settings
    </button>
    <label class="inline"
      >Page
      <select data-action="page-size">
        <option value="842x595">A4 landscape</option>
        <option value="595x842">A4 portrait</option>
        <option value="792x612">US Letter landscape</option>
        <option value="612x792">US Letter portrait</option>
      </select></label
    >
    <label class="inline"
      >Add image <input type="file" accept="image/png,image/jpeg" data-upload="image"
    /></label>
    <label class="inline"
      >Background image <input type="file" accept="image/png,image/jpeg" data-upload="background"
    /></label>
    <button type="button" class="secondary" data-action="remove-background" disabled>
      Remove background image
    </button>
    <label class="inline"
      >Add font <input type="file" accept=".ttf,.otf,font/ttf,font/otf" data-upload="font"
    /></label>
    <label class="inline"
      >Background colour
      <input type="color" data-action="background" value="${d.background?.color ?? '#ffffff'}"
    /></label>
  </div>`;
}

// Unsaved edits autosaved after the newest version (issue 30): restore them or discard them; once
// restored, a reminder that they are not saved yet.
function draftNotice(
  base: string,
  csrf: string,
  draft: { savedAt: Date; restored: boolean } | undefined,
): Html {
  if (!draft) return html``;
  const when = dateTime(draft.savedAt.toISOString());
  if (draft.restored) {
    return html`<p class="card notice" role="status" id="draft-notice">
      The unsaved changes from ${when} are restored: save them to keep them.
    </p>`;
  }
  return html`<div class="card notice actions" id="draft-notice">
    <span class="small">You left this template with changes that were not saved (autosaved ${when}).</span>
    <a class="button" href="${base}/edit?draft=1">Restore unsaved changes from ${when}</a>
    <form method="post" action="${base}/draft/discard">
      ${csrfField(csrf)}
      <button type="submit" class="secondary">Discard</button>
    </form>
  </div>`;
}

// The studio (issue 18). Without JavaScript it is a working page: the preview PDF in a frame, the
// design as JSON to edit, Save and Publish, the sample values and "Download preview PDF". The
// script (src/browser/studio/) draws the real PDF with pdf.js in the design canvas, puts a box over
// each element and edits the same JSON, which Save sends.
export function editorPage(opts: {
  user: User;
  flash?: Flash;
  template: WorkingTemplate;
  design: Design;
  // The JSON as typed when a save was refused, so nothing is lost.
  designText?: string;
  fonts: string[];
  /** The user's autosaved unsaved edits, newer than the newest version: offered, or restored. */
  draft?: { savedAt: Date; restored: boolean };
  /** Seconds between autosaves of unsaved edits. */
  autosaveS: number;
  hasBadge?: boolean; // a badge image of its own (the Settings panel's Badge section)
}): string {
  const t = opts.template;
  const d = opts.design;
  const base = `/dashboard/templates/${t.id}`;
  const sample = sampleValues(d);
  const json = opts.designText ?? JSON.stringify(d, null, 2);
  // A list field's sample rows are not typed in (sample-values.ts).
  const typedFields = d.fields.filter((f) => f.type !== 'list');
  const sampleInputs = typedFields.map(
    (f) =>
      html`<label for="sample-${f.key}">${typed(f.label)}</label>
        <input
          type="text"
          id="sample-${f.key}"
          name="data.${f.key}"
          data-sample-field="${f.key}"
          placeholder="${sample.data[f.key] ?? ''}"
          dir="auto"
        />`,
  );
  return titledPage({
    title: `Edit ${t.name}`,
    section: 'templates',
    user: opts.user,
    flash: opts.flash,
    scripts: [STUDIO_SCRIPT_PATH],
    heading: html`Edit ${typed(t.name)}`,
    body: html` <div class="actions studio-head">
        <span class="small"
          >${statusBadge(t)} <span class="muted">version ${t.latestVersion} saved</span> ·
          <a href="${base}/history">History</a> · <a href="/dashboard/templates">All templates</a></span
        >
        <button type="submit" form="design-form" name="intent" value="save">Save</button>
        <button type="submit" form="design-form" name="intent" value="publish" class="secondary">
          Publish
        </button>
      </div>
      ${draftNotice(base, opts.user.csrf, opts.draft)}
      <div
        class="studio"
        id="studio"
        data-template-id="${t.id}"
        data-preview-url="${base}/preview.pdf"
        data-fonts="${opts.fonts.join(',')}"
        data-pdfjs="${PDFJS_FILES.main.path}"
        data-pdfjs-worker="${PDFJS_FILES.worker.path}"
        data-locales="${LANGUAGES.join(',')}"
        data-draft-url="${base}/draft"
        data-autosave-seconds="${String(opts.autosaveS)}"
        ${safe(opts.draft?.restored ? 'data-unsaved="draft"' : opts.designText !== undefined ? 'data-unsaved="refused"' : '')}
      >
        <section class="studio-stage" aria-label="Page">
          ${toolbar(d)}
          <div class="design-canvas" id="design-canvas" data-testid="design-canvas">
            <iframe
              class="preview studio-fallback"
              src="${base}/preview.pdf?latest=1#toolbar=0&navpanes=0&view=Fit"
              title="Preview of the newest saved design"
            ></iframe>
          </div>
          <p class="small muted" id="studio-status" role="status" aria-live="polite"></p>
          <p class="small muted studio-keys" id="studio-keys" hidden>
            Drag an element to move it, or a handle on its corners or sides to resize it from the opposite
            side (Shift keeps an image's or rectangle's proportions). Keyboard: Tab to an element or choose it
            in the list; arrows move it by 1 pt (Shift: 10 pt); Alt+arrows resize it from its right or bottom
            side (Alt+Shift: 10 pt); Delete removes it; Ctrl+Z and Ctrl+Shift+Z undo and redo. Text properties
            apply as you type.
          </p>
        </section>
        <aside class="studio-side">
          <section class="card studio-settings" id="studio-settings" hidden aria-labelledby="settings-title">
            <div class="actions">
              <h2 id="settings-title">Settings</h2>
              <button type="button" class="secondary" data-settings-close>Close settings</button>
            </div>
            <div id="studio-settings-body"></div>
            ${badgeSection(t.id, opts.hasBadge === true)}
          </section>
          <section class="card studio-outline" hidden aria-labelledby="outline-title">
            <h2 id="outline-title">Elements</h2>
            <ol class="outline" id="studio-outline"></ol>
          </section>
          <section class="card studio-props" hidden aria-labelledby="props-title">
            <h2 id="props-title">Selected element</h2>
            <div id="studio-props">
              <p class="muted small">Select an element on the page or in the list.</p>
            </div>
          </section>
          <section class="card studio-signatories" hidden aria-labelledby="signatories-title">
            <h2 id="signatories-title">Signatories</h2>
            <p class="small muted">
              Up to five people who sign, printed on the PDF as a block (signature image, line, name, title).
              Removing a signatory also removes its blocks from the page.
            </p>
            <div id="studio-signatories"></div>
            <button type="button" class="secondary" data-action="add-signatory">Add signatory</button>
          </section>
          <section class="card studio-fields" hidden aria-labelledby="fields-title">
            <h2 id="fields-title">Fields</h2>
            <div id="studio-fields"></div>
            <button type="button" class="secondary" data-action="add-field">Add field</button>
          </section>
          <form class="card" method="get" action="${base}/preview.pdf" id="sample-form" target="_blank">
            <h2>Sample values</h2>
            <p class="small muted">Only for the preview: nothing is issued.</p>
            <input type="hidden" name="latest" value="1" />
            <label for="sample-name">Recipient name</label>
            <input
              type="text"
              id="sample-name"
              name="recipientName"
              data-sample-name
              placeholder="${sample.recipientName}"
              dir="auto"
            />
            <div id="sample-fields">${sampleInputs}</div>
            <div class="actions">
              <button type="submit" name="download" value="1" class="secondary">Download preview PDF</button>
            </div>
          </form>
          <a class="studio-jump" href="#design-canvas">Preview</a>
        </aside>
      </div>
      <form method="post" action="${base}/edit" enctype="multipart/form-data" id="design-form">
        ${csrfField(opts.user.csrf)}
        <details class="card" ${safe(opts.designText === undefined || opts.draft?.restored ? '' : 'open')}>
          <summary>Edit as JSON</summary>
          <label for="design-json"
            >The design
            <span class="hint">The format of docs/design-format.md, checked like certsvc does.</span></label
          >
          <textarea id="design-json" name="design" rows="18" spellcheck="false" class="mono">
${longText(json)}</textarea>
        </details>
      </form>`,
  });
}
