import type { Studio } from './context.js';
import { input } from './inputs.js';

// The Fields panel (#studio-fields) and, following it, the Sample values panel's inputs.

export function drawFields(studio: Studio): void {
  const { state } = studio;
  const panel = document.getElementById('studio-fields');
  panel?.replaceChildren(
    ...state.design.fields.map((f, i) => {
      const row = document.createElement('fieldset');
      const legend = document.createElement('legend');
      legend.textContent = `Field ${i + 1}`;
      const key = input(studio, `Key of field ${i + 1}`, f.key, 'text', (v) =>
        state.commit(() => (f.key = v)),
      );
      const label = input(studio, `Label of field ${i + 1}`, f.label, 'text', (v) =>
        state.commit(() => (f.label = v)),
      );
      const req = document.createElement('label');
      req.className = 'check';
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.checked = f.required;
      box.addEventListener('change', () => state.commit(() => (f.required = box.checked)));
      req.append(box, ` Required`);
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.className = 'secondary';
      remove.textContent = `Remove field ${i + 1}`;
      remove.addEventListener('click', () => state.commit(() => state.design.fields.splice(i, 1)));
      const type = input(
        studio,
        `Type of field ${i + 1}`,
        f.type ?? 'text',
        'select',
        (v) =>
          state.commit(() => {
            if (v === 'list') f.type = 'list';
            else delete f.type;
          }),
        {
          options: [
            ['text', 'Text'],
            ['list', 'List (rows of a table)'],
          ],
        },
      );
      row.append(legend, key, label, type, req, remove);
      return row;
    }),
  );
  drawSampleFields(studio);
}

// The sample panel follows the fields: one input per field, labelled by its label. Typed values
// and the default shown as placeholder stay with their field's key.
function drawSampleFields(studio: Studio): void {
  const holder = document.getElementById('sample-fields');
  if (!holder) return;
  const kept: Record<string, string> = {};
  const shown: Record<string, string> = {};
  holder.querySelectorAll<HTMLInputElement>('[data-sample-field]').forEach((i) => {
    const key = i.dataset.sampleField ?? '';
    kept[key] = i.value;
    shown[key] = i.placeholder;
  });
  holder.replaceChildren(
    ...studio.state.design.fields.flatMap((f): HTMLElement[] => {
      if (f.type === 'list') {
        const note = document.createElement('p');
        note.className = 'small muted';
        note.dataset.sampleList = f.key;
        note.textContent = `${f.label}: a list; the preview shows three sample rows (not typed in).`;
        return [note];
      }
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
      i.addEventListener('input', () => studio.schedule());
      return [l, i];
    }),
  );
}

/** "Add field": the next free key field<n>. */
export function addField(studio: Studio): void {
  const { state } = studio;
  let n = state.design.fields.length + 1;
  while (state.design.fields.some((f) => f.key === `field${n}`)) n++;
  state.commit(() => state.design.fields.push({ key: `field${n}`, label: `Field ${n}`, required: false }));
}
