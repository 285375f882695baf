import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, describe, it } from 'node:test';
import { bundledFace, bundledFacePath } from '../../src/pdf/font-catalog.js';
import { fontStyle, parseTrueType } from '../../src/pdf/truetype-font.js';
import { createFileChecker } from '../../src/pdf/file-checker.js';
import { createUploadsService } from '../../src/modules/templates/uploads.js';

// What a font says it is (its family and weight), read from its own tables for the studio's names,
// and never a crash on a font whose name table is broken: an upload may be anything.

const fontFile = (id: string) => readFileSync(bundledFacePath(bundledFace(id)));

// The offset and length fields of a table in the font's table directory.
function tableRecord(font: Buffer, tag: string): { at: number; offset: number; length: number } {
  for (let i = 0; i < font.readUInt16BE(4); i++) {
    const rec = 12 + 16 * i;
    if (font.toString('latin1', rec, rec + 4) === tag) {
      return { at: rec, offset: font.readUInt32BE(rec + 8), length: font.readUInt32BE(rec + 12) };
    }
  }
  throw new Error(`no ${tag} table`);
}

describe('font style', () => {
  const checker = createFileChecker({ threads: 1 });
  const uploads = createUploadsService({ checker: () => checker });
  after(() => checker.close());

  it('reads the family and the weight of the bundled fonts', () => {
    assert.deepEqual(fontStyle(parseTrueType(fontFile('dejavu-sans'))), {
      family: 'DejaVu Sans',
      bold: false,
    });
    assert.deepEqual(fontStyle(parseTrueType(fontFile('dejavu-sans-bold'))), {
      family: 'DejaVu Sans',
      bold: true,
    });
    assert.deepEqual(fontStyle(parseTrueType(fontFile('dejavu-serif-bold'))), {
      family: 'DejaVu Serif',
      bold: true,
    });
  });

  it('a name record of odd length, or one past the table, reads as what fits, without a crash', () => {
    const font = Buffer.from(fontFile('dejavu-sans'));
    const name = tableRecord(font, 'name');
    const count = font.readUInt16BE(name.offset + 2);
    for (let i = 0; i < count; i++) {
      const rec = name.offset + 6 + 12 * i;
      const id = font.readUInt16BE(rec + 6);
      if (id === 1 && font.readUInt16BE(rec) === 3)
        font.writeUInt16BE(font.readUInt16BE(rec + 8) - 1, rec + 8);
      if (id === 1 && font.readUInt16BE(rec) === 1) font.writeUInt16BE(0xfff0, rec + 8); // past the end
    }
    const style = fontStyle(parseTrueType(font));
    assert.equal(typeof style.family, 'string');
    assert.match(style.family!, /^DejaVu Sa/);
  });

  it('a name table cut short: no family, and the upload is still taken', async () => {
    const font = Buffer.from(fontFile('dejavu-sans-bold'));
    const name = tableRecord(font, 'name');
    font.writeUInt32BE(10, name.at + 12);
    assert.deepEqual(fontStyle(parseTrueType(font)), { family: undefined, bold: true });
    const upload = await uploads.font(font);
    assert.deepEqual([upload.family, upload.bold], [null, true]);
  });
});
