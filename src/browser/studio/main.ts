import type { Design } from '../../pdf/design.schema.js';
import { wireKeyboard, wireToolbar } from './actions.js';
import { drawBoxes, drawOutline, previewRenderer } from './canvas.js';
import { $, type Studio } from './context.js';
import { drawFields } from './fields.js';
import { showJson, wireJson } from './json.js';
import { loadPdfJs } from './pdfjs.js';
import { drawPages, wirePages } from './pages.js';
import { drawProps } from './properties.js';
import { StudioState } from './state.js';
import { wireBadge } from './badge.js';
import { drawSettings, wireSettings } from './settings.js';
import { drawSignatories, wireSignatories } from './signatories.js';
import { wireUnsaved } from './unsaved.js';
import { replaceImage, wireUploads } from './uploads.js';
import { fitCanvas, wireView } from './view.js';

// The design studio's script (the editor page, src/dashboard/pages/editor.page.ts): wires the state
// to the panels. Without it the page still works (the preview in a frame, the JSON, Save).

function start(): void {
  const root = document.getElementById('studio');
  const textarea = document.getElementById('design-json') as HTMLTextAreaElement | null;
  if (!root || !textarea) return;
  const area = $<HTMLElement>(root, '[data-testid="design-canvas"]');
  const status = document.getElementById('studio-status') as HTMLElement;
  const csrf = $<HTMLInputElement>(document, '#design-form input[name=_csrf]').value;

  root.querySelectorAll<HTMLElement>('[hidden]').forEach((el) => (el.hidden = false));
  area.querySelector('iframe')?.remove();
  const canvas = document.createElement('canvas');
  canvas.className = 'design-pdf';
  canvas.setAttribute('aria-hidden', 'true');
  const layer = document.createElement('div');
  layer.className = 'design-layer';
  area.append(canvas, layer);

  const button = (action: string) => $<HTMLButtonElement>(root, `[data-action=${action}]`);
  // What follows a change: the JSON, the buttons, the boxes, the panels and the preview (a change
  // typed into the properties panel leaves that panel as it is: focus, caret).
  const changed = (live: boolean) => {
    const design = state.design;
    showJson(studio);
    button('undo').disabled = state.undoStack.length === 0;
    button('redo').disabled = state.redoStack.length === 0;
    button('remove-background').disabled = !design.background?.image;
    area.style.aspectRatio = `${design.page.width} / ${design.page.height}`;
    fitCanvas(studio);
    selectionChanged(live);
    drawPages(studio);
    drawFields(studio);
    drawSettings(studio, live);
    drawSignatories(studio, live);
    studio.schedule();
  };
  const selectionChanged = (live = false) => {
    button('delete').disabled = state.selected < 0;
    button('duplicate').disabled = state.selected < 0;
    drawBoxes(studio);
    drawOutline(studio);
    if (!live) drawProps(studio);
  };
  const state = new StudioState(JSON.parse(textarea.value) as Design, (live) => changed(live));

  let timer: number | undefined;
  const studio: Studio = {
    root,
    area,
    layer,
    textarea,
    status,
    csrf,
    fonts: (root.dataset.fonts ?? 'sans').split(','),
    state,
    select(i) {
      state.selected = i;
      selectionChanged();
    },
    drawBoxes: () => drawBoxes(studio),
    schedule() {
      clearTimeout(timer);
      timer = window.setTimeout(() => void render(), 40);
    },
    scale: () => area.clientWidth / state.design.page.width,
    replaceImage: (e, file) => replaceImage(studio, e, file),
  };
  const pdfjs = loadPdfJs(root.dataset.pdfjs ?? '', root.dataset.pdfjsWorker ?? '');
  const render = previewRenderer(studio, canvas, pdfjs);

  wireToolbar(studio);
  wireJson(studio);
  wireUploads(studio);
  wireKeyboard(studio);
  wireSettings(studio);
  wireBadge(studio);
  wireSignatories(studio);
  wireView(studio);
  wireUnsaved(studio);
  wirePages(studio);
  $<HTMLInputElement>(root, '[data-sample-name]').addEventListener('input', () => studio.schedule());
  new ResizeObserver(() => studio.schedule()).observe(area);
  changed(false);
}

start();
