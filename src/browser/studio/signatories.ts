import type { Design, Signatory, SignatoryElement } from '../../pdf/design.schema.js';
import type { Studio } from './context.js';
import { boxOf } from './geometry.js';
import { input } from './inputs.js';
import { placeNearBottom } from './placement.js';
import { upload } from './uploads.js';

// The Signatories panel (#studio-signatories): up to five people who sign (name, title,
// organisation, signature image), kept in design.signatories, each placed on the page as a
// signatory block (one element: image, line, name, title). Everything goes through the state
// (undo and redo work). Removing a signatory removes its blocks; later signatories' blocks follow
// their signatory's new number.

export const MAX_SIGNATORIES = 5;
/** A new block's size in points. */
const BLOCK = { width: 200, height: 90 };

/** A signatory block for signatory `index` (1-based) in a free spot near the bottom of page 1. */
export function newBlock(design: Design, index: number): SignatoryElement {
  const boxes = design.elements
    .filter((e) => (e.page ?? 1) === 1)
    .map((e) => ({ ...boxOf(e), text: e.type === 'text' }));
  const spot = placeNearBottom(design.page, boxes, BLOCK.width, BLOCK.height);
  return { type: 'signatory', index, ...spot, size: 12, align: 'center' };
}

/** Removes signatory `index` (1-based), its blocks, and renumbers the later ones' blocks. */
export function removeSignatory(design: Design, index: number): void {
  design.signatories?.splice(index - 1, 1);
  if (design.signatories?.length === 0) delete design.signatories;
  design.elements = design.elements.filter((e) => e.type !== 'signatory' || e.index !== index);
  for (const e of design.elements) if (e.type === 'signatory' && e.index > index) e.index -= 1;
}

function addSignatory(studio: Studio): void {
  const { state } = studio;
  const design = state.design;
  const count = design.signatories?.length ?? 0;
  if (count >= MAX_SIGNATORIES) return;
  state.commit(() => {
    design.signatories = [...(design.signatories ?? []), { name: `Signatory ${count + 1}` }];
    design.elements.push(newBlock(design, count + 1));
  });
  studio.select(design.elements.length - 1);
}

function text(studio: Studio, person: Signatory, n: number, key: 'name' | 'title' | 'organisation') {
  return input(
    studio,
    `Signatory ${n} ${key}`,
    person[key] ?? '',
    'text',
    (v) =>
      studio.state.commit(() => {
        if (key === 'name') person.name = v || person.name;
        else if (v) person[key] = v;
        else delete person[key];
      }),
    { attributes: { dir: 'auto' }, live: true },
  );
}

function button(label: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'secondary';
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

function person(studio: Studio, p: Signatory, n: number): HTMLElement {
  const { state } = studio;
  const set = document.createElement('fieldset');
  set.className = 'signatory';
  const legend = document.createElement('legend');
  legend.textContent = `Signatory ${n}`;
  const picker = input(studio, `Signatory ${n} signature image`, '', 'file', () => undefined, {
    attributes: { accept: 'image/png,image/jpeg' },
  });
  const file = picker.querySelector('input') as HTMLInputElement;
  file.addEventListener('change', async () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    const up = await upload(studio, chosen, 'image');
    if (up) state.commit(() => (p.signatureImage = up.src));
  });
  const status = document.createElement('p');
  status.className = 'small muted';
  status.textContent = p.signatureImage ? 'Signature image: added.' : 'No signature image.';
  const actions = document.createElement('div');
  actions.className = 'actions';
  const placed = state.design.elements.some((e) => e.type === 'signatory' && e.index === n);
  if (!placed)
    actions.append(
      button(`Place signatory ${n} on the page`, () => {
        state.commit(() => state.design.elements.push(newBlock(state.design, n)));
        studio.select(state.design.elements.length - 1);
      }),
    );
  if (p.signatureImage)
    actions.append(button(`Remove signature image ${n}`, () => state.commit(() => delete p.signatureImage)));
  actions.append(button(`Remove signatory ${n}`, () => state.commit(() => removeSignatory(state.design, n))));
  set.append(legend, text(studio, p, n, 'name'), text(studio, p, n, 'title'));
  set.append(text(studio, p, n, 'organisation'), picker, status, actions);
  return set;
}

/** Redraws the panel (not while typed into: the input keeps its focus and caret). */
export function drawSignatories(studio: Studio, live: boolean): void {
  const body = document.getElementById('studio-signatories');
  const add = studio.root.querySelector<HTMLButtonElement>('[data-action=add-signatory]');
  const people = studio.state.design.signatories ?? [];
  if (add) add.disabled = people.length >= MAX_SIGNATORIES;
  if (!body || live) return;
  body.replaceChildren(...people.map((p, i) => person(studio, p, i + 1)));
}

export function wireSignatories(studio: Studio): void {
  studio.root
    .querySelector<HTMLButtonElement>('[data-action=add-signatory]')
    ?.addEventListener('click', () => addSignatory(studio));
}
