import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as hb from 'harfbuzzjs';
import { renderDocument } from '../../src/pdf/document-writer.js';
import { allBundledFaces, bundledFacePath, URDU_LETTERS } from '../../src/pdf/font-catalog.js';
import { bundledFont, type Face } from '../../src/pdf/fonts.js';
import { asciiGlyphs, type ShapedGlyph } from '../../src/pdf/shaping.js';
import { compileTemplate } from '../../src/pdf/template-compiler.js';
import { comparable, worldNames } from '../helpers/world-names.js';
import { readsBack } from './name-text.js';
import { loadDesign, pdfText, values } from './pdf-helpers.js';

// ASCII words (codes, URLs, dates in Latin digits) are laid out without HarfBuzz in the design
// fonts (shaping.ts); the other bundled fonts leave every word to HarfBuzz. Here HarfBuzz, called directly on each font file, must give the same glyphs,
// clusters, advances and offsets, for every pair of printable ASCII characters and for words like
// the ones certificates show; and certificates with unique names read back.

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const PRINTABLE = Array.from({ length: 0x7e - 0x20 }, (_, i) => String.fromCharCode(0x21 + i)).join('');

function harfbuzzGlyphs(font: hb.Font, word: string): ShapedGlyph[] {
  const buffer = new hb.Buffer();
  buffer.addText(word);
  buffer.guessSegmentProperties();
  buffer.setDirection(hb.Direction.LTR);
  hb.shape(font, buffer);
  const positions = buffer.getGlyphPositions();
  return buffer.getGlyphInfos().map((info, i) => {
    const p = positions[i]!;
    return { gid: info.codepoint, cluster: info.cluster, advance: p.xAdvance, dx: p.xOffset, dy: p.yOffset };
  });
}

function words(face: Face): string[] {
  let state = 11;
  const next = (n: number): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return (state >>> 8) % n;
  };
  const pick = (alphabet: string, length: number): string =>
    Array.from({ length }, () => alphabet[next(alphabet.length)]).join('');
  const covered = [...PRINTABLE].filter((c) => face.font.glyphId(c.charCodeAt(0)) !== 0).join('');
  const out: string[] = [];
  for (const a of covered) for (const b of covered) out.push(a + b);
  // Every three characters of a code, for the fonts that lay them out so.
  if (face.asciiFastPath)
    for (const a of CROCKFORD) for (const b of CROCKFORD) for (const c of CROCKFORD) out.push(a + b + c);
  for (let i = 0; i < 300; i++) {
    const code = pick(CROCKFORD, 16);
    out.push(
      code,
      `https://certs.example.com/verify/${code}`,
      `2026-${pick('01', 1)}${pick('0123456789', 1)}-2${i % 10}`,
    );
    out.push(pick(covered, 2 + next(30)));
  }
  return out;
}

describe('ASCII words without HarfBuzz', () => {
  const shaped = allBundledFaces.filter((f) => f.shape);
  for (const meta of shaped) {
    it(`${meta.id}: the glyphs and advances HarfBuzz gives`, () => {
      const face = bundledFont(meta.id);
      const font = new hb.Font(new hb.Face(new hb.Blob(readFileSync(bundledFacePath(meta)))));
      if (!face.asciiFastPath) {
        assert.equal(asciiGlyphs(face, 'AVATAR2026'), undefined);
        return;
      }
      let fast = 0;
      const list = words(face);
      for (const word of list) {
        const glyphs = asciiGlyphs(face, word);
        if (!glyphs) continue;
        fast++;
        assert.deepEqual(glyphs, harfbuzzGlyphs(font, word), `${meta.id}: ${word}`);
      }
      if (face.asciiFastPath) {
        // The design fonts lay out most of them so, kerned pairs included.
        assert.ok(fast > list.length * 0.9, `${fast} of ${list.length}`);
        assert.ok(
          asciiGlyphs(face, 'https://certs.example.com/verify/AVAT7WYL0PQ1'),
          'a URL with kerned pairs',
        );
      }
    });
  }

  it('certificates with unique names read back, names, codes and URLs', () => {
    const template = compileTemplate(loadDesign('course-completion'));
    for (let i = 0; i < 2 * worldNames.length; i++) {
      const { name } = worldNames[i % worldNames.length]!;
      const code = `K${String(i).padStart(2, '0')}AVATWYLPQ7TEST`;
      const item = values({
        recipientName: `${name} ${i}`,
        uniqueCode: code,
        verificationUrl: `https://certs.example.com/verify/${code}`,
      });
      const result = renderDocument(template, item);
      assert.ok(result.ok);
      const text = comparable(pdfText(result.pdf));
      // The name, then its number: right-to-left names read back with the number before them, a
      // Nastaliq name (pdftotext splits its slanting runs) from the /ActualText of its runs.
      assert.ok(readsBack(result.pdf, URDU_LETTERS.test(name) ? `${name} ${i}` : name), name);
      const number =
        URDU_LETTERS.test(name) ||
        [comparable(`${name} ${i}`), `${i}${comparable(name)}`].some((t) => text.includes(t));
      assert.ok(number, `${name} ${i}`);
      assert.ok(text.includes(code), `code of ${i}`);
      assert.ok(text.includes(`https://certs.example.com/verify/${code}`), `URL of ${i}`);
    }
  });
});
