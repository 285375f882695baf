// Where a new image goes, without the DOM (tested in Node: test/dashboard/studio-placement.test.ts):
// at its natural proportions, at most a third of the page wide, centred in the largest free area
// of the page, never over a text element's box (nor over other elements' when there is room).

export interface PlacementBox {
  x: number;
  y: number;
  w: number;
  h: number;
  /** A text element's box: an image never goes over one when there is any room. */
  text: boolean;
}

export interface Placement {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The sizes tried, largest first, as fractions of the largest allowed. */
const SCALES = [1, 0.8, 0.6, 0.45, 0.3, 0.2];
/** The grid of positions tried: this many steps across and down the page. */
const STEPS = 48;

const overlap = (a: { x: number; y: number; w: number; h: number }, b: PlacementBox) =>
  Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) *
  Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));

/**
 * How far the box stays from the page's edges and from every box (0 when touching or over one),
 * plus a little of its room sideways and up and down, so that among equally clear spots the one
 * in the middle of its free area wins.
 */
function clearance(r: { x: number; y: number; w: number; h: number }, page: Size, boxes: PlacementBox[]) {
  let d = Math.min(r.x, r.y, page.width - r.x - r.w, page.height - r.y - r.h);
  let across = Math.min(r.x, page.width - r.x - r.w);
  let down = Math.min(r.y, page.height - r.y - r.h);
  for (const b of boxes) {
    const dx = Math.max(b.x - (r.x + r.w), r.x - (b.x + b.w), 0);
    const dy = Math.max(b.y - (r.y + r.h), r.y - (b.y + b.h), 0);
    d = Math.min(d, Math.max(dx, dy));
    if (dy === 0) across = Math.min(across, dx);
    if (dx === 0) down = Math.min(down, dy);
  }
  return d + (across + down) / 1000;
}

/** Frames and backgrounds (boxes other than text over half the page) are drawn under everything: not in the way. */
const obstacles = (page: Size, boxes: PlacementBox[]) =>
  boxes.filter((b) => b.text || b.w * b.h <= (page.width * page.height) / 2);

interface Size {
  width: number;
  height: number;
}

/**
 * The box for an image of `aspect` (width / height) on a page of `page` size holding `boxes`.
 * Tries the largest size first: the first size with a spot over no box at all wins, at the spot
 * farthest from everything (the middle of the largest free area). When none has one: the spot
 * over no text box, else the one over the least text, then the least of the other boxes.
 */
export function placeImage(page: Size, all: PlacementBox[], aspect: number): Placement {
  const boxes = obstacles(page, all);
  const ratio = Number.isFinite(aspect) && aspect > 0 ? aspect : 1;
  // At most a third of the page wide, and never taller than the page.
  const maxW = Math.min(page.width / 3, page.height * ratio);
  let best: { r: Placement; text: number; other: number; scale: number; clear: number } | undefined;
  for (const scale of SCALES) {
    const w = maxW * scale;
    const h = w / ratio;
    for (let i = 0; i <= STEPS; i++) {
      for (let j = 0; j <= STEPS; j++) {
        const r = { x: ((page.width - w) * i) / STEPS, y: ((page.height - h) * j) / STEPS, w, h };
        let text = 0;
        let other = 0;
        for (const b of boxes) {
          if (b.text) text += overlap(r, b);
          else other += overlap(r, b);
        }
        const clear = text + other === 0 ? clearance(r, page, boxes) : 0;
        const better =
          !best ||
          text < best.text ||
          (text === best.text && other < best.other) ||
          (text === best.text && other === best.other && scale === best.scale && clear > best.clear);
        if (better) best = { r: { x: r.x, y: r.y, width: w, height: h }, text, other, scale, clear };
      }
    }
    if (best && best.text === 0 && best.other === 0) break;
  }
  const r = best?.r ?? { x: 0, y: 0, width: maxW, height: maxW / ratio };
  const round = (v: number) => Math.floor(v * 10) / 10;
  return { x: round(r.x), y: round(r.y), width: round(r.width), height: round(r.height) };
}

/**
 * A free spot of `w` x `h` near the bottom of the page (a signatory block): the lowest row with
 * room (40 pt above the bottom edge first, up to the page's middle), the spot nearest the middle
 * of the row; when the bottom half has no free spot, the spot there over the least of the other
 * boxes, text counting most.
 */
export function placeNearBottom(page: Size, all: PlacementBox[], w: number, h: number): Placement {
  const boxes = obstacles(page, all);
  const width = Math.min(w, page.width);
  const height = Math.min(h, page.height);
  const margin = Math.min(40, (page.height - height) / 2, (page.width - width) / 2);
  let best: { x: number; y: number; cost: number; centred: number } | undefined;
  const top = Math.min(page.height / 2, page.height - height - margin);
  for (let y = page.height - height - margin; y >= top; y -= 10) {
    for (let i = 0; i <= STEPS; i++) {
      const x = margin + ((page.width - width - 2 * margin) * i) / STEPS;
      const r = { x, y, w: width, h: height };
      const cost = boxes.reduce((sum, b) => sum + overlap(r, b) * (b.text ? 1000 : 1), 0);
      const centred = Math.abs(x + width / 2 - page.width / 2);
      const better =
        !best || cost < best.cost || (cost === best.cost && y === best.y && centred < best.centred);
      if (better) best = { x, y, cost, centred };
    }
    if (best && best.cost === 0) break;
  }
  const r = best ?? { x: 0, y: 0 };
  const round = (v: number) => Math.floor(v * 10) / 10;
  return { x: round(r.x), y: round(r.y), width: round(width), height: round(height) };
}
