import type { Design, DesignElement } from '../../pdf/design.schema.js';
import { focusBox, type Studio } from './context.js';
import { applyBox, boxOf, resizeRules, shapeOf, snapMove, studioHandles, studioResize } from './geometry.js';
import type { StudioBox, StudioHandle } from './geometry.js';
import { readRefusal, showDesignErrors } from './errors.js';
import type { PdfJs } from './pdfjs.js';
import { pageOf, shownPage } from './pages.js';
import { namedText } from './placeholder-names.js';

// The design canvas: the preview (the service renders the design being edited; pdf.js draws its
// page), and over it one box per element, to select, drag and resize.

const pct = (v: number, of: number) => `${(v / of) * 100}%`;

/** How an element is named in the boxes' labels and the outline (a text's placeholders by name). */
export function describe(e: DesignElement, i: number, design?: Design): string {
  if (e.type === 'text') return `${i + 1}. Text: ${design ? namedText(e.text, design) : e.text}`;
  if (e.type === 'qr') return `${i + 1}. QR code`;
  if (e.type === 'image') return `${i + 1}. Image`;
  if (e.type === 'table') return `${i + 1}. Table: ${e.field}`;
  if (e.type === 'line') return `${i + 1}. Line`;
  if (e.type === 'signatory') {
    const person = design?.signatories?.[e.index - 1];
    return `${i + 1}. Signatory: ${person ? person.name : `signatory ${e.index} (none)`}`;
  }
  return `${i + 1}. Rectangle`;
}

/** A line's box is at least 10 px thick on screen (around the line), to grab it by. */
function grabBox(e: DesignElement, b: StudioBox, scale: number): StudioBox {
  if (e.type !== 'line') return b;
  const min = 10 / (scale || 1);
  if (e.direction === 'vertical' && b.w < min) return { ...b, x: b.x + b.w / 2 - min / 2, w: min };
  if (e.direction !== 'vertical' && b.h < min) return { ...b, y: b.y + b.h / 2 - min / 2, h: min };
  return b;
}

/** The sample values of the preview (the Sample values panel). */
function sample(root: HTMLElement) {
  const data: Record<string, string> = {};
  root.querySelectorAll<HTMLInputElement>('[data-sample-field]').forEach((input) => {
    data[input.dataset.sampleField as string] = input.value;
  });
  const name = root.querySelector<HTMLInputElement>('[data-sample-name]')?.value ?? '';
  return { recipientName: name, data };
}

