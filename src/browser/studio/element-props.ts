import type { LineElement, SignatoryElement } from '../../pdf/design.schema.js';
import type { Studio } from './context.js';
import { input } from './inputs.js';
import { colorProp, fontProps, numberProp } from './prop-inputs.js';

// The properties of a line and of a signatory block (the properties panel, properties.ts).

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
