import type { TextElement } from '../../pdf/design.schema.js';
import type { Studio } from './context.js';
import { input } from './inputs.js';
import { colorProp, fontProps, numberProp } from './prop-inputs.js';
import { altProp, lineProps, signatoryProps } from './element-props.js';
import { insertField } from './insert-field.js';
import { tableProps } from './table.js';

// The selected element's properties panel (#studio-props).

function textProps(studio: Studio, e: TextElement): HTMLElement[] {
  const { state } = studio;
  const parts: HTMLElement[] = [];
  const text = input(studio, 'Text', e.text, 'text', (v) => v && state.commit(() => (e.text = v)), {
    attributes: { dir: 'auto' },
    live: true,
  });
  parts.push(text, ...insertField(studio, e, text));
  parts.push(...fontProps(studio, e));
  parts.push(numberProp(studio, e, 'size', 'Size (pt)', 4, 200));
  parts.push(colorProp(studio, e, 'color', 'Colour', '#000000'));
  parts.push(
    input(
      studio,
      'Alignment',
      e.align ?? 'left',
      'select',
      (v) => state.commit(() => (e.align = v as TextElement['align'])),
      {
        options: ['left', 'center', 'right'],
      },
    ),
  );
  parts.push(numberProp(studio, e, 'minSize', 'Shrink to fit down to (pt)', 4, 200));
  return parts;
}

/** Draws the panel of the selected element (or the hint when none is). */
export function drawProps(studio: Studio): void {
  const panel = document.getElementById('studio-props');
  if (!panel) return;
  const e = studio.state.design.elements[studio.state.selected];
  if (!e) {
    panel.innerHTML = '<p class="muted small">Select an element on the page or in the list.</p>';
    return;
  }
  if (e.type === 'table') {
    panel.replaceChildren(...tableProps(studio, e));
    return;
  }
  const parts: HTMLElement[] = [];
  if (e.type === 'text') parts.push(...textProps(studio, e));
  if (e.type === 'signatory') parts.push(...signatoryProps(studio, e));
  parts.push(numberProp(studio, e, 'x', 'X (pt)'), numberProp(studio, e, 'y', 'Y (pt)'));
  if (e.type === 'line') parts.push(...lineProps(studio, e));
  else if (e.type === 'qr')
    parts.push(
      numberProp(studio, e, 'size', 'Size (pt)', 36, 600),
      colorProp(studio, e, 'color', 'Colour', '#000000'),
    );
  else parts.push(numberProp(studio, e, 'width', 'Width (pt)', 0.1));
  if (e.type === 'rect' || e.type === 'image' || e.type === 'signatory')
    parts.push(numberProp(studio, e, 'height', 'Height (pt)', 0.1));
  if (e.type === 'image') {
    const picker = input(studio, 'Replace image', '', 'file', () => undefined, {
      attributes: { accept: 'image/png,image/jpeg' },
    });
    const field = picker.querySelector('input') as HTMLInputElement;
    field.addEventListener('change', () => {
      const file = field.files?.[0];
      if (file) void studio.replaceImage(e, file);
    });
    parts.push(picker);
  }
  if (e.type === 'image' || e.type === 'qr') parts.push(altProp(studio, e));
  if (e.type === 'rect')
    parts.push(
      colorProp(studio, e, 'fill', 'Fill', '#ffffff'),
      colorProp(studio, e, 'stroke', 'Outline', '#000000'),
    );
  panel.replaceChildren(...parts);
}
