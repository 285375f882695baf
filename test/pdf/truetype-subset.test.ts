import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fontkit from '@pdf-lib/fontkit';
import { designFont } from '../../src/pdf/fonts.js';
import { subsetTrueType } from '../../src/pdf/truetype-subset.js';

// The subsetter is checked against an independent parser (fontkit): every glyph of the subset must
// have the outline and advance of the original glyph it stands for.

const fontDir = join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');

describe('TrueType subsetting', () => {
  const files = { sans: 'DejaVuSans.ttf', 'serif-bold': 'DejaVuSerif-Bold.ttf' } as const;
  for (const name of ['sans', 'serif-bold'] as const) {
    it(`keeps outlines and advances of the chosen ${name} glyphs, components included`, () => {
      const font = designFont(name).font;
      const chars = [...'Zoë Ångström-Łukasiewicz ΑΩω Жж'];
      const glyphs = [0];
      const index = new Map([[0, 0]]);
      for (const char of chars) {
        const gid = font.glyphId(char.codePointAt(0) ?? 0);
        assert.notEqual(gid, 0, char);
        if (!index.has(gid)) {
          index.set(gid, glyphs.length);
          glyphs.push(gid);
        }
      }
      const topLevel = glyphs.length;
      const bytes = subsetTrueType(font, { glyphs, index });
      assert.ok(glyphs.length > topLevel, 'composite glyphs pulled in their components');
      assert.ok(bytes.length < 40_000, `${bytes.length} bytes`);

      const original = fontkit.create(readFileSync(join(fontDir, files[name])));
      const subset = fontkit.create(bytes);
      assert.equal(subset.numGlyphs, glyphs.length);
      glyphs.forEach((gid, newId) => {
        const before = original.getGlyph(gid);
        const after = subset.getGlyph(newId);
        assert.equal(after.advanceWidth, before.advanceWidth);
        assert.equal(after.advanceWidth, font.advance(gid));
        assert.deepEqual(after.path.toSVG(), before.path.toSVG(), `glyph ${gid}`);
      });
    });
  }
});
