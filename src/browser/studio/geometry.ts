import type { Design, DesignElement } from '../../pdf/design.schema.js';

// The studio's geometry, without the DOM: element boxes, snapping, resize and its handles (Node
// tests check them: test/dashboard/studio-geometry.test.ts).

/** Within how many points a moved edge snaps to a guide. */
export const SNAP = 2;

export const round = (v: number) => Math.round(v * 10) / 10;

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

/** An element's box in points (a text's height is its line's). */
export function boxOf(e: DesignElement): StudioBox {
  switch (e.type) {
    case 'qr':
      return { x: e.x, y: e.y, w: e.size, h: e.size };
    case 'text':
      return { x: e.x, y: e.y, w: e.width, h: (e.size ?? 14) * 1.164 };
    case 'line': {
      const weight = e.weight ?? 1;
      return e.direction === 'vertical'
        ? { x: e.x, y: e.y, w: weight, h: e.length }
        : { x: e.x, y: e.y, w: e.length, h: weight };
    }
    default:
      return { x: e.x, y: e.y, w: e.width, h: e.height };
  }
}

/** How an element resizes. Rules are thin rectangles: they resize from their two ends, like a line's end points. */
export function shapeOf(e: DesignElement): StudioShape {
  if (e.type === 'text' || e.type === 'qr') return e.type;
  if (e.type === 'line') return e.direction === 'vertical' ? 'vline' : 'hline';
  if (e.type === 'rect' && e.height <= 4 && e.width > e.height) return 'hline';
  if (e.type === 'rect' && e.width <= 4 && e.height > e.width) return 'vline';
  return 'box';
}

/** Gives the element the box `b` (a QR code its size, a text its width, a line its length). */
export function applyBox(e: DesignElement, b: StudioBox): void {
  e.x = b.x;
  e.y = b.y;
  if (e.type === 'qr') e.size = b.w;
  else if (e.type === 'line') e.length = e.direction === 'vertical' ? b.h : b.w;
  else e.width = b.w;
  if (e.type === 'image' || e.type === 'rect' || e.type === 'signatory' || e.type === 'table') e.height = b.h;
}

/** Snaps a moved box of element i to the page centre and to the other elements' edges, within SNAP points. */
export function snapMove(design: Design, i: number, x: number, y: number, w: number, h: number) {
  const xs: number[] = [design.page.width / 2 - w / 2];
  const ys: number[] = [design.page.height / 2 - h / 2];
  design.elements.forEach((other, j) => {
    if (j === i) return;
    const b = boxOf(other);
    xs.push(b.x, b.x + b.w - w, b.x + b.w, b.x - w);
    ys.push(b.y, b.y + b.h - h, b.y + b.h, b.y - h);
  });
  const near = (v: number, list: number[]) => list.find((c) => Math.abs(c - v) < SNAP) ?? v;
  return { x: Math.max(0, round(near(x, xs))), y: Math.max(0, round(near(y, ys))) };
}

/**
 * How element i resizes; `guides` snaps moved edges to the page's edges and centre and to the
 * other elements' edges (as moving does), none for the keyboard.
 */
export function resizeRules(
  design: Design,
  i: number,
  guides: boolean,
  keepRatio = false,
): StudioResizeRules {
  const e = design.elements[i];
  const xs = [0, design.page.width / 2, design.page.width];
  const ys = [0, design.page.height / 2, design.page.height];
  design.elements.forEach((other, j) => {
    if (j === i) return;
    const b = boxOf(other);
    xs.push(b.x, b.x + b.w);
    ys.push(b.y, b.y + b.h);
  });
  const qr = e?.type === 'qr';
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
