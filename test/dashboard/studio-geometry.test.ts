import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { studioFontFamilies, studioFontName } from '../../src/browser/studio/fonts.js';
import { studioNearest, studioResize } from '../../src/browser/studio/geometry.js';

// The studio's resize and font-family rules, alone (the browser tests drive them through the page).

const free = {
  snapX: (v: number) => v,
  snapY: (v: number) => v,
  minW: 1,
  minH: 0.5,
  max: Infinity,
  square: false,
  keepRatio: false,
};

describe('studio geometry', () => {
  const box = { x: 100, y: 100, w: 200, h: 100 };

  it('a corner resizes from the opposite corner, an edge along its own axis only', () => {
    assert.deepEqual(studioResize(box, 'nw', -20, -10, free), { x: 80, y: 90, w: 220, h: 110 });
    assert.deepEqual(studioResize(box, 'se', 20, 10, free), { x: 100, y: 100, w: 220, h: 110 });
    assert.deepEqual(studioResize(box, 'e', 20, 50, free), { x: 100, y: 100, w: 220, h: 100 });
    assert.deepEqual(studioResize(box, 's', 20, 50, free), { x: 100, y: 100, w: 200, h: 150 });
  });

  it('never smaller than the minimum, never past the page top-left, the fixed side stays put', () => {
    assert.deepEqual(studioResize(box, 'w', 500, 0, free), { x: 299, y: 100, w: 1, h: 100 });
    assert.deepEqual(studioResize(box, 'nw', -500, -500, free), { x: 0, y: 0, w: 300, h: 200 });
  });

  it('square (QR codes) follows the larger move; Shift on a corner keeps the proportions', () => {
    const qr = { x: 100, y: 100, w: 72, h: 72 };
    const square = { ...free, square: true, minW: 36, minH: 36, max: 600 };
    assert.deepEqual(studioResize(qr, 'nw', -30, -10, square), { x: 70, y: 70, w: 102, h: 102 });
    assert.deepEqual(studioResize(qr, 'se', 1000, 0, square), { x: 100, y: 100, w: 600, h: 600 });
    assert.deepEqual(studioResize(box, 'se', 100, 0, { ...free, keepRatio: true }), {
      x: 100,
      y: 100,
      w: 300,
      h: 150,
    });
    // Growing up-left with the ratio kept stops where the page's left edge is reached.
    assert.deepEqual(studioResize(box, 'nw', -400, 0, { ...free, keepRatio: true }), {
      x: 0,
      y: 50,
      w: 300,
      h: 150,
    });
    assert.deepEqual(studioResize(box, 'nw', 0, -400, { ...free, keepRatio: true }), {
      x: 0,
      y: 50,
      w: 300,
      h: 150,
    });
  });

  it('moved edges snap to the nearest guide within reach', () => {
    assert.equal(studioNearest(99, [0, 100, 101], 2), 100);
    assert.equal(studioNearest(95, [0, 100], 2), 95);
    const snapping = { ...free, snapX: (v: number) => studioNearest(v, [320], 2) };
    assert.equal(studioResize(box, 'e', 21, 0, snapping).w, 220);
  });

  it('font families group a `-bold` name with its regular one', () => {
    assert.deepEqual(
      studioFontFamilies(['sans', 'sans-bold', 'serif', 'serif-bold', 'brand-bold', 'brand', 'logo']),
      [
        {
          family: 'sans',
          weights: [
            { name: 'sans', label: 'Regular' },
            { name: 'sans-bold', label: 'Bold' },
          ],
        },
        {
          family: 'serif',
          weights: [
            { name: 'serif', label: 'Regular' },
            { name: 'serif-bold', label: 'Bold' },
          ],
        },
        {
          family: 'brand',
          weights: [
            { name: 'brand', label: 'Regular' },
            { name: 'brand-bold', label: 'Bold' },
          ],
        },
        { family: 'logo', weights: [{ name: 'logo', label: 'Regular' }] },
      ],
    );
  });

  it('an uploaded font is named after its family and weight, always a new valid name', () => {
    assert.equal(studioFontName('Open Sans', false, []), 'open-sans');
    assert.equal(studioFontName('Open Sans', true, ['open-sans']), 'open-sans-bold');
    assert.equal(studioFontName('Open Sans Bold', true, ['open-sans']), 'open-sans-bold');
    assert.equal(studioFontName('Open Sans', false, ['open-sans', 'open-sans-bold']), 'open-sans-2');
    assert.equal(studioFontName('Open Sans', true, ['open-sans-bold']), 'open-sans-2-bold');
    assert.equal(studioFontName('Ñandú Grotesk', false, []), 'nandu-grotesk');
    assert.equal(studioFontName('Sans', false, []), 'sans-2', 'not a bundled name');
    assert.equal(studioFontName('Serif', true, []), 'serif-2-bold');
    assert.equal(studioFontName('3D Display', false, []), 'd-display', 'starts with a letter');
    assert.equal(studioFontName('思源黑体', false, []), 'font-1', 'no letter kept');
    assert.equal(studioFontName(null, true, ['font-1-bold']), 'font-2-bold');
    const long = studioFontName('An Extremely Long Family Name Of A Font', true, []);
    assert.equal(long, 'an-extremely-long-fa-bold');
    assert.equal(
      studioFontName('Abcdefghijklmno Bold X', false, []),
      'abcdefghijklmno',
      'a regular font never ends in -bold',
    );
    // The grouping the font select shows.
    assert.deepEqual(
      studioFontFamilies(['open-sans', studioFontName('Open Sans', true, ['open-sans'])]).map((f) => [
        f.family,
        f.weights.map((w) => w.label),
      ]),
      [['open-sans', ['Regular', 'Bold']]],
    );
    for (const family of [
      'Open Sans',
      'Sans',
      '思源黑体',
      'A'.repeat(80),
      '--x--',
      'x'.repeat(19) + ' y',
      null,
    ]) {
      for (const bold of [false, true]) {
        const name = studioFontName(family, bold, []);
        assert.match(name, /^[a-z][a-z0-9-]{0,31}$/, `${family} ${bold}`);
        assert.doesNotMatch(name, /--|-$/, `${family} ${bold}`);
      }
    }
  });
});
