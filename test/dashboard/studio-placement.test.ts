import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Design } from '../../src/pdf/design.schema.js';
import {
  placeImage,
  placeNearBottom,
  type Placement,
  type PlacementBox,
} from '../../src/browser/studio/placement.js';
import { removeSignatory } from '../../src/browser/studio/signatories.js';

// Where the studio puts an uploaded image, alone (the browser test uploads one through the page).

const page = { width: 842, height: 595 };
const overlap = (a: Placement, b: PlacementBox) =>
  Math.max(0, Math.min(a.x + a.width, b.x + b.w) - Math.max(a.x, b.x)) *
  Math.max(0, Math.min(a.y + a.height, b.y + b.h) - Math.max(a.y, b.y));
const inside = (p: Placement) =>
  p.x >= 0 && p.y >= 0 && p.x + p.width <= page.width && p.y + p.height <= page.height;

describe('studio image placement', () => {
  const title: PlacementBox = { x: 60, y: 60, w: 722, h: 42, text: true };
  const name: PlacementBox = { x: 121, y: 270, w: 600, h: 40, text: true };

  it('a title across the top and a name in the middle: a free band, inside the page, over no text', () => {
    const p = placeImage(page, [title, name], 2);
    assert.ok(inside(p), JSON.stringify(p));
    assert.equal(overlap(p, title), 0);
    assert.equal(overlap(p, name), 0);
    // Natural proportions, at most a third of the page wide.
    assert.ok(Math.abs(p.width / p.height - 2) < 0.02, JSON.stringify(p));
    assert.ok(p.width <= page.width / 3);
    // In the largest free band: below the name (y 310..595), not squeezed between title and name.
    assert.ok(p.y >= 310, JSON.stringify(p));
  });

  it('an empty page: a third of the page wide, in the middle', () => {
    const p = placeImage(page, [], 1);
    assert.ok(Math.abs(p.width - page.width / 3) < 0.2);
    assert.ok(Math.abs(p.x + p.width / 2 - page.width / 2) < 10, JSON.stringify(p));
    assert.ok(Math.abs(p.y + p.height / 2 - page.height / 2) < 10, JSON.stringify(p));
  });

  it('keeps off other elements too when there is room, and a tall image fits the page height', () => {
    const band: PlacementBox = { x: 0, y: 0, w: 842, h: 280, text: false };
    const p = placeImage(page, [band], 0.2);
    assert.ok(inside(p), JSON.stringify(p));
    assert.equal(overlap(p, band), 0);
    assert.ok(Math.abs(p.width / p.height - 0.2) < 0.02);
    // A frame around the page (over half of it) is drawn under everything: not in the way.
    const frame: PlacementBox = { x: 18, y: 18, w: 806, h: 559, text: false };
    assert.deepEqual(placeImage(page, [band, frame], 0.2), p);
  });

  it('a full page: still inside the page, at the smallest overlap with text', () => {
    const rows: PlacementBox[] = [0, 1, 2, 3, 4].map((r) => ({
      x: 0,
      y: r * 119,
      w: 842,
      h: r === 2 ? 60 : 119,
      text: true,
    }));
    const p = placeImage(page, rows, 1.5);
    assert.ok(inside(p), JSON.stringify(p));
    const total = rows.reduce((sum, b) => sum + overlap(p, b), 0);
    // The gap in the middle row (y 298..357) is the least-covered spot: the smallest image there
    // overlaps less than its own area.
    assert.ok(total < p.width * p.height, JSON.stringify(p));
    assert.ok(p.y <= 298 + 59 && p.y + p.height >= 298, JSON.stringify(p));
  });
});

describe('studio signatory blocks', () => {
  it('a new block goes near the bottom, over no text, nearest the middle of the row', () => {
    const footer: PlacementBox = { x: 60, y: 500, w: 300, h: 40, text: true };
    const frame: PlacementBox = { x: 18, y: 18, w: 806, h: 559, text: false };
    const p = placeNearBottom(page, [footer, frame], 200, 90);
    assert.ok(inside(p), JSON.stringify(p));
    assert.equal(overlap(p, footer), 0);
    assert.equal(p.y + p.height, page.height - 40);
    assert.ok(p.x >= 360 && Math.abs(p.x + 100 - page.width / 2) < 60, JSON.stringify(p));
  });

  it('removing a signatory removes its blocks and renumbers the later ones', () => {
    const design: Design = {
      name: 'x',
      page,
      signatories: [{ name: 'A' }, { name: 'B' }, { name: 'C' }],
      elements: [
        { type: 'signatory', index: 1, x: 0, y: 0, width: 10, height: 10 },
        { type: 'signatory', index: 2, x: 20, y: 0, width: 10, height: 10 },
        { type: 'signatory', index: 3, x: 40, y: 0, width: 10, height: 10 },
      ],
    } as Design;
    removeSignatory(design, 2);
    assert.deepEqual(
      design.signatories?.map((s) => s.name),
      ['A', 'C'],
    );
    assert.deepEqual(
      design.elements.map((e) => (e.type === 'signatory' ? [e.index, e.x] : [])),
      [
        [1, 0],
        [2, 40],
      ],
    );
  });
});
