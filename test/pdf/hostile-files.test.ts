import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PNG } from 'pngjs';
import type { Design } from '../../src/pdf/design.schema.js';
import { createFileChecker } from '../../src/pdf/file-checker.js';
import { createPdfRenderer } from '../../src/pdf/pdf-renderer.js';
import {
  chunk,
  dejavu,
  format12Cmap,
  hostileFiles,
  nameTable as nameOf,
  png,
  tableRecord,
  withTable,
} from '../helpers/hostile-files.js';
import { pdfOf, values, withPdfFile } from './pdf-helpers.js';

// Issue 27: every hostile file is answered within 2 s, refused with a message that names the
// problem, or taken when it is valid; valid images embed pixel for pixel, without being decoded
// (or, with alpha, split still filtered).

const checker = createFileChecker();
const renderer = createPdfRenderer({ threads: 1 });
after(() => Promise.all([checker.close(), renderer.close()]));

describe('hostile files, checked in the file checker threads', () => {
  for (const file of hostileFiles()) {
    it(`${file.kind}: ${file.name} is ${file.refusal ? 'refused' : 'taken'} within 2 s`, async () => {
      const started = performance.now();
      const result =
        file.kind === 'image'
          ? await checker.image(file.bytes[0] === 0xff ? 'jpeg' : 'png', file.bytes)
          : await checker.font(file.bytes);
      const ms = performance.now() - started;
      assert.ok(ms < 2000, `answered in ${Math.round(ms)} ms`);
      if (file.refusal) {
        assert.equal(result.ok, false, JSON.stringify(result));
        assert.match(result.ok ? '' : result.message, file.refusal);
      } else {
        assert.equal(result.ok, true, JSON.stringify(result));
      }
    });
  }

  it('a design with the same bomb in 5 elements and the background checks it once, within 2 s', async () => {
    const bomb = png({ width: 5_000, height: 5_000, colorType: 6 });
    const src = `data:image/png;base64,${bomb.toString('base64')}`;
    const design = page(72, [
      ...Array.from({ length: 5 }, (_, i) => ({
        type: 'image' as const,
        src,
        x: i,
        y: 0,
        width: 10,
        height: 10,
      })),
    ]);
    design.background = { image: src };
    const started = performance.now();
    assert.deepEqual(await checker.design(design), []);
    assert.ok(performance.now() - started < 2000);
    // The same design again: from the cache of designs checked lately. (Inflating the bomb takes
    // about a second; the bounds leave room for a loaded machine.)
    const again = performance.now();
    assert.deepEqual(await checker.design(structuredClone(design)), []);
    assert.ok(performance.now() - again < 250, `${performance.now() - again} ms`);
    // The next version of the design (an element moved) keeps the image: not inflated again.
    const moved = structuredClone(design);
    moved.elements[0]!.x = 30;
    const next = performance.now();
    assert.deepEqual(await checker.design(moved), []);
    assert.ok(performance.now() - next < 400, `${performance.now() - next} ms`);
  });

  it('two images within the limits that decode to more than 160 MB in all: the second is refused', async () => {
    const one = `data:image/png;base64,${png({ width: 5_000, height: 5_000, colorType: 6 }).toString('base64')}`;
    const two = `data:image/png;base64,${png({ width: 5_000, height: 4_999, colorType: 6 }).toString('base64')}`;
    const design = page(72, [
      { type: 'image', src: one, x: 0, y: 0, width: 10, height: 10 },
      { type: 'image', src: one, x: 20, y: 0, width: 10, height: 10 },
      { type: 'image', src: two, x: 40, y: 0, width: 10, height: 10 },
    ]);
    const issues = await checker.design(design);
    assert.deepEqual(
      issues.map((i) => i.path),
      [['elements', 2, 'src']],
    );
    assert.match(issues[0]!.message, /over 160 MB decoded in all/);
  });

  it('a design whose images are refused names each at its path; a font with a cmap bomb at its path', async () => {
    const big = `data:image/png;base64,${png({ width: 12_000, height: 12_000, idat: Buffer.alloc(8) }).toString('base64')}`;
    const font = withTable(dejavu(), 'cmap', format12Cmap([[0x10000, 0xffffff, 1]]));
    const design = page(72, [{ type: 'image', src: big, x: 0, y: 0, width: 10, height: 10 }]);
    design.fonts = [{ name: 'brand', src: `data:font/ttf;base64,${font.toString('base64')}` }];
    const issues = await checker.design(design);
    assert.deepEqual(
      issues.map((i) => i.path),
      [
        ['fonts', 0, 'src'],
        ['elements', 0, 'src'],
      ],
    );
    assert.match(issues[0]!.message, /cmap table has a group outside Unicode \(U\+10000-U\+FFFFFF\)/);
    assert.match(issues[1]!.message, /is 12000 × 12000 pixels/);
  });

  it('a check over its time limit ends its thread and is refused, naming the limit; the next check works', async () => {
    const slow = createFileChecker({ threads: 1, timeLimitMs: 1 });
    try {
      const bomb = png({ width: 5_000, height: 5_000, colorType: 6 });
      const result = await slow.image('png', bomb);
      assert.deepEqual(result, {
        ok: false,
        message: 'took longer than 0.001 s to check, the limit: it cannot be used',
      });
    } finally {
      await slow.close();
    }
    assert.equal((await checker.image('png', png({ width: 2, height: 2 }))).ok, true);
  });

  it('a check that waits too long for a thread is a 503 (busy), not a refusal of its file; the one running is unharmed', async () => {
    const busy = createFileChecker({ threads: 1, queueLimitMs: 100 });
    try {
      // Until the thread is up (its start counts as waiting).
      for (let i = 0; i < 50; i++) {
        const up = await busy.image('png', png({ width: 2, height: 2 })).catch(() => undefined);
        if (up?.ok) break;
      }
      const bomb = png({ width: 5_000, height: 5_000, colorType: 6 });
      const first = busy.image('png', bomb);
      const second = busy.image('png', png({ width: 2, height: 2 }));
      await assert.rejects(second, (err: Error & { code?: string }) => err.code === 'service_unavailable');
      assert.equal((await first).ok, true);
    } finally {
      await busy.close();
    }
  });

  it('600 distinct fonts checked one after the other: HarfBuzz memory is reused, not kept', async () => {
    const base = dejavu();
    const before = process.memoryUsage().rss;
    for (let i = 0; i < 600; i++) {
      const result = await checker.font(withTable(base, 'name', nameOf(`Distinct ${i}`)));
      assert.equal(result.ok, true, JSON.stringify(result));
    }
    const grown = (process.memoryUsage().rss - before) / 1048576;
    console.log(`# 600 distinct 0.7 MB fonts checked: RSS grew ${grown.toFixed(0)} MiB`);
    // Kept, they were 470 MiB (and after a few thousand the thread's HarfBuzz heap was full).
    assert.ok(grown < 250, `${grown} MiB`);
  });

  it('a font with a 10,000-character name makes PDFs whose font names fit in 127 bytes', async () => {
    const font = withTable(dejavu(), 'name', nameOf('N'.repeat(10_000)));
    const design = page(200, [
      { type: 'text', text: 'Hello {{recipient.name}}', font: 'brand', x: 10, y: 10, width: 180 },
    ]);
    design.fonts = [{ name: 'brand', src: `data:font/ttf;base64,${font.toString('base64')}` }];
    const pdf = pdfOf((await renderer.render({ id: 'long-name', version: '1', design }, [values()]))[0]);
    const names = [...pdf.toString('latin1').matchAll(/\/BaseFont \/(\S+)/g)].map((m) => m[1]!);
    assert.ok(names.length > 0);
    for (const name of names) assert.ok(name.length <= 127, `${name.length} bytes`);
    const fonts = withPdfFile(pdf, (file) =>
      execFileSync('pdffonts', [file], { encoding: 'utf8', stdio: 'pipe' }),
    );
    assert.match(fonts, /NNNNNNNN/);
  });

  it('astral code points map through the format-12 groups (binary search, no per-code-point map)', async () => {
    const font = dejavu();
    const numGlyphs = font.readUInt16BE(tableRecord(font, 'maxp').offset + 4);
    const cmap = format12Cmap([
      [0x20, 0x7e, 3],
      [0x1f600, 0x1f601, 40],
      [0x20000, 0x20000 + numGlyphs - 300, 200],
    ]);
    const { parseTrueType } = await import('../../src/pdf/truetype-font.js');
    const parsed = parseTrueType(withTable(font, 'cmap', cmap));
    assert.deepEqual(
      [0x41, 0x1f600, 0x1f601, 0x1f602, 0x20000, 0x20005, 0x1ffff, 0x10ffff].map((cp) => parsed.glyphId(cp)),
      [36, 40, 41, 0, 200, 205, 0, 0],
    );
  });
});