/** The preview's renderer: render() draws the newest design; an older answer is dropped. */
export function previewRenderer(studio: Studio, canvas: HTMLCanvasElement, pdfjsReady: Promise<PdfJs>) {
  const { root, area, status } = studio;
  let seq = 0;
  return async function render(): Promise<void> {
    const mine = ++seq;
    area.dataset.state = 'rendering';
    try {
      const res = await fetch(root.dataset.previewUrl as string, {
        method: 'POST',
        credentials: 'same-origin',
        headers: {
          'content-type': 'application/json',
          accept: 'application/pdf, application/json',
          'x-csrf-token': studio.csrf,
        },
        body: JSON.stringify({ design: studio.state.design, sample: sample(root) }),
      });
      if (mine !== seq) return;
      if (!res.ok) {
        const refusal = await readRefusal(res);
        if (mine !== seq) return;
        showDesignErrors(studio, refusal);
        area.dataset.state = 'error';
        return;
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      const pdfjs = await pdfjsReady;
      const doc = await pdfjs.getDocument({ data: bytes, isEvalSupported: false }).promise;
      const page = await doc.getPage(Math.min(shownPage(), doc.numPages));
      const viewport = page.getViewport({ scale: studio.scale() * (window.devicePixelRatio || 1) });
      const off = document.createElement('canvas');
      off.width = Math.ceil(viewport.width);
      off.height = Math.ceil(viewport.height);
      const context = off.getContext('2d') as CanvasRenderingContext2D;
      await page.render({ canvas: off, canvasContext: context, viewport }).promise;
      void doc.destroy();
      if (mine !== seq) return;
      canvas.width = off.width;
      canvas.height = off.height;
      canvas.getContext('2d')?.drawImage(off, 0, 0);
      status.textContent = '';
      showDesignErrors(studio, undefined);
      area.dataset.state = 'ready';
      area.dataset.rendered = String(mine);
    } catch (err) {
      if (mine !== seq) return;
      status.textContent = `The preview cannot be drawn: ${(err as Error).message}`;
      area.dataset.state = 'error';
    }
  };
}

/** Draws one box per element over the preview; the selected one gets its resize handles. */
export function drawBoxes(studio: Studio): void {
  const { layer, state } = studio;
  const { design, selected } = state;
  layer.replaceChildren();
  const { width: pw, height: ph } = design.page;
  design.elements.forEach((e, i) => {
    const b = grabBox(e, boxOf(e), studio.scale());
    const box = document.createElement('div');
    box.className = `design-element${i === selected ? ' selected' : ''}`;
    box.setAttribute('data-testid', 'design-element');
    box.dataset.elementIndex = String(i);
    box.hidden = pageOf(e) !== shownPage();
    box.tabIndex = 0;
    box.setAttribute('role', 'button');
    box.setAttribute('aria-label', describe(e, i, design));
    box.setAttribute('aria-pressed', String(i === selected));
    box.style.left = pct(b.x, pw);
    box.style.top = pct(b.y, ph);
    box.style.width = pct(b.w, pw);
    box.style.height = pct(b.h, ph);
    box.addEventListener('pointerdown', (ev) => startDrag(studio, ev, i, 'move'));
    box.addEventListener('focus', () => {
      if (studio.state.selected === i) return;
      studio.select(i);
      focusBox(studio, i);
    });
    if (i === selected) {
      box.setAttribute('aria-describedby', 'studio-keys');
      // A box too small on screen for eight handles (a logo on a phone) keeps its corners, so
      // that there is room left to grab it by.
      const small = Math.min(b.w, b.h) * studio.scale() < 48;
      const shape = shapeOf(e);
      const handles = studioHandles(shape).filter((h) => shape !== 'box' || !small || h.length === 2);
      for (const which of handles) {
        const handle = document.createElement('div');
        handle.className = 'design-handle';
        handle.dataset.handle = which;
        handle.setAttribute('aria-hidden', 'true');
        handle.addEventListener('pointerdown', (ev) => startDrag(studio, ev, i, which));
        box.append(handle);
      }
    }
    layer.append(box);
  });
}

// Moves the element, or resizes it from the handle `mode` with the opposite side fixed; one
// undo step when the pointer is let go.
function startDrag(studio: Studio, ev: PointerEvent, i: number, mode: 'move' | StudioHandle): void {
  ev.preventDefault();
  ev.stopPropagation();
  const { state } = studio;
  const before = JSON.stringify(state.design);
  if (state.selected !== i) studio.select(i);
  const e = state.design.elements[i];
  if (!e) return;
  const start = { px: ev.clientX, py: ev.clientY, ...boxOf(e) };
  let moved = false;
  const move = (m: PointerEvent) => {
    const dx = (m.clientX - start.px) / studio.scale();
    const dy = (m.clientY - start.py) / studio.scale();
    if (!moved && Math.abs(dx) + Math.abs(dy) < 0.5) return;
    moved = true;
    if (mode === 'move') {
      const p = snapMove(state.design, i, start.x + dx, start.y + dy, start.w, start.h);
      e.x = p.x;
      e.y = p.y;
    } else {
      const keepRatio = m.shiftKey && (e.type === 'image' || e.type === 'rect');
      const rules = resizeRules(state.design, i, true, keepRatio);
      applyBox(e, studioResize(start, mode, dx, dy, rules));
    }
    studio.drawBoxes();
  };
  const up = () => {
    window.removeEventListener('pointermove', move);
    window.removeEventListener('pointerup', up);
    if (moved) state.commit(() => undefined, before);
    focusBox(studio, i);
  };
  window.addEventListener('pointermove', move);
  window.addEventListener('pointerup', up);
}

/** The Elements list: one button per element, the selected one marked. */
export function drawOutline(studio: Studio): void {
  const list = document.getElementById('studio-outline');
  if (!list) return;
  list.replaceChildren(
    ...studio.state.design.elements.map((e, i) => {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'link';
      const onPage = (studio.state.design.pages ?? 1) === 2 ? ` (page ${pageOf(e)})` : '';
      b.textContent = describe(e, i, studio.state.design).replace(/^\d+\. /, '') + onPage;
      if (i === studio.state.selected) b.setAttribute('aria-current', 'true');
      b.addEventListener('click', () => studio.select(i));
      li.append(b);
      return li;
    }),
  );
}
