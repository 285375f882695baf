import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import fontkit from '@pdf-lib/fontkit';
import * as hb from 'harfbuzzjs';
import { renderDocument } from '../../src/pdf/document-writer.js';
import { createPdfRenderer, type PdfRenderer, type RenderTemplate } from '../../src/pdf/pdf-renderer.js';
import { turnOffShapingForTests } from '../../src/pdf/shaping.js';
import { compileTemplate } from '../../src/pdf/template-compiler.js';
import { drawnGlyphs } from './drawn-glyphs.js';
import { pdfOf, values } from './pdf-helpers.js';

// What the PDF draws is compared with what HarfBuzz makes of the same name with the same font,
// glyph by glyph: the outline of each drawn glyph (read back from the embedded subset) and its
// position. Drawing without shaping (one glyph per character, in logical order) must fail it.

const require = createRequire(import.meta.url);
// The design is `serif-bold` (DejaVu Serif has none of these scripts): the serif fallbacks draw
// them, in bold, and Nastaliq draws Urdu.
const fontFile = (pkg: string, family: string): string =>
  join(
    dirname(require.resolve(`@expo-google-fonts/${pkg}/package.json`)),
    '700Bold',
    `${family}_700Bold.ttf`,
  );

const cases = [
  { script: 'Arabic', name: 'محمد علي', file: fontFile('noto-naskh-arabic', 'NotoNaskhArabic') },
  { script: 'Urdu', name: 'عمران خان ٹیپو', file: fontFile('noto-nastaliq-urdu', 'NotoNastaliqUrdu') },
  { script: 'Hebrew', name: 'דוד כהן', file: fontFile('noto-serif-hebrew', 'NotoSerifHebrew') },
  {
    script: 'Devanagari',
    name: 'प्रियंका शर्मा',
    file: fontFile('noto-serif-devanagari', 'NotoSerifDevanagari'),
  },
  { script: 'Bengali', name: 'সৌমিত্র চট্টোপাধ্যায়', file: fontFile('noto-serif-bengali', 'NotoSerifBengali') },
  { script: 'Tamil', name: 'தமிழ்செல்வி', file: fontFile('noto-sans-tamil', 'NotoSansTamil') },
];

const SIZE = 40;
const template: RenderTemplate = {
  id: 'shaping',
  version: '1',
  design: {
    name: 'Shaping',
    fields: [],
    page: { width: 842, height: 200 },
    elements: [
      { type: 'text', text: '{{recipient.name}}', x: 21, y: 40, width: 800, size: SIZE, font: 'serif-bold' },
    ],
  },
};

/** Differences between the drawn glyphs and HarfBuzz's shaping of `name` with `file`; [] when none. */
function shapingMismatches(pdf: Buffer, name: string, file: string): string[] {
  const bytes = readFileSync(file);
  const font = new hb.Font(new hb.Face(new hb.Blob(bytes)));
  const buffer = new hb.Buffer();
  buffer.addText(name);
  buffer.guessSegmentProperties();
  hb.shape(font, buffer);
  const infos = buffer.getGlyphInfos();
  const positions = buffer.getGlyphPositions();
  const original = fontkit.create(bytes);
  const scale = SIZE / original.unitsPerEm;

  const drawn = drawnGlyphs(pdf);
  const problems: string[] = [];
  if (drawn.length !== infos.length)
    problems.push(`${drawn.length} glyphs drawn, HarfBuzz gives ${infos.length}`);
  let pen = 0;
  infos.forEach((info, i) => {
    const p = positions[i]!;
    const glyph = drawn[i];
    if (glyph) {
      if (glyph.outline !== original.getGlyph(info.codepoint).path.toSVG())
        problems.push(`glyph ${i} differs`);
      const x = glyph.x - drawn[0]!.x;
      const expected = (pen + p.xOffset - positions[0]!.xOffset) * scale;
      if (Math.abs(x - expected) > 0.05)
        problems.push(`glyph ${i} at x ${x.toFixed(2)}, not ${expected.toFixed(2)}`);
      const dy = glyph.y - drawn[0]!.y - (p.yOffset - positions[0]!.yOffset) * scale;
      if (Math.abs(dy) > 0.05) problems.push(`glyph ${i} off by ${dy.toFixed(2)} vertically`);
    }
    pen += p.xAdvance;
  });
  return problems;
}

describe('shaping: the PDF draws what HarfBuzz shapes', () => {
  let renderer: PdfRenderer;
  before(() => {
    renderer = createPdfRenderer({ threads: 1 });
  });
  after(() => renderer.close());

  for (const { script, name, file } of cases) {
    it(`${script}: ${name}`, async () => {
      const [outcome] = await renderer.render(template, [values({ recipientName: name })]);
      assert.deepEqual(shapingMismatches(pdfOf(outcome), name, file), []);
    });
  }

  it('the check fails for every one of them when shaping is turned off', () => {
    turnOffShapingForTests(true);
    try {
      const compiled = compileTemplate(template.design);
      for (const { script, name, file } of cases) {
        const result = renderDocument(compiled, values({ recipientName: name }));
        assert.ok(result.ok);
        assert.notDeepEqual(shapingMismatches(result.pdf, name, file), [], script);
      }
    } finally {
      turnOffShapingForTests(false);
    }
  });
});