describe('images embedded without decoding, pixel for pixel', () => {
  // A 72 × 72 image filling a 72 pt page, rasterised at 72 dpi, in blocks of 8 × 8 pixels of one
  // colour each (sampled at their centres, away from the rasteriser's edges), compared with what
  // pngjs decodes from the same file, over white.
  const SIDE = 72;
  const block = (x: number, y: number) => [
    (x >> 3) * 29,
    (y >> 3) * 27,
    ((x >> 3) + (y >> 3)) * 13,
    30 + (y >> 3) * 28,
  ];
  const source = (() => {
    const data = Buffer.alloc(SIDE * SIDE * 4);
    for (let y = 0; y < SIDE; y++) for (let x = 0; x < SIDE; x++) data.set(block(x, y), 4 * (y * SIDE + x));
    return data;
  })();

  async function drawn(image: Buffer): Promise<Buffer> {
    const design = page(SIDE, [
      {
        type: 'image',
        src: `data:image/png;base64,${image.toString('base64')}`,
        x: 0,
        y: 0,
        width: SIDE,
        height: SIDE,
      },
    ]);
    assert.deepEqual(await checker.design(design), []);
    const pdf = pdfOf(
      (
        await renderer.render({ id: `img-${image.length}-${image[25]}`, version: '1', design }, [values()])
      )[0],
    );
    return withPdfFile(pdf, (file, dir) => {
      execFileSync('pdftoppm', ['-r', '72', '-png', '-singlefile', file, join(dir, 'p')]);
      return PNG.sync.read(readFileSync(join(dir, 'p.png'))).data;
    });
  }

  const over = (c: number, a: number) => Math.round((c * a + 255 * (255 - a)) / 255);

  async function assertDrawn(file: Buffer, what: string): Promise<void> {
    const reference = PNG.sync.read(file).data;
    const actual = await drawn(file);
    let worst = 0;
    for (let y = 4; y < SIDE; y += 8)
      for (let x = 4; x < SIDE; x += 8) {
        const at = 4 * (y * SIDE + x);
        for (let c = 0; c < 3; c++) {
          const want = over(reference[at + c]!, reference[at + 3]!);
          worst = Math.max(worst, Math.abs(actual[at + c]! - want));
        }
      }
    assert.ok(worst <= 3, `${what}: a pixel is off by ${worst}`);
  }

  for (const [name, colorType] of [
    ['RGB', 2],
    ['RGBA', 6],
    ['grey', 0],
    ['grey with alpha', 4],
  ] as const) {
    it(`${name} (colour type ${colorType}, 8 bits)`, async () => {
      const file = PNG.sync.write(Object.assign(new PNG({ width: SIDE, height: SIDE }), { data: source }), {
        colorType,
        inputHasAlpha: true,
      });
      await assertDrawn(file, name);
    });
  }

  it('RGBA with 16 bits a sample', async () => {
    const raw = Buffer.alloc(SIDE * (1 + SIDE * 8));
    for (let y = 0; y < SIDE; y++)
      for (let x = 0; x < SIDE; x++) {
        const p = block(x, y);
        for (let c = 0; c < 4; c++) raw.writeUInt16BE(p[c]! * 257, y * (1 + SIDE * 8) + 1 + 8 * x + 2 * c);
      }
    await assertDrawn(png({ width: SIDE, height: SIDE, colorType: 6, bitDepth: 16, raw }), '16 bits');
  });

  it('palette, and palette with transparency (decoded)', async () => {
    const palette = Buffer.from([255, 0, 0, 0, 128, 255, 20, 200, 20, 250, 250, 0]);
    const raw = Buffer.alloc(SIDE * (1 + SIDE));
    for (let y = 0; y < SIDE; y++) for (let x = 0; x < SIDE; x++) raw[y * (1 + SIDE) + 1 + x] = (x >> 3) % 4;
    const plte = chunk('PLTE', palette);
    await assertDrawn(png({ width: SIDE, height: SIDE, colorType: 3, raw, extra: [plte] }), 'palette');
    const trns = chunk('tRNS', Buffer.from([255, 0, 128, 255]));
    await assertDrawn(png({ width: SIDE, height: SIDE, colorType: 3, raw, extra: [plte, trns] }), 'tRNS');
  });

  it('a 5,000 × 5,000 RGBA bomb within the limits embeds as a 5,000 × 5,000 image with its mask', async () => {
    const bomb = png({ width: 5_000, height: 5_000, colorType: 6 });
    const design = page(100, [
      {
        type: 'image',
        src: `data:image/png;base64,${bomb.toString('base64')}`,
        x: 0,
        y: 0,
        width: 50,
        height: 50,
      },
    ]);
    const pdf = pdfOf((await renderer.render({ id: 'bomb', version: '1', design }, [values()]))[0]);
    const list = withPdfFile(pdf, (file) => execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }));
    const rows = list
      .trim()
      .split('\n')
      .slice(2)
      .map((r) => r.trim().split(/\s+/).slice(2, 6));
    assert.deepEqual(rows, [
      ['image', '5000', '5000', 'rgb'],
      ['smask', '5000', '5000', 'gray'],
    ]);
  });
});

function page(side: number, elements: Design['elements']): Design {
  return { name: 'hostile', fields: [], page: { width: side, height: side }, elements };
}
