import type { DesignElement, SignatoryElement, TextElement } from '../../pdf/design.schema.js';
import type { Studio } from './context.js';
import { studioFontFamilies } from './fonts.js';
import { input } from './inputs.js';

// The property panel's generic inputs (a number, a colour, the font), shared by every kind of
// element's properties (properties.ts, element-props.ts).

/** The element's properties by name, for the panel's generic number and colour inputs. */
const props = (e: DesignElement) => e as unknown as Record<string, unknown>;

export function numberProp(
  studio: Studio,
  e: DesignElement,
  key: string,
  label: string,
  min = 0,
  max = Infinity,
) {
  return input(
    studio,
    label,
    String(props(e)[key] ?? ''),
    'number',
    (v) => {
      const n = Number(v);
      if (v === '' && key === 'minSize') studio.state.commit(() => delete props(e).minSize);
      else if (v !== '' && Number.isFinite(n) && n >= min && n <= max)
        studio.state.commit(() => (props(e)[key] = n));
    },
    { attributes: { step: 'any', min: String(min) }, live: true },
  );
}

// Font family and weight: the weights listed are the ones the family has (bundled DejaVu Sans
// and Serif in Regular and Bold; a design's own font `x` with `x-bold` if the design has one).
export function fontProps(studio: Studio, e: TextElement | SignatoryElement) {
  const families = studioFontFamilies(studio.fonts);
  const current = e.font ?? 'sans';
  const family = families.find((f) => f.weights.some((w) => w.name === current)) ?? families[0];
  if (!family) return [];
  const weight = family.weights.find((w) => w.name === current) ?? family.weights[0]!;
  const label = (f: string) =>
    f === 'sans' ? 'Sans (DejaVu Sans)' : f === 'serif' ? 'Serif (DejaVu Serif)' : f;
  const familySelect = input(
    studio,
    'Font',
    family.family,
    'select',
    (v) => {
      const next = families.find((f) => f.family === v);
      if (!next) return;
      // The same weight in the new family when it has it, else its first.
      const same = next.weights.find((w) => w.label === weight.label) ?? next.weights[0]!;
      studio.state.commit(() => (e.font = same.name));
    },
    { options: families.map((f) => [f.family, label(f.family)]) },
  );
  const weightSelect = input(
    studio,
    'Weight',
    weight.name,
    'select',
    (v) => studio.state.commit(() => (e.font = v)),
    {
      options: family.weights.map((w) => [w.name, w.label]),
    },
  );
  return [familySelect, weightSelect];
}

export function colorProp(studio: Studio, e: DesignElement, key: string, label: string, fallback: string) {
  const value = (props(e)[key] as string | undefined) ?? fallback;
  return input(studio, label, value.toLowerCase(), 'color', (v) =>
    studio.state.commit(() => (props(e)[key] = v.toUpperCase())),
  );
}
