import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Design } from '../../src/pdf/design.schema.js';
import { createPdfRenderer, type PdfRenderer, type RenderTemplate } from '../../src/pdf/pdf-renderer.js';
import { drawnGlyphs, type DrawnGlyph } from './drawn-glyphs.js';
import { loadDesign, pdfOf, values } from './pdf-helpers.js';

// Layout of text in any script: shrink-to-fit on shaped widths, alignment, values of another
// direction inside a sentence, and what stays refused.

const course: RenderTemplate = { id: 'course', version: '1', design: loadDesign('course-completion') };

function oneText(text: string, extra: Partial<Design['elements'][number]> = {}): RenderTemplate {
  return {
    id: `one-${text}-${JSON.stringify(extra)}`,
    version: '1',
    design: {
      name: 'One text',
      fields: [{ key: 'course', label: 'Course', required: false }],
      page: { width: 842, height: 200 },
      elements: [
        { type: 'text', text, x: 121, y: 40, width: 600, size: 40, font: 'sans', ...extra } as never,
      ],
    },
  };
}

const right = (g: DrawnGlyph): number => g.x + g.width;

describe('world scripts: layout', () => {
  let renderer: PdfRenderer;
  before(() => {
    renderer = createPdfRenderer({ threads: 1 });
  });
  after(() => renderer.close());

  for (const [script, long, font] of [
    // The example's name is in serif-bold: the serif fallbacks draw these names.
    ['Arabic', 'عبد الرحمن بن محمد بن عبد الله بن إبراهيم بن عبد العزيز آل سعود', 'NotoNaskhArabic'],
    ['CJK', '爱新觉罗·溥仪爱新觉罗·溥杰爱新觉罗·毓嶦爱新觉罗·恒懋爱新觉罗·载沣', 'NotoSerifSC'],
  ] as const) {
    it(`shrinks a very long ${script} name to fit its box, on one line`, async () => {
      const element = course.design.elements[5];
      assert.ok(element?.type === 'text' && element.text === '{{recipient.name}}');
      const glyphs = drawnGlyphs(
        pdfOf((await renderer.render(course, [values({ recipientName: long })]))[0]),
      );
      const name = glyphs.filter((g) => g.baseFont.includes(font));
      assert.ok(name.length >= [...long.replace(/[ ·]/g, '')].length / 2, `${name.length} glyphs`);
      const left = Math.min(...name.map((g) => g.x));
      const end = Math.max(...name.map(right));
      assert.ok(left >= element.x - 0.5, `starts at ${left}`);
      assert.ok(end <= element.x + element.width + 0.5, `ends at ${end}`);
      assert.ok(end - left > element.width * 0.95, 'shrunk just enough to fill the box');
      assert.ok(
        name.every((g) => g.size < (element.size ?? 14)),
        'font size was reduced',
      );
      assert.equal(new Set(name.map((g) => g.y)).size > 0, true);
      // One line: the letters share a baseline (marks, which have no advance, sit above or below).
      const letters = name.filter((g) => g.width > 0);
      assert.ok(Math.max(...letters.map((g) => g.y)) - Math.min(...letters.map((g) => g.y)) < 10, 'one line');
    });
  }

  it('refuses a long Arabic name under minSize at the name, like a Latin one', async () => {
    const template = oneText('{{recipient.name}}', { minSize: 30 });
    const [outcome] = await renderer.render(template, [
      values({ recipientName: 'عبد الرحمن بن محمد بن عبد الله بن إبراهيم آل سعود' }),
    ]);
    assert.ok(outcome && !outcome.ok);
    assert.deepEqual(
      outcome.issues.map((i) => i.path),
      [['name']],
    );
    assert.match(outcome.issues[0]!.message, /too long to fit/);
  });

  it('keeps a right-to-left value in its place inside a left-to-right sentence', async () => {
    // In `serif` (DejaVu Serif has no Arabic) the name is drawn with the Noto fallback: easy to tell apart.
    const template = oneText('Awarded to {{recipient.name}} for {{data.course}}', { font: 'serif' });
    const [outcome] = await renderer.render(template, [
      values({ recipientName: 'محمد علي', data: { course: 'Algebra 2' } }),
    ]);
    const glyphs = drawnGlyphs(pdfOf(outcome));
    const arabic = glyphs.filter((g) => g.baseFont.includes('Arabic'));
    const latin = glyphs.filter((g) => !g.baseFont.includes('Arabic'));
    assert.ok(arabic.length > 0);
    const arabicLeft = Math.min(...arabic.map((g) => g.x));
    const arabicRight = Math.max(...arabic.map(right));
    // "Awarded to" (9 letters and a space) before the name, "for Algebra 2" after it.
    assert.equal(latin.filter((g) => g.x < arabicLeft).length, 'Awarded to '.length);
    assert.equal(latin.filter((g) => g.x >= arabicRight - 0.01).length, ' for Algebra 2'.length);
  });

  it('aligns right-to-left text to the edge the design says: left, center, right', async () => {
    for (const align of ['left', 'center', 'right'] as const) {
      const template = oneText('{{recipient.name}}', { align });
      const glyphs = drawnGlyphs(
        pdfOf((await renderer.render(template, [values({ recipientName: 'דוד כהן' })]))[0]),
      );
      const left = Math.min(...glyphs.map((g) => g.x));
      const end = Math.max(...glyphs.map(right));
      if (align === 'left') assert.ok(Math.abs(left - 121) < 0.5, `left at ${left}`);
      if (align === 'right') assert.ok(Math.abs(end - 721) < 0.5, `right at ${end}`);
      if (align === 'center')
        assert.ok(Math.abs((left + end) / 2 - 421) < 0.5, `centre at ${(left + end) / 2}`);
    }
  });

  it('accepts the zero-width non-joiner of Persian spelling, refuses bidi overrides and isolates', async () => {
    const outcomes = await renderer.render(course, [
      values({ recipientName: 'فاطمه زهرا\u200cیی' }),
      values({ recipientName: 'Evil\u202Egpj.exe' }),
      values({ recipientName: 'Ada \u2067Lovelace\u2069' }),
      values({ recipientName: 'Ada\u200fLovelace' }),
    ]);
    assert.equal(outcomes[0]?.ok, true);
    for (const [i, code] of [
      [1, 'U+202E'],
      [2, 'U+2067'],
      [3, 'U+200F'],
    ] as const) {
      const outcome = outcomes[i];
      assert.ok(outcome && !outcome.ok);
      assert.deepEqual(
        outcome.issues.map((issue) => issue.path),
        [['name']],
      );
      assert.match(outcome.issues[0]!.message, new RegExp(code.replace('+', '\\+')));
    }
  });
});
