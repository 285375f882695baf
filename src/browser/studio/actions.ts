import type { DesignElement } from '../../pdf/design.schema.js';
import { $, focusBox, type Studio } from './context.js';
import { addField } from './fields.js';
import { onShownPage } from './pages.js';
import { addTable } from './table.js';
import { applyBox, boxOf, resizeRules, round, shapeOf, studioHandles, studioResize } from './geometry.js';

// The toolbar's buttons (data-action), the page size and background colour, and the keyboard.

const ADD: Record<string, () => DesignElement> = {
  'add-text': () => ({ type: 'text', text: 'New text', x: 40, y: 40, width: 300, size: 18 }),
  'add-rect': () => ({ type: 'rect', x: 40, y: 40, width: 200, height: 2, fill: '#1F2937' }),
  'add-qr': () => ({ type: 'qr', x: 40, y: 40, size: 72 }),
  'add-line': () => ({
    type: 'line',
    x: 40,
    y: 40,
    length: 200,
    direction: 'horizontal',
    weight: 1,
    color: '#1F2937',
    dash: 'solid',
  }),
};

function act(studio: Studio, action: string): void {
  const { state } = studio;
  const design = state.design;
  const make = ADD[action];
  if (action === 'undo') state.undo();
  else if (action === 'redo') state.redo();
  else if (make) {
    state.commit(() => design.elements.push(onShownPage(make())));
    studio.select(design.elements.length - 1);
  } else if (action === 'delete' && state.selected >= 0) {
    state.commit(() => design.elements.splice(state.selected, 1));
    studio.select(-1);
  } else if (action === 'duplicate' && state.selected >= 0) {
    const copy = JSON.parse(JSON.stringify(design.elements[state.selected])) as DesignElement;
    copy.x += 10;
    copy.y += 10;
    state.commit(() => design.elements.push(copy));
    studio.select(design.elements.length - 1);
  } else if (action === 'remove-background') {
    state.commit(() => {
      delete design.background?.image;
    });
  } else if (action === 'add-field') addField(studio);
  else if (action === 'add-table') addTable(studio);
}

export function wireToolbar(studio: Studio): void {
  const { root, state } = studio;
  root.addEventListener('click', (ev) => {
    const action = (ev.target as HTMLElement).closest<HTMLElement>('[data-action]')?.dataset.action;
    if (action) act(studio, action);
  });
  const size = $<HTMLSelectElement>(root, '[data-action=page-size]');
  size.value = `${state.design.page.width}x${state.design.page.height}`;
  size.addEventListener('change', () => {
    const [width = 842, height = 595] = size.value.split('x').map(Number);
    state.commit(() => (state.design.page = { width, height }));
  });
  const background = $<HTMLInputElement>(root, '[data-action=background]');
  background.addEventListener('change', () => {
    const color = background.value.toUpperCase();
    state.commit(() => (state.design.background = { ...(state.design.background ?? {}), color }));
  });
}

// Keyboard: arrows nudge the selected element (Shift: 10 pt), Alt+arrows resize it from its
// right or bottom side (Alt+Shift: 10 pt), Delete removes it, Ctrl+Z and Ctrl+Shift+Z undo and
// redo (outside text inputs, which keep their own). The editor's help text says so (#studio-keys).
export function wireKeyboard(studio: Studio): void {
  const { state } = studio;
  document.addEventListener('keydown', (ev) => {
    const target = ev.target as HTMLElement;
    const typing = target.closest('input, textarea, select');
    if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === 'z' && !typing) {
      ev.preventDefault();
      if (ev.shiftKey) state.redo();
      else state.undo();
      return;
    }
    const i = state.selected;
    const e = state.design.elements[i];
    if (typing || !e || !target.closest('.design-canvas')) return;
    const step = ev.shiftKey ? 10 : 1;
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step],
    };
    const m = moves[ev.key];
    if (m && ev.altKey) {
      ev.preventDefault();
      const handle = studioHandles(shapeOf(e)).at(-1) ?? 'se';
      const rules = resizeRules(state.design, i, false);
      state.commit(() => applyBox(e, studioResize(boxOf(e), handle, m[0], m[1], rules)));
      focusBox(studio, i);
    } else if (m) {
      ev.preventDefault();
      state.commit(() => {
        e.x = Math.max(0, round(e.x + m[0]));
        e.y = Math.max(0, round(e.y + m[1]));
      });
      focusBox(studio, i);
    } else if (ev.key === 'Delete' || ev.key === 'Backspace') {
      ev.preventDefault();
      state.commit(() => state.design.elements.splice(i, 1));
      studio.select(-1);
    }
  });
}
