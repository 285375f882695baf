import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Design } from '../../src/pdf/design.schema.js';
import { createPdfRenderer, designIssues, type PdfRenderer } from '../../src/pdf/pdf-renderer.js';
import { drawnGlyphs } from './drawn-glyphs.js';
import { pdfOf, pdfText, values } from './pdf-helpers.js';

// A design's own fonts: used first by the elements that name them, the bundled chain after them.

const require = createRequire(import.meta.url);
const monoPath = join(dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf', 'DejaVuSansMono.ttf');
const mono = readFileSync(monoPath);
const asDataUrl = (bytes: Buffer) => `data:font/ttf;base64,${bytes.toString('base64')}`;

// The same font dressed as a PostScript-outline OpenType font: CFF instead of glyf and loca.
function cffLike(): Buffer {
  const bytes = Buffer.from(mono);
  bytes.write('OTTO', 0, 'latin1');
  for (let i = 0; i < bytes.readUInt16BE(4); i++) {
    const at = 12 + 16 * i;
    const tag = bytes.toString('latin1', at, at + 4);
    if (tag === 'glyf') bytes.write('CFF ', at, 'latin1');
    if (tag === 'loca') bytes.write('VORG', at, 'latin1');
  }
  return bytes;
}

function withFont(fonts: Design['fonts'], font = 'brand'): Design {
  return {
    name: 'Own font',
    fields: [],
    page: { width: 842, height: 200 },
    fonts,
    elements: [
      { type: 'text', text: 'Awarded to', x: 21, y: 10, width: 800, size: 20, font },
      { type: 'text', text: '{{recipient.name}}', x: 21, y: 60, width: 800, size: 40, font },
    ],
  };
}

describe("a design's own fonts", () => {
  let renderer: PdfRenderer;
  before(() => {
    renderer = createPdfRenderer({ threads: 1 });
  });
  after(() => renderer.close());

  it('draws with the own font first, and the bundled fallbacks for what it lacks', async () => {
    const design = withFont([{ name: 'brand', src: asDataUrl(mono), fallback: 'serif-bold' }]);
    assert.deepEqual(await designIssues(design), []);
    const name = 'Ada Lovelace 王小明 प्रिया';
    const [outcome] = await renderer.render({ id: 'own', version: '1', design }, [
      values({ recipientName: name }),
    ]);
    const pdf = pdfOf(outcome);
    const fonts = new Set(drawnGlyphs(pdf).map((g) => g.baseFont.replace(/^[A-Z]{6}\+/, '')));
    // DejaVu Sans Mono has no CJK or Devanagari: Noto in the fallback's family and weight (serif,
    // bold) draws them.
    assert.deepEqual([...fonts].sort(), ['DejaVuSansMono', 'NotoSerifDevanagari-Bold', 'NotoSerifSC-Bold']);
    const own = drawnGlyphs(pdf).filter((g) => g.baseFont.endsWith('DejaVuSansMono'));
    assert.ok(own.length >= 'Awarded to Ada Lovelace'.replace(/ /g, '').length);
    const widths = new Set(own.map((g) => (g.width / g.size).toFixed(3)));
    assert.equal(widths.size, 1, 'a monospaced font: every glyph as wide as the others');
    assert.match(pdfText(pdf), /Awarded to/);
  });

  it('is checked when the template is created: names, unknown fonts, unusable files', async () => {
    const issues = async (design: Design) =>
      (await designIssues(design)).map((i) => [i.path.join('.'), i.message]);
    assert.deepEqual(await issues(withFont([{ name: 'brand', src: asDataUrl(mono) }], 'other')), [
      [
        'elements.0.font',
        'Text 1: "other" is neither a bundled font (sans, sans-bold, serif, serif-bold) nor one of the design\'s fonts',
      ],
      [
        'elements.1.font',
        'Text 2: "other" is neither a bundled font (sans, sans-bold, serif, serif-bold) nor one of the design\'s fonts',
      ],
    ]);
    const [cff] = await issues(withFont([{ name: 'brand', src: asDataUrl(cffLike()) }]));
    assert.deepEqual(cff, [
      'fonts.0.src',
      'has PostScript (CFF) outlines: only fonts with TrueType outlines can be embedded (convert it to TTF)',
    ]);
    const [garbage] = await issues(
      withFont([{ name: 'brand', src: asDataUrl(Buffer.from('not a font at all')) }]),
    );
    assert.equal(garbage?.[0], 'fonts.0.src');
    assert.equal(garbage?.[1], 'is not a TrueType or OpenType font');
    const twice = await issues(
      withFont([
        { name: 'brand', src: asDataUrl(mono) },
        { name: 'brand', src: asDataUrl(mono) },
        { name: 'serif', src: asDataUrl(mono) },
      ]),
    );
    assert.deepEqual(twice, [
      ['fonts.1.name', '"brand" is declared twice'],
      ['fonts.2.name', 'is the name of a bundled font (sans, sans-bold, serif, serif-bold)'],
    ]);
  });
});
