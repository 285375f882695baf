import type { Design, TableColumn, TableElement } from '../../pdf/design.schema.js';
import type { Studio } from './context.js';
import { input } from './inputs.js';
import { showPage } from './pages.js';

// "Add table" (issue 30, item 10): a table on page 2 filled from a list field, and its properties.

/** Room left at the page's edges around a new table (pt). */
const MARGIN = 60;

/** The key of the design's first list field, or a new list field's key (units, units2, ...). */
function listField(design: Design): string {
  const list = design.fields.find((f) => f.type === 'list');
  if (list) return list.key;
  let key = 'units';
  for (let n = 2; design.fields.some((f) => f.key === key); n++) key = `units${n}`;
  design.fields.push({ key, label: 'Units', required: false, type: 'list' });
  return key;
}

/** A new table within the page's margins: Unit / Hours / Grade. */
export function newTable(design: Design, field: string): TableElement {
  const width = design.page.width - 2 * MARGIN;
  const narrow = Math.floor(width / 5);
  return {
    type: 'table',
    page: 2,
    field,
    columns: [
      { key: 'name', label: 'Unit', width: width - 2 * narrow },
      { key: 'hours', label: 'Hours', width: narrow },
      { key: 'grade', label: 'Grade', width: narrow },
    ],
    x: MARGIN,
    y: MARGIN,
    width,
    height: design.page.height - 2 * MARGIN,
  };
}

/** Adds page 2 if needed, a list field if none, and the table on page 2 (one undo step). */
export function addTable(studio: Studio): void {
  const { state } = studio;
  const design = state.design;
  state.commit(() => {
    design.pages = 2;
    design.elements.push(newTable(design, listField(design)));
  });
  studio.select(design.elements.length - 1);
  showPage(studio, 2);
}

const numberInput = (
  studio: Studio,
  label: string,
  value: number | undefined,
  min: number,
  set: (n: number) => void,
) =>
  input(
    studio,
    label,
    value === undefined ? '' : String(value),
    'number',
    (v) => {
      const n = Number(v);
      if (v !== '' && Number.isFinite(n) && n >= min) studio.state.commit(() => set(n));
    },
    { attributes: { step: 'any', min: String(min) }, live: true },
  );

function columnInputs(studio: Studio, e: TableElement, c: TableColumn, i: number): HTMLElement {
  const { state } = studio;
  const row = document.createElement('fieldset');
  const legend = document.createElement('legend');
  legend.textContent = `Column ${i + 1}`;
  const label = input(studio, `Label of column ${i + 1}`, c.label, 'text', (v) => {
    if (v) state.commit(() => (c.label = v));
  });
  const key = input(studio, `Key of column ${i + 1}`, c.key, 'text', (v) => {
    if (v) state.commit(() => (c.key = v));
  });
  const width = numberInput(studio, `Width of column ${i + 1} (pt)`, c.width, 1, (n) => (c.width = n));
  row.append(legend, label, key, width);
  if (e.columns.length > 1) {
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'secondary';
    remove.textContent = `Remove column ${i + 1}`;
    remove.addEventListener('click', () => state.commit(() => e.columns.splice(i, 1)));
    row.append(remove);
  }
  return row;
}

// "Add column": a new column of 80 pt, the others narrowed if they no longer fit the table.
function addColumn(studio: Studio, e: TableElement): void {
  studio.state.commit(() => {
    let n = e.columns.length + 1;
    while (e.columns.some((c) => c.key === `column${n}`)) n++;
    const room = e.width - e.columns.reduce((sum, c) => sum + c.width, 0);
    const width = Math.max(40, Math.floor(room) || 80);
    if (room < width) {
      const factor = (e.width - width) / (e.width - room);
      for (const c of e.columns) c.width = Math.floor(c.width * factor);
    }
    e.columns.push({ key: `column${n}`, label: `Column ${n}`, width });
  });
}

/** The table's properties: its list field, columns, place and size, text and rule colours. */
export function tableProps(studio: Studio, e: TableElement): HTMLElement[] {
  const { state } = studio;
  const lists = state.design.fields.filter((f) => f.type === 'list');
  const parts: HTMLElement[] = [];
  parts.push(
    input(studio, 'List field', e.field, 'select', (v) => state.commit(() => (e.field = v)), {
      options: lists.map((f) => [f.key, `${f.label} (${f.key})`]),
    }),
  );
  parts.push(...e.columns.map((c, i) => columnInputs(studio, e, c, i)));
  if (e.columns.length < 8) {
    const add = document.createElement('button');
    add.type = 'button';
    add.className = 'secondary';
    add.textContent = 'Add column';
    add.addEventListener('click', () => addColumn(studio, e));
    parts.push(add);
  }
  parts.push(
    numberInput(studio, 'X (pt)', e.x, 0, (n) => (e.x = n)),
    numberInput(studio, 'Y (pt)', e.y, 0, (n) => (e.y = n)),
    numberInput(studio, 'Width (pt)', e.width, 1, (n) => (e.width = n)),
    numberInput(studio, 'Height (pt)', e.height, 1, (n) => (e.height = n)),
    numberInput(studio, 'Size (pt)', e.size ?? 11, 4, (n) => (e.size = Math.min(72, n))),
    input(studio, 'Font', e.font ?? 'sans', 'select', (v) => state.commit(() => (e.font = v)), {
      options: studio.fonts.includes(e.font ?? 'sans') ? studio.fonts : [e.font ?? 'sans', ...studio.fonts],
    }),
    input(studio, 'Colour', (e.color ?? '#000000').toLowerCase(), 'color', (v) =>
      state.commit(() => (e.color = v.toUpperCase())),
    ),
    input(studio, 'Rule colour', (e.rule ?? '#9CA3AF').toLowerCase(), 'color', (v) =>
      state.commit(() => (e.rule = v.toUpperCase())),
    ),
  );
  return parts;
}
