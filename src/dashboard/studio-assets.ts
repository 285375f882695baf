import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  studioFontFamilies,
  studioFontName,
  studioHandles,
  studioNearest,
  studioResize,
} from './studio-geometry.js';
import type { StudioBox, StudioHandle, StudioShape } from './studio-geometry.js';

// The studio's script and pdf.js (npm pdfjs-dist, served by the service itself: no CDN). The
// URLs carry the content's digest or pdf.js's version, so they are cached for a year. The script
// runs under the dashboard's CSP: nothing inline, no eval (pdf.js runs with isEvalSupported off).

const require = createRequire(import.meta.url);
const PDFJS_PACKAGE = require.resolve('pdfjs-dist/package.json');
const PDFJS_VERSION = (require('pdfjs-dist/package.json') as { version: string }).version;

function pdfjsFile(name: string) {
  let bytes: Promise<Buffer> | undefined;
  return {
    path: `/dashboard/assets/pdfjs/${PDFJS_VERSION}/${name}`,
    body: () => (bytes ??= readFile(path.join(path.dirname(PDFJS_PACKAGE), 'build', name))),
  };
}

export const PDFJS_FILES = { main: pdfjsFile('pdf.min.mjs'), worker: pdfjsFile('pdf.worker.min.mjs') };

/* eslint-disable @typescript-eslint/no-explicit-any */
// Runs in the browser, on the editor page only (its body is sent as the script).
function studio(): void {
  const root = document.getElementById('studio');
  const textarea = document.getElementById('design-json') as HTMLTextAreaElement | null;
  if (!root || !textarea) return;
  const area = root.querySelector('[data-testid="design-canvas"]') as HTMLElement;
  const status = document.getElementById('studio-status') as HTMLElement;
  const csrf = (document.querySelector('#design-form input[name=_csrf]') as HTMLInputElement).value;
  const fonts = (root.dataset.fonts ?? 'sans').split(',');
  let design: any = JSON.parse(textarea.value);
  let selected = -1;
  const undoStack: string[] = [];
  const redoStack: string[] = [];
  const SNAP = 2;
  // Typing in a property applies as it goes (debounced); the changes of one burst of typing in one
  // input are one undo step. `typingKey` names the input while its change is applied, `burst` the
  // input whose burst the undo stack's top step holds, until it loses focus or 2 s pass idle.
  const TYPING_DELAY = 150;
  let typingKey: string | undefined;
  let burst: { key: string; until: number } | undefined;
  // Set once the upload helper exists (below); the image properties use it.
  let replaceImage: (e: any, file: File) => Promise<void> = async () => undefined;

  root.querySelectorAll<HTMLElement>('[hidden]').forEach((el) => (el.hidden = false));
  area.querySelector('iframe')?.remove();
  const canvas = document.createElement('canvas');
  canvas.className = 'design-pdf';
  canvas.setAttribute('aria-hidden', 'true');
  const layer = document.createElement('div');
  layer.className = 'design-layer';
  area.append(canvas, layer);

  const pdfjsReady: Promise<any> = import(root.dataset.pdfjs as string).then((m: any) => {
    m.GlobalWorkerOptions.workerSrc = root.dataset.pdfjsWorker;
    return m;
  });

  const $ = <T extends Element>(sel: string) => root.querySelector(sel) as T;
  const scale = () => area.clientWidth / design.page.width;
  const pct = (v: number, of: number) => `${(v / of) * 100}%`;
  const round = (v: number) => Math.round(v * 10) / 10;

  function boxOf(e: any): StudioBox {
    if (e.type === 'qr') return { x: e.x, y: e.y, w: e.size, h: e.size };
    if (e.type === 'text') return { x: e.x, y: e.y, w: e.width, h: (e.size ?? 14) * 1.164 };
    return { x: e.x, y: e.y, w: e.width, h: e.height };
  }

  function describe(e: any, i: number): string {
    if (e.type === 'text') return `${i + 1}. Text: ${e.text}`;
    if (e.type === 'qr') return `${i + 1}. QR code`;
    if (e.type === 'image') return `${i + 1}. Image`;
    return `${i + 1}. Rectangle`;
  }

  // Every change goes through here: one undo step, then the JSON, the boxes and the preview follow.
  function commit(change: () => void, before = JSON.stringify(design)) {
    change();
    // The same value again (a colour picker's input then change): no step to undo.
    if (JSON.stringify(design) === before) return;
    const joins = typingKey !== undefined && burst?.key === typingKey && Date.now() < burst.until;
    if (!joins) {
      undoStack.push(before);
      if (undoStack.length > 200) undoStack.shift();
    }
    burst = typingKey === undefined ? undefined : { key: typingKey, until: Date.now() + 2000 };
    redoStack.length = 0;
    changed(typingKey !== undefined);
  }

  // `live`: a change typed into the properties panel, which is left as it is (focus, caret).
  function changed(live = false) {
    textarea!.value = JSON.stringify(design, null, 2);
    if (selected >= design.elements.length) selected = design.elements.length - 1;
    $<HTMLButtonElement>('[data-action=undo]').disabled = undoStack.length === 0;
    $<HTMLButtonElement>('[data-action=redo]').disabled = redoStack.length === 0;
    $<HTMLButtonElement>('[data-action=delete]').disabled = selected < 0;
    $<HTMLButtonElement>('[data-action=duplicate]').disabled = selected < 0;
    $<HTMLButtonElement>('[data-action=remove-background]').disabled = !design.background?.image;
    area.style.aspectRatio = `${design.page.width} / ${design.page.height}`;
    drawBoxes();
    drawOutline();
    if (!live) drawProps();
    drawFields();
    schedule();
  }

  function history(from: string[], to: string[]) {
    const state = from.pop();
    if (state === undefined) return;
    burst = undefined;
    to.push(JSON.stringify(design));
    design = JSON.parse(state);
    changed();
  }

  // The preview: the service renders the design being edited; pdf.js draws its page.
  let timer: number | undefined;
  let seq = 0;
  function schedule() {
    clearTimeout(timer);
    timer = window.setTimeout(render, 40);
  }

  function sample() {
    const data: Record<string, string> = {};
    root!.querySelectorAll<HTMLInputElement>('[data-sample-field]').forEach((input) => {
      data[input.dataset.sampleField as string] = input.value;
    });
    return { recipientName: $<HTMLInputElement>('[data-sample-name]').value, data };
  }

  async function render() {
    const mine = ++seq;
    area.dataset.state = 'rendering';
    try {
      const res = await fetch(root!.dataset.previewUrl as string, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ design, sample: sample() }),
      });
      if (mine !== seq) return;
      if (!res.ok) {
        const page = new DOMParser().parseFromString(await res.text(), 'text/html');
        const message = page.getElementById('error-message')?.textContent ?? `error ${res.status}`;
        status.textContent = `The preview cannot be drawn: ${message}`;
        area.dataset.state = 'error';
        return;
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      const pdfjs = await pdfjsReady;
      const doc = await pdfjs.getDocument({ data: bytes, isEvalSupported: false }).promise;
      const page = await doc.getPage(1);
      const viewport = page.getViewport({ scale: scale() * (window.devicePixelRatio || 1) });
      const off = document.createElement('canvas');
      off.width = Math.ceil(viewport.width);
      off.height = Math.ceil(viewport.height);
      await page.render({ canvas: off, canvasContext: off.getContext('2d'), viewport }).promise;
      void doc.destroy();
      if (mine !== seq) return;
      canvas.width = off.width;
      canvas.height = off.height;
      canvas.getContext('2d')!.drawImage(off, 0, 0);
      status.textContent = '';
      area.dataset.state = 'ready';
      area.dataset.rendered = String(mine);
    } catch (err) {
      if (mine !== seq) return;
      status.textContent = `The preview cannot be drawn: ${(err as Error).message}`;
      area.dataset.state = 'error';
    }
  }

  function select(i: number) {
    selected = i;
    changedSelection();
  }

  function changedSelection() {
    $<HTMLButtonElement>('[data-action=delete]').disabled = selected < 0;
    $<HTMLButtonElement>('[data-action=duplicate]').disabled = selected < 0;
    drawBoxes();
    drawOutline();
    drawProps();
  }

  // Snaps a moved box to the page centre and to the other elements' edges, within SNAP points.
  function snap(i: number, x: number, y: number, w: number, h: number) {
    const xs: number[] = [design.page.width / 2 - w / 2];
    const ys: number[] = [design.page.height / 2 - h / 2];
    design.elements.forEach((other: any, j: number) => {
      if (j === i) return;
      const b = boxOf(other);
      xs.push(b.x, b.x + b.w - w, b.x + b.w, b.x - w);
      ys.push(b.y, b.y + b.h - h, b.y + b.h, b.y - h);
    });
    const near = (v: number, list: number[]) => list.find((c) => Math.abs(c - v) < SNAP) ?? v;
    return { x: Math.max(0, round(near(x, xs))), y: Math.max(0, round(near(y, ys))) };
  }

  // Rules are thin rectangles: they resize from their two ends, like a line's end points.
  function shapeOf(e: any): StudioShape {
    if (e.type === 'text' || e.type === 'qr') return e.type;
    if (e.type === 'rect' && e.height <= 4 && e.width > e.height) return 'hline';
    if (e.type === 'rect' && e.width <= 4 && e.height > e.width) return 'vline';
    return 'box';
  }

  function applyBox(e: any, b: StudioBox) {
    e.x = b.x;
    e.y = b.y;
    if (e.type === 'qr') e.size = b.w;
    else e.width = b.w;
    if (e.type === 'image' || e.type === 'rect') e.height = b.h;
  }

  // How element i resizes; `guides` snaps moved edges to the page's edges and centre and to the
  // other elements' edges (as moving does), none for the keyboard.
  function resizeRules(i: number, guides: boolean, keepRatio = false) {
    const e = design.elements[i];
    const xs = [0, design.page.width / 2, design.page.width];
    const ys = [0, design.page.height / 2, design.page.height];
    design.elements.forEach((other: any, j: number) => {
      if (j === i) return;
      const b = boxOf(other);
      xs.push(b.x, b.x + b.w);
      ys.push(b.y, b.y + b.h);
    });
    const qr = e.type === 'qr';
    return {
      snapX: (v: number) => (guides ? studioNearest(v, xs, SNAP) : v),
      snapY: (v: number) => (guides ? studioNearest(v, ys, SNAP) : v),
      minW: qr ? 36 : 1,
      minH: qr ? 36 : 0.5,
      max: qr ? 600 : Infinity,
      square: qr,
      keepRatio,
    };
  }

  function drawBoxes() {
    layer.replaceChildren();
    const { width: pw, height: ph } = design.page;
    design.elements.forEach((e: any, i: number) => {
      const b = boxOf(e);
      const box = document.createElement('div');
      box.className = `design-element${i === selected ? ' selected' : ''}`;
      box.dataset.testid = 'design-element';
      box.setAttribute('data-testid', 'design-element');
      box.dataset.elementIndex = String(i);
      box.tabIndex = 0;
      box.setAttribute('role', 'button');
      box.setAttribute('aria-label', describe(e, i));
      box.setAttribute('aria-pressed', String(i === selected));
      box.style.left = pct(b.x, pw);
      box.style.top = pct(b.y, ph);
      box.style.width = pct(b.w, pw);
      box.style.height = pct(b.h, ph);
      box.addEventListener('pointerdown', (ev) => startDrag(ev, i, 'move'));
      box.addEventListener('focus', () => {
        if (selected === i) return;
        select(i);
        (layer.children[i] as HTMLElement | undefined)?.focus();
      });
      if (i === selected) {
        box.setAttribute('aria-describedby', 'studio-keys');
        // A box too small on screen for eight handles (a logo on a phone) keeps its corners, so
        // that there is room left to grab it by.
        const small = Math.min(b.w, b.h) * scale() < 48;
        const handles = studioHandles(shapeOf(e)).filter(
          (h) => shapeOf(e) !== 'box' || !small || h.length === 2,
        );
        for (const which of handles) {
          const handle = document.createElement('div');
          handle.className = 'design-handle';
          handle.dataset.handle = which;
          handle.setAttribute('aria-hidden', 'true');
          handle.addEventListener('pointerdown', (ev) => startDrag(ev, i, which));
          box.append(handle);
        }
      }
      layer.append(box);
    });
  }

  // Moves the element, or resizes it from the handle `mode` with the opposite side fixed; one
  // undo step when the pointer is let go.
  function startDrag(ev: PointerEvent, i: number, mode: 'move' | StudioHandle) {
    ev.preventDefault();
    ev.stopPropagation();
    const before = JSON.stringify(design);
    if (selected !== i) select(i);
    const e = design.elements[i];
    const start = { px: ev.clientX, py: ev.clientY, ...boxOf(e) };
    let moved = false;
    const move = (m: PointerEvent) => {
      const dx = (m.clientX - start.px) / scale();
      const dy = (m.clientY - start.py) / scale();
      if (!moved && Math.abs(dx) + Math.abs(dy) < 0.5) return;
      moved = true;
      if (mode === 'move') {
        const p = snap(i, start.x + dx, start.y + dy, start.w, start.h);
        e.x = p.x;
        e.y = p.y;
      } else {
        const keepRatio = m.shiftKey && (e.type === 'image' || e.type === 'rect');
        applyBox(e, studioResize(start, mode, dx, dy, resizeRules(i, true, keepRatio)));
      }
      drawBoxes();
    };
    const up = () => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      if (moved) commit(() => undefined, before);
      (layer.children[i] as HTMLElement | undefined)?.focus();
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  }

  function drawOutline() {
    const list = document.getElementById('studio-outline')!;
    list.replaceChildren(
      ...design.elements.map((e: any, i: number) => {
        const li = document.createElement('li');
        const b = document.createElement('button');
        b.type = 'button';
        b.className = 'link';
        b.textContent = describe(e, i).replace(/^\d+\. /, '');
        if (i === selected) b.setAttribute('aria-current', 'true');
        b.addEventListener('click', () => select(i));
        li.append(b);
        return li;
      }),
    );
  }

  // A labelled input or select. `options`: a select's choices (a value, or [value, text]);
  // `live`: a text or number input that applies as it is typed in (see `typingKey` above).
  function input(label: string, value: string, type: string, onChange: (v: string) => void, opts: any = {}) {
    const { options = [], live = false, ...extra } = opts;
    const id = `prop-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
    const wrap = document.createElement('div');
    const l = document.createElement('label');
    l.htmlFor = id;
    l.textContent = label;
    let field: HTMLInputElement | HTMLSelectElement;
    if (type === 'select') {
      const s = document.createElement('select');
      for (const o of options as (string | [string, string])[]) {
        const [v, text] = typeof o === 'string' ? [o, o] : o;
        s.append(new Option(text, v));
      }
      field = s;
    } else {
      const i = document.createElement('input');
      i.type = type;
      Object.assign(i, extra);
      field = i;
    }
    field.id = id;
    field.value = value;
    const key = `${selected}:${id}`;
    let timer: number | undefined;
    const apply = (asTyped: boolean) => {
      clearTimeout(timer);
      typingKey = asTyped ? key : undefined;
      try {
        onChange(field.value);
      } finally {
        typingKey = undefined;
      }
    };
    // A change (blur, Enter) applies what is left and ends the typing burst.
    field.addEventListener('change', () => {
      apply(live || type === 'color');
      burst = undefined;
    });
    // A colour picker says 'input' as it moves (its 'change' may never come from a script); its
    // moves are one undo step, like typing.
    if (type === 'color') field.addEventListener('input', () => apply(true));
    if (live) {
      field.addEventListener('input', () => {
        clearTimeout(timer);
        timer = window.setTimeout(() => apply(true), TYPING_DELAY);
      });
      field.addEventListener('blur', () => (burst = undefined));
    }
    wrap.append(l, field);
    return wrap;
  }

  function numberProp(e: any, key: string, label: string, min = 0, max = Infinity) {
    return input(
      label,
      String(e[key] ?? ''),
      'number',
      (v) => {
        const n = Number(v);
        if (v === '' && key === 'minSize') commit(() => delete e.minSize);
        else if (v !== '' && Number.isFinite(n) && n >= min && n <= max) commit(() => (e[key] = n));
      },
      { step: 'any', min: String(min), live: true },
    );
  }

  // Font family and weight: the weights listed are the ones the family has (bundled DejaVu Sans
  // and Serif in Regular and Bold; a design's own font `x` with `x-bold` if the design has one).
  function fontProps(e: any) {
    const families = studioFontFamilies(fonts);
    const current = e.font ?? 'sans';
    const family = families.find((f) => f.weights.some((w) => w.name === current)) ?? families[0]!;
    const weight = family.weights.find((w) => w.name === current)!;
    const label = (f: string) =>
      f === 'sans' ? 'Sans (DejaVu Sans)' : f === 'serif' ? 'Serif (DejaVu Serif)' : f;
    const familySelect = input(
      'Font',
      family.family,
      'select',
      (v) => {
        const next = families.find((f) => f.family === v)!;
        // The same weight in the new family when it has it, else its first.
        const same = next.weights.find((w) => w.label === weight.label) ?? next.weights[0]!;
        commit(() => (e.font = same.name));
      },
      { options: families.map((f) => [f.family, label(f.family)]) },
    );
    const weightSelect = input('Weight', weight.name, 'select', (v) => commit(() => (e.font = v)), {
      options: family.weights.map((w) => [w.name, w.label]),
    });
    return [familySelect, weightSelect];
  }

  function colorProp(e: any, key: string, label: string, fallback: string) {
    return input(label, (e[key] ?? fallback).toLowerCase(), 'color', (v) =>
      commit(() => (e[key] = v.toUpperCase())),
    );
  }

  function drawProps() {
    const panel = document.getElementById('studio-props')!;
    const e = design.elements[selected];
    if (!e) {
      panel.innerHTML = '<p class="muted small">Select an element on the page or in the list.</p>';
      return;
    }
    const parts: HTMLElement[] = [];
    if (e.type === 'text') {
      parts.push(
        input('Text', e.text, 'text', (v) => v && commit(() => (e.text = v)), { dir: 'auto', live: true }),
      );
      const placeholders = [
        'recipient.name',
        'certificate.issuedAt',
        'certificate.uniqueCode',
        'certificate.verificationUrl',
        ...design.fields.map((f: any) => `data.${f.key}`),
      ];
      const pick = input('Placeholder', placeholders[0]!, 'select', () => undefined, {
        options: placeholders,
      });
      const insert = document.createElement('button');
      insert.type = 'button';
      insert.className = 'secondary';
      insert.textContent = 'Insert placeholder';
      insert.addEventListener('click', () => {
        const which = (pick.querySelector('select') as HTMLSelectElement).value;
        commit(() => (e.text = `${e.text}{{${which}}}`));
      });
      parts.push(pick, insert);
      parts.push(...fontProps(e));
      parts.push(numberProp(e, 'size', 'Size (pt)', 4, 200));
      parts.push(colorProp(e, 'color', 'Colour', '#000000'));
      parts.push(
        input('Alignment', e.align ?? 'left', 'select', (v) => commit(() => (e.align = v)), {
          options: ['left', 'center', 'right'],
        }),
      );
      parts.push(numberProp(e, 'minSize', 'Shrink to fit down to (pt)', 4, 200));
    }
    parts.push(numberProp(e, 'x', 'X (pt)'), numberProp(e, 'y', 'Y (pt)'));
    if (e.type === 'qr')
      parts.push(numberProp(e, 'size', 'Size (pt)', 36, 600), colorProp(e, 'color', 'Colour', '#000000'));
    else parts.push(numberProp(e, 'width', 'Width (pt)', 0.1));
    if (e.type === 'rect' || e.type === 'image') parts.push(numberProp(e, 'height', 'Height (pt)', 0.1));
    if (e.type === 'image') {
      const picker = input('Replace image', '', 'file', () => undefined, { accept: 'image/png,image/jpeg' });
      const field = picker.querySelector('input') as HTMLInputElement;
      field.addEventListener('change', () => field.files?.[0] && void replaceImage(e, field.files[0]));
      parts.push(picker);
    }
    if (e.type === 'rect')
      parts.push(colorProp(e, 'fill', 'Fill', '#ffffff'), colorProp(e, 'stroke', 'Outline', '#000000'));
    panel.replaceChildren(...parts);
  }

  function drawFields() {
    const panel = document.getElementById('studio-fields')!;
    panel.replaceChildren(
      ...design.fields.map((f: any, i: number) => {
        const row = document.createElement('fieldset');
        const legend = document.createElement('legend');
        legend.textContent = `Field ${i + 1}`;
        const key = input(`Key of field ${i + 1}`, f.key, 'text', (v) => commit(() => (f.key = v)));
        const label = input(`Label of field ${i + 1}`, f.label, 'text', (v) => commit(() => (f.label = v)));
        const req = document.createElement('label');
        req.className = 'check';
        const box = document.createElement('input');
        box.type = 'checkbox';
        box.checked = f.required;
        box.addEventListener('change', () => commit(() => (f.required = box.checked)));
        req.append(box, ` Required`);
        const remove = document.createElement('button');
        remove.type = 'button';
        remove.className = 'secondary';
        remove.textContent = `Remove field ${i + 1}`;
        remove.addEventListener('click', () => commit(() => design.fields.splice(i, 1)));
        row.append(legend, key, label, req, remove);
        return row;
      }),
    );
    // The sample panel follows the fields: one input per field, labelled by its label.
    const holder = document.getElementById('sample-fields')!;
    // Typed values and the default shown as placeholder stay with their field's key.
    const kept: Record<string, string> = {};
    const shown: Record<string, string> = {};
    holder.querySelectorAll<HTMLInputElement>('[data-sample-field]').forEach((i) => {
      kept[i.dataset.sampleField!] = i.value;
      shown[i.dataset.sampleField!] = i.placeholder;
    });
    holder.replaceChildren(
      ...design.fields.flatMap((f: any) => {
        const l = document.createElement('label');
        l.htmlFor = `sample-${f.key}`;
        l.textContent = f.label;
        const i = document.createElement('input');
        i.type = 'text';
        i.id = `sample-${f.key}`;
        i.name = `data.${f.key}`;
        i.dir = 'auto';
        i.dataset.sampleField = f.key;
        i.value = kept[f.key] ?? '';
        i.placeholder = shown[f.key] ?? '';
        i.addEventListener('input', schedule);
        return [l, i];
      }),
    );
  }

  const add: Record<string, () => any> = {
    'add-text': () => ({ type: 'text', text: 'New text', x: 40, y: 40, width: 300, size: 18 }),
    'add-rect': () => ({ type: 'rect', x: 40, y: 40, width: 200, height: 2, fill: '#1F2937' }),
    'add-qr': () => ({ type: 'qr', x: 40, y: 40, size: 72 }),
  };

  root.addEventListener('click', (ev) => {
    const action = (ev.target as HTMLElement).closest<HTMLElement>('[data-action]')?.dataset.action;
    if (!action) return;
    if (action === 'undo') history(undoStack, redoStack);
    else if (action === 'redo') history(redoStack, undoStack);
    else if (add[action]) {
      commit(() => design.elements.push(add[action]!()));
      select(design.elements.length - 1);
    } else if (action === 'delete' && selected >= 0) {
      commit(() => design.elements.splice(selected, 1));
      select(-1);
    } else if (action === 'duplicate' && selected >= 0) {
      const copy = JSON.parse(JSON.stringify(design.elements[selected]));
      copy.x += 10;
      copy.y += 10;
      commit(() => design.elements.push(copy));
      select(design.elements.length - 1);
    } else if (action === 'remove-background') {
      commit(() => {
        delete design.background?.image;
      });
    } else if (action === 'add-field') {
      let n = design.fields.length + 1;
      while (design.fields.some((f: any) => f.key === `field${n}`)) n++;
      commit(() => design.fields.push({ key: `field${n}`, label: `Field ${n}`, required: false }));
    }
  });

  $<HTMLSelectElement>('[data-action=page-size]').value = `${design.page.width}x${design.page.height}`;
  $<HTMLSelectElement>('[data-action=page-size]').addEventListener('change', (ev) => {
    const [w, h] = (ev.target as HTMLSelectElement).value.split('x').map(Number);
    commit(() => (design.page = { width: w, height: h }));
  });
  $<HTMLInputElement>('[data-action=background]').addEventListener('change', (ev) => {
    const color = (ev.target as HTMLInputElement).value.toUpperCase();
    commit(() => (design.background = { ...(design.background ?? {}), color }));
  });
  textarea.addEventListener('change', () => {
    try {
      const parsed = JSON.parse(textarea.value);
      commit(() => (design = parsed));
    } catch {
      status.textContent = 'The JSON is not valid: the visual editor keeps the last valid design.';
    }
  });
  $<HTMLInputElement>('[data-sample-name]').addEventListener('input', schedule);

  // Uploads: the service checks and decodes the file and answers its data URL; the design takes it
  // like any other change (undo works). A refusal is said under the page, and nothing changes.
  async function upload(file: File, kind: string) {
    const body = new FormData();
    body.append('_csrf', csrf);
    body.append('kind', kind === 'font' ? 'font' : 'image');
    body.append('file', file);
    const res = await fetch(`${root!.dataset.previewUrl!.replace(/preview\.pdf$/, '')}uploads`, {
      method: 'POST',
      credentials: 'same-origin',
      body,
    });
    if (!res.ok) {
      const page = new DOMParser().parseFromString(await res.text(), 'text/html');
      status.textContent = `Not added: ${page.getElementById('error-message')?.textContent ?? `error ${res.status}`}`;
      area.dataset.upload = 'refused';
      return undefined;
    }
    area.dataset.upload = 'done';
    return (await res.json()) as { src: string; width?: number; height?: number };
  }
  replaceImage = async (e: any, file: File) => {
    const up = await upload(file, 'image');
    if (up) commit(() => (e.src = up.src));
  };

  root.querySelectorAll<HTMLInputElement>('input[data-upload]').forEach((picker) => {
    picker.addEventListener('change', async () => {
      const file = picker.files?.[0];
      if (!file) return;
      const kind = picker.dataset.upload as string;
      picker.value = '';
      const up = await upload(file, kind);
      if (!up) return;
      if (kind === 'background') {
        commit(() => (design.background = { ...(design.background ?? {}), image: up.src }));
      } else if (kind === 'font') {
        // Named after its family and weight, so that a regular and a bold upload of one family are
        // one family in the font select, in two weights.
        const font = up as { src: string; family?: string | null; bold?: boolean };
        const taken = [...fonts, ...(design.fonts ?? []).map((f: any) => f.name as string)];
        const name = studioFontName(font.family, font.bold === true, taken);
        fonts.push(name);
        // A bold font falls back on bold for the characters it lacks (and picks bold Noto fonts).
        const fallback = font.bold ? { fallback: 'sans-bold' } : {};
        commit(() => (design.fonts = [...(design.fonts ?? []), { name, src: up.src, ...fallback }]));
      } else {
        const width = Math.min(200, up.width ?? 200);
        const height = round((width * (up.height ?? 1)) / (up.width ?? 1));
        commit(() => design.elements.push({ type: 'image', src: up.src, x: 40, y: 40, width, height }));
        select(design.elements.length - 1);
      }
    });
  });

  // Keyboard: arrows nudge the selected element (Shift: 10 pt), Alt+arrows resize it from its
  // right or bottom side (Alt+Shift: 10 pt), Delete removes it, Ctrl+Z and Ctrl+Shift+Z undo and
  // redo (outside text inputs, which keep their own). The editor's help text says so (#studio-keys).
  document.addEventListener('keydown', (ev) => {
    const typing = (ev.target as HTMLElement).closest('input, textarea, select');
    if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === 'z' && !typing) {
      ev.preventDefault();
      if (ev.shiftKey) history(redoStack, undoStack);
      else history(undoStack, redoStack);
      return;
    }
    if (typing || selected < 0 || !(ev.target as HTMLElement).closest('.design-canvas')) return;
    const step = ev.shiftKey ? 10 : 1;
    const e = design.elements[selected];
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step],
    };
    const m = moves[ev.key];
    if (m && ev.altKey) {
      ev.preventDefault();
      const handle = studioHandles(shapeOf(e)).at(-1)!;
      commit(() => applyBox(e, studioResize(boxOf(e), handle, m[0], m[1], resizeRules(selected, false))));
      (layer.children[selected] as HTMLElement | undefined)?.focus();
    } else if (m) {
      ev.preventDefault();
      commit(() => {
        e.x = Math.max(0, round(e.x + m[0]));
        e.y = Math.max(0, round(e.y + m[1]));
      });
      (layer.children[selected] as HTMLElement | undefined)?.focus();
    } else if (ev.key === 'Delete' || ev.key === 'Backspace') {
      ev.preventDefault();
      commit(() => design.elements.splice(selected, 1));
      select(-1);
    }
  });
  new ResizeObserver(() => schedule()).observe(area);
  changed();
}
/* eslint-enable @typescript-eslint/no-explicit-any */

// The pure helpers travel with the script, inside its own scope.
const helpers = [studioHandles, studioResize, studioNearest, studioFontFamilies, studioFontName];
const STUDIO = `(() => {\n${helpers.map(String).join('\n')}\n(${studio.toString()})();\n})();`;

export const STUDIO_JS = {
  path: '/dashboard/assets/studio.js',
  body: STUDIO,
  version: createHash('sha256').update(STUDIO).digest('hex').slice(0, 16),
};
