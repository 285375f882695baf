import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Design } from '../../src/pdf/design.schema.js';
import {
  bundledFace,
  bundledFacePath,
  fallbackFaceIds,
  fallbackStyle,
  type FontName,
} from '../../src/pdf/font-catalog.js';
import { createPdfRenderer, type PdfRenderer, type RenderTemplate } from '../../src/pdf/pdf-renderer.js';
import { parseTrueType } from '../../src/pdf/truetype-font.js';
import { comparable } from '../helpers/world-names.js';
import { drawnGlyphs } from './drawn-glyphs.js';
import { pdfFonts, readsBack } from './name-text.js';
import { pdfOf, pdfText, values } from './pdf-helpers.js';

// Names in the design's own style (decisions 23): a serif text falls back, per script, to serif
// faces, a sans text to the sans ones; Urdu prints in Nastaliq in both; digits between the words
// of a right-to-left name stay in the name's font.

function design(font: FontName, locale?: string): RenderTemplate {
  const d: Design = {
    name: `Names in ${font}`,
    fields: [],
    page: { width: 842, height: 200 },
    elements: [
      { type: 'text', text: 'Awarded to {{recipient.name}}', x: 21, y: 40, width: 800, size: 30, font },
    ],
    ...(locale ? { locale } : {}),
  };
  return { id: `names-${font}-${locale ?? ''}`, version: '1', design: d };
}

const names = [
  // DejaVu Sans has Arabic and Hebrew letters: a sans design draws those names with it, as before.
  { script: 'Arabic', name: 'محمد بن علي', serif: 'NotoNaskhArabic', sans: 'DejaVuSans' },
  { script: 'Hebrew', name: 'דוד כהן', serif: 'NotoSerifHebrew', sans: 'DejaVuSans' },
  { script: 'Devanagari', name: 'प्रियंका शर्मा', serif: 'NotoSerifDevanagari', sans: 'NotoSansDevanagari' },
  { script: 'Bengali', name: 'সৌমিত্র চট্টোপাধ্যায়', serif: 'NotoSerifBengali', sans: 'NotoSansBengali' },
  { script: 'Chinese', name: '王小明', serif: 'NotoSerifSC', sans: 'NotoSansSC' },
  { script: 'Japanese', name: '山田 さくら', serif: 'NotoSerifJP', sans: 'NotoSansJP' },
  { script: 'Korean', name: '김민준', serif: 'NotoSerifKR', sans: 'NotoSansKR' },
  { script: 'Urdu', name: 'عمران خان ٹیپو', serif: 'NotoNastaliqUrdu', sans: 'NotoNastaliqUrdu' },
] as const;

describe('fallback fonts follow the design family', () => {
  let renderer: PdfRenderer;
  before(() => {
    renderer = createPdfRenderer({ threads: 1 });
  });
  after(() => renderer.close());

  for (const family of ['serif', 'sans', 'serif-bold'] as const) {
    it(`${family}: each name in its script's ${family.startsWith('serif') ? 'serif' : 'sans'} face, read back as typed`, async () => {
      const outcomes = await renderer.render(
        design(family),
        names.map(({ name }) => values({ recipientName: name })),
      );
      names.forEach(({ script, name, serif, sans }, i) => {
        const pdf = pdfOf(outcomes[i]);
        const fonts = pdfFonts(pdf);
        const expected = family.startsWith('serif') ? serif : sans;
        assert.ok(
          fonts.some((f) => f === expected || f.startsWith(`${expected}-`)),
          `${script}: ${expected} in ${fonts.join(', ')}`,
        );
        if (family.startsWith('serif'))
          assert.deepEqual(
            fonts.filter((f) => f.startsWith('NotoSans')),
            [],
            `${script}: no sans fallback`,
          );
        else
          assert.deepEqual(
            fonts.filter((f) => /^Noto(Serif|Naskh)/.test(f)),
            [],
            `${script}: no serif fallback`,
          );
        if (family === 'serif-bold')
          assert.ok(
            fonts.some((f) => f === `${expected}-Bold`),
            fonts.join(', '),
          );
        assert.ok(readsBack(pdf, name), `${script}: ${name}`);
      });
    });
  }

  it('Urdu: an ur locale prints Arabic-script names in Nastaliq, other locales in Naskh', async () => {
    // No letter of this name is Urdu's alone: the locale decides.
    const name = 'محمد علی';
    for (const [locale, face] of [
      ['ur-PK', 'NotoNastaliqUrdu'],
      ['ur', 'NotoNastaliqUrdu'],
      ['fa', 'NotoNaskhArabic'],
      [undefined, 'NotoNaskhArabic'],
    ] as const) {
      const [outcome] = await renderer.render(design('serif', locale), [values({ recipientName: name })]);
      const pdf = pdfOf(outcome);
      const fonts = pdfFonts(pdf);
      assert.deepEqual(
        fonts.filter((f) => /^Noto/.test(f)),
        [`${face}-Regular`],
        `${locale}: ${fonts.join(', ')}`,
      );
      assert.ok(readsBack(pdf, name), `${locale}: ${name}`);
    }
  });

  it('digits between the words of a right-to-left name stay in the name font', async () => {
    for (const [name, face] of [
      ['محمد 2 علي', 'NotoNaskhArabic'],
      ['محمد 2 علي ٹیپو', 'NotoNastaliqUrdu'],
      ['דוד 3 כהן', 'NotoSerifHebrew'],
    ] as const) {
      const template: RenderTemplate = {
        ...design('serif'),
        id: 'name-alone',
        design: {
          ...design('serif').design,
          elements: [
            { type: 'text', text: '{{recipient.name}}', x: 21, y: 40, width: 800, size: 30, font: 'serif' },
          ],
        },
      };
      const [outcome] = await renderer.render(template, [values({ recipientName: name })]);
      const pdf = pdfOf(outcome);
      const glyphs = drawnGlyphs(pdf);
      assert.ok(glyphs.length >= 5, name);
      assert.deepEqual(
        [...new Set(glyphs.map((g) => g.baseFont.replace(/^[A-Z]{6}\+/, '')))],
        [`${face}-Regular`],
        `${name}: every glyph, the digit too, in the name's font`,
      );
      assert.ok(readsBack(pdf, name), name);
    }
  });

  it('the Latin, Greek and Cyrillic letters DejaVu Serif lacks are drawn by Noto Serif', async () => {
    // Abkhaz: Ҩ (U+04A8) and Ԥ (U+0524) are not in DejaVu Serif.
    const name = 'Ҩаша Ԥлиа';
    const [serif, sans] = await Promise.all([
      renderer.render(design('serif'), [values({ recipientName: name })]),
      renderer.render(design('sans'), [values({ recipientName: name })]),
    ]);
    const pdf = pdfOf(serif[0]);
    assert.deepEqual(pdfFonts(pdf).sort(), ['DejaVuSerif', 'NotoSerif-Regular']);
    assert.ok(comparable(pdfText(pdf)).includes(comparable(name)));
    assert.deepEqual(pdfFonts(pdfOf(sans[0])), ['DejaVuSans'], 'DejaVu Sans has them');
  });
});

