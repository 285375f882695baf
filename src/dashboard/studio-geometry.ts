// Pure helpers of the design studio's browser script (studio-assets.ts sends their source with
// it, so they must stay self-contained: no imports, no outside names). Kept apart so that Node
// tests can check them, and so that the script stays readable.

/** An element's box in points, from the page's top-left corner. */
export interface StudioBox {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Compass names of the resize handles: `nw` is the top-left corner, `e` the right edge. */
export type StudioHandle = 'nw' | 'n' | 'ne' | 'e' | 'se' | 's' | 'sw' | 'w';

/** How an element resizes: text by its width, a QR code square, a thin rectangle (a rule) by its ends. */
export type StudioShape = 'text' | 'qr' | 'box' | 'hline' | 'vline';

/** The handles a selected element offers, and (last) the one the keyboard resizes with. */
export function studioHandles(shape: StudioShape): StudioHandle[] {
  if (shape === 'text' || shape === 'hline') return ['w', 'e'];
  if (shape === 'vline') return ['n', 's'];
  if (shape === 'qr') return ['nw', 'ne', 'sw', 'se'];
  return ['nw', 'n', 'ne', 'w', 'e', 'sw', 's', 'se'];
}

export interface StudioResizeRules {
  /** Snap a moved vertical edge (x) or horizontal edge (y) to a guide; identity for none. */
  snapX: (x: number) => number;
  snapY: (y: number) => number;
  minW: number;
  minH: number;
  /** Largest side (a QR code's 600 pt). */
  max: number;
  /** Width and height stay equal (a QR code). */
  square: boolean;
  /** A corner keeps the start box's proportions (Shift while dragging an image or rectangle). */
  keepRatio: boolean;
}

/**
 * The box after dragging `handle` by (dx, dy) points: the opposite edge or corner stays where it
 * was. Moved edges snap first; then the minimum size and, for square or proportional resizes, the
 * ratio, always measured from the fixed side.
 */
export function studioResize(
  start: StudioBox,
  handle: StudioHandle,
  dx: number,
  dy: number,
  rules: StudioResizeRules,
): StudioBox {
  const round = (v: number) => Math.round(v * 10) / 10;
  const west = handle.endsWith('w');
  const east = handle.endsWith('e');
  const north = handle.startsWith('n');
  const south = handle.startsWith('s');
  const right = start.x + start.w;
  const bottom = start.y + start.h;
  let w = start.w;
  let h = start.h;
  if (west) w = right - Math.max(0, rules.snapX(start.x + dx));
  if (east) w = rules.snapX(right + dx) - start.x;
  if (north) h = bottom - Math.max(0, rules.snapY(start.y + dy));
  if (south) h = rules.snapY(bottom + dy) - start.y;
  w = Math.min(rules.max, Math.max(rules.minW, w));
  h = Math.min(rules.max, Math.max(rules.minH, h));
  const corner = (west || east) && (north || south);
  if (rules.square || (rules.keepRatio && corner)) {
    const ratio = rules.square ? 1 : start.w / start.h;
    // Follow the side that the pointer changed more, relative to its length.
    const byWidth =
      (west || east) && (!(north || south) || Math.abs(w / start.w - 1) >= Math.abs(h / start.h - 1));
    if (byWidth) h = w / ratio;
    else w = h * ratio;
    // The fixed corner may leave too little room on the page side being grown towards.
    const scale = Math.min(1, west ? right / w : 1, north ? bottom / h : 1);
    w *= scale;
    h *= scale;
  }
  const x = west ? right - w : start.x;
  const y = north ? bottom - h : start.y;
  return { x: round(x), y: round(y), w: round(w), h: round(h) };
}

/** The guide nearest to `v` within `within` points, else `v`. */
export function studioNearest(v: number, guides: number[], within: number): number {
  let best = v;
  let distance = within;
  for (const g of guides) {
    if (Math.abs(g - v) < distance) {
      distance = Math.abs(g - v);
      best = g;
    }
  }
  return best;
}

/**
 * The font families of the fonts a text may name, with their weights: `sans` and `sans-bold` are
 * the family `sans` in Regular and Bold (a design's own fonts follow the same `-bold` naming).
 */
export function studioFontFamilies(
  names: string[],
): { family: string; weights: { name: string; label: string }[] }[] {
  const families: { family: string; weights: { name: string; label: string }[] }[] = [];
  for (const name of names) {
    const bold = name.endsWith('-bold');
    const family = bold ? name.slice(0, -'-bold'.length) : name;
    let entry = families.find((f) => f.family === family);
    if (!entry) families.push((entry = { family, weights: [] }));
    entry.weights.push({ name, label: bold ? 'Bold' : 'Regular' });
    entry.weights.sort((a, b) => Number(a.label === 'Bold') - Number(b.label === 'Bold'));
  }
  return families;
}

/**
 * The name an uploaded font gets in the design: its family in lower case with hyphens ("Open Sans"
 * becomes `open-sans`), `-bold` added for a bold one, so that studioFontFamilies shows the two as
 * one family in two weights (a family name ending in "Bold" counts as that family's bold); a number
 * when the family is already there in that weight (`open-sans-2`); `font-N` when the family has no
 * letter this keeps. Always a valid design font name (`^[a-z][a-z0-9-]{0,31}$`), not in `taken` nor
 * a bundled name. Self-contained: the studio's page script gets its source.
 */
export function studioFontName(family: string | null | undefined, bold: boolean, taken: string[]): string {
  const used = new Set(['sans', 'sans-bold', 'serif', 'serif-bold', ...taken]);
  const slug = (family ?? '')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+|-+$/g, '')
    .slice(0, 20)
    .replace(/-+$/, '')
    .replace(/-bold$/, ''); // "Open Sans Bold" as a family name: the bold of open-sans
  const suffix = bold ? '-bold' : '';
  if (slug) {
    for (let n = 1; n < 100; n++) {
      const name = `${slug}${n === 1 ? '' : `-${n}`}${suffix}`;
      if (!used.has(name)) return name;
    }
  }
  for (let n = 1; ; n++) if (!used.has(`font-${n}${suffix}`)) return `font-${n}${suffix}`;
}
