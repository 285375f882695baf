import type { ImageElement, LineElement, QrElement, SignatoryElement } from '../../pdf/design.schema.js';
import type { Studio } from './context.js';
import { input } from './inputs.js';
import { colorProp, fontProps, numberProp } from './prop-inputs.js';

// The properties of a line and of a signatory block, and the alternative text of an image or the QR
// code (the properties panel, properties.ts).

/**
 * What a screen reader says for the image in the tagged PDF (docs/design-format.md): an image
 * without it is decoration; the QR code's default names its verification link.
 */
export function altProp(studio: Studio, e: ImageElement | QrElement): HTMLElement {
  return input(studio, 'Alternative text', e.alt ?? '', 'text', (v) =>
    studio.state.commit(() => {
      const alt = v.trim().slice(0, 500);
      if (alt) e.alt = alt;
      else delete e.alt;
    }),
  );
}

export function lineProps(studio: Studio, e: LineElement): HTMLElement[] {
  const { state } = studio;
  return [
    input(
      studio,
      'Direction',
      e.direction ?? 'horizontal',
      'select',
      (v) => state.commit(() => (e.direction = v as LineElement['direction'])),
      { options: ['horizontal', 'vertical'] },
    ),
    numberProp(studio, e, 'length', 'Length (pt)', 0.1),
    numberProp(studio, e, 'weight', 'Weight (pt)', 0.25, 20),
    colorProp(studio, e, 'color', 'Colour', '#000000'),
    input(
      studio,
      'Dash',
      e.dash ?? 'solid',
      'select',
      (v) => state.commit(() => (e.dash = v as LineElement['dash'])),
      { options: ['solid', 'dashed', 'dotted'] },
    ),
  ];
}

export function signatoryProps(studio: Studio, e: SignatoryElement): HTMLElement[] {
  const { state } = studio;
  const people = state.design.signatories ?? [];
  const which = input(
    studio,
    'Signatory',
    String(e.index),
    'select',
    (v) => state.commit(() => (e.index = Number(v))),
    { options: people.map((p, i): [string, string] => [String(i + 1), `${i + 1}. ${p.name}`]) },
  );
  return [
    which,
    ...fontProps(studio, e),
    numberProp(studio, e, 'size', 'Name size (pt)', 4, 72),
    colorProp(studio, e, 'color', 'Colour', '#000000'),
    input(
      studio,
      'Alignment',
      e.align ?? 'center',
      'select',
      (v) => state.commit(() => (e.align = v as SignatoryElement['align'])),
      { options: ['left', 'center', 'right'] },
    ),
  ];
}