describe('fallbackFaceIds', () => {
  const style = (font: FontName, locale?: string) => fallbackStyle(font, locale);

  it('lists Noto Serif for every Latin, Greek or Cyrillic letter either DejaVu Serif weight lacks', () => {
    const regular = parseTrueType(readFileSync(bundledFacePath(bundledFace('dejavu-serif'))));
    const bold = parseTrueType(readFileSync(bundledFacePath(bundledFace('dejavu-serif-bold'))));
    const european = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}]/u;
    const missed: string[] = [];
    let gaps = 0;
    for (let cp = 0x20; cp < 0x30000; cp++) {
      const char = String.fromCodePoint(cp);
      if (!european.test(char) || (regular.glyphId(cp) !== 0 && bold.glyphId(cp) !== 0)) continue;
      gaps++;
      if (!fallbackFaceIds(char, style('serif')).includes('noto-serif-latin-400'))
        missed.push(cp.toString(16));
    }
    assert.ok(gaps > 100, `${gaps} gaps`);
    assert.deepEqual(missed, []);
    assert.deepEqual(fallbackFaceIds('Zoë Ångström Αλέξανδρος Анна', style('serif')), []);
  });

  it('keeps the sans chain of every script as it was', () => {
    const scripts = ['arabic', 'hebrew', 'devanagari', 'bengali', 'tamil', 'thai', 'georgian', 'armenian'];
    const samples = ['محمد', 'דוד', 'प्रिय', 'সৌমি', 'தமிழ்', 'สมชาย', 'ნინო', 'Արմեն'];
    samples.forEach((text, i) => {
      assert.deepEqual(fallbackFaceIds(text, style('sans')), [`noto-${scripts[i]}-400`]);
      assert.deepEqual(fallbackFaceIds(text, style('sans-bold')), [`noto-${scripts[i]}-700`]);
    });
    assert.deepEqual(fallbackFaceIds('王小明', style('sans')), ['noto-sc-400', 'noto-tc-400']);
    assert.deepEqual(fallbackFaceIds('Ҩаша', style('sans')), []);
  });

  it('tries Nastaliq before the Arabic face for Urdu letters or an ur locale, in both families', () => {
    assert.deepEqual(fallbackFaceIds('عمران ٹیپو', style('sans')), [
      'noto-nastaliq-urdu-400',
      'noto-arabic-400',
    ]);
    assert.deepEqual(fallbackFaceIds('عمران ٹیپو', style('serif-bold')), [
      'noto-nastaliq-urdu-700',
      'noto-serif-arabic-700',
    ]);
    assert.deepEqual(fallbackFaceIds('محمد علی', style('serif', 'ur-PK')), [
      'noto-nastaliq-urdu-400',
      'noto-serif-arabic-400',
    ]);
    assert.deepEqual(fallbackFaceIds('محمد علی', style('serif', 'uz')), ['noto-serif-arabic-400']);
    // Heh doachashmee alone (Kurdish, Uyghur, Sindhi write it too) is not taken for Urdu.
    assert.deepEqual(fallbackFaceIds('ھەولێر', style('sans')), ['noto-arabic-400']);
    // Tamil, Thai, Georgian and Armenian have no serif face on npm: the sans one serves.
    assert.deepEqual(fallbackFaceIds('தமிழ்', style('serif')), ['noto-tamil-400']);
  });
});
