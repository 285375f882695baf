import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { renderDocument } from '../../src/pdf/document-writer.js';
import { fontStreamCacheStats, resetFontStreamCache } from '../../src/pdf/font-streams.js';
import type { RenderValues } from '../../src/pdf/render-types.js';
import { compileTemplate } from '../../src/pdf/template-compiler.js';
import { worldNames } from '../helpers/world-names.js';
import { loadDesign, pdfText, values } from './pdf-helpers.js';

// The cache of deflated subsets and ToUnicode CMaps (font-streams.ts) is checked against the path
// without it: the same values must give the same bytes with the cache off, cold, warm, and so small
// that it keeps dropping entries.

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const items0 = '2026-11-21T09:30:00.000Z';

function corpus(): RenderValues[] {
  let state = 7;
  const next = (n: number): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state >>> 8) % n;
  };
  return Array.from({ length: 120 }, (_, i) => {
    const code = Array.from({ length: 16 }, () => CROCKFORD[next(32)]).join('');
    const name = worldNames[i % worldNames.length]!.name;
    return values({
      // Every third name is made unique, the others repeat (a batch's names cycle here).
      recipientName: i % 3 === 0 ? `${name} ${i}` : name,
      issuedAt: new Date(Date.UTC(2026, 0, 1) + next(400) * 86_400_000).toISOString(),
      uniqueCode: code,
      verificationUrl: `https://certs.example.com/verify/${code}`,
      data: {
        course: i % 2 ? 'Analytical Engines 101' : 'Официальный курс ﬁnance',
        hours: i % 4,
        event: 'Конференция 2026',
        date: '3 March 2026',
        location: 'Zürich',
      },
    });
  });
}

function renderAll(items: RenderValues[]): Buffer[] {
  const templates = ['course-completion', 'event-attendance'].map((name) =>
    compileTemplate(loadDesign(name)),
  );
  return templates.flatMap((template) =>
    items.map((item) => {
      const result = renderDocument(template, item);
      if (!result.ok) throw new Error(JSON.stringify(result.issues));
      return result.pdf;
    }),
  );
}

describe('font stream cache', () => {
  it('gives the bytes of the uncached path, cold, warm and when it keeps evicting', () => {
    const items = corpus();
    try {
      resetFontStreamCache(0);
      const uncached = renderAll(items);
      assert.equal(fontStreamCacheStats().entries, 0);

      resetFontStreamCache(64 * 1024 * 1024);
      const cold = renderAll(items);
      const afterCold = fontStreamCacheStats();
      const warm = renderAll(items);
      const afterWarm = fontStreamCacheStats();
      assert.ok(afterCold.hits > 0, 'repeated subsets already hit in the first pass');
      assert.equal(afterWarm.misses, afterCold.misses, 'every subset of the second pass came from the cache');
      assert.ok(afterWarm.hits - afterCold.hits >= 2 * items.length * 3, 'at least three fonts per document');

      const small = 40 * 1024;
      resetFontStreamCache(small);
      const evicting = renderAll(items);
      const stats = fontStreamCacheStats();
      assert.ok(stats.bytes <= small, `${stats.bytes} bytes held`);
      assert.ok(stats.misses > stats.entries, 'entries were dropped');

      for (const [name, pdfs] of Object.entries({ cold, warm, evicting })) {
        pdfs.forEach((pdf, i) => assert.ok(pdf.equals(uncached[i]!), `${name}: document ${i} differs`));
      }
      // And the PDFs read back (the CMaps taken from the cache map the glyphs to the right text).
      for (const i of [0, 1, 4, 12, 13]) {
        const text = pdfText(warm[i]!).normalize('NFC');
        assert.ok(text.includes(items[i]!.uniqueCode), `code of document ${i}`);
      }
      assert.match(pdfText(warm[0]!), /Zoë Ångström-Łukasiewicz 0/);
    } finally {
      resetFontStreamCache();
    }
  });

  it('deflates each font once for a batch whose documents differ only in their random codes', () => {
    // The code's characters have their CIDs in the template (template-compiler.ts), so the subset
    // of the font that draws the code is the same whatever characters a code has.
    const items = corpus().map((item) => ({ ...item, recipientName: 'Ada Lovelace', issuedAt: items0 }));
    const template = compileTemplate(loadDesign('course-completion'));
    try {
      resetFontStreamCache();
      for (const item of items) assert.ok(renderDocument(template, item).ok);
      const { misses, hits } = fontStreamCacheStats();
      // Four fonts, the bold sans twice (two course titles take turns); the digits of `hours` are
      // among the code's characters. Without the code's CIDs in the template: 124 misses.
      assert.equal(misses, 5, `${misses} misses, ${hits} hits`);
      assert.equal(hits + misses, 4 * items.length);
    } finally {
      resetFontStreamCache();
    }
  });
});
