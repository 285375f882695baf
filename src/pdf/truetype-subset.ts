import type { TrueTypeFont } from './truetype-font.js';

// Builds a TrueType font holding only the given glyphs, renumbered in list order (new id = index).
// Composite glyphs pull in their components (appended to `glyphs`, which is why it is mutable).
// Only the tables a PDF viewer needs for an Identity-H CIDFontType2 font are written.

const ARG_1_AND_2_ARE_WORDS = 0x0001;
const WE_HAVE_A_SCALE = 0x0008;
const MORE_COMPONENTS = 0x0020;
const WE_HAVE_AN_X_AND_Y_SCALE = 0x0040;
const WE_HAVE_A_TWO_BY_TWO = 0x0080;

export interface GlyphList {
  /** Original glyph ids; index = id in the subset. Index 0 must be glyph 0 (.notdef). */
  glyphs: number[];
  /** Original id -> subset id. */
  index: Map<number, number>;
}

export function subsetTrueType(font: TrueTypeFont, list: GlyphList): Buffer {
  const { glyphs, index } = list;
  const parts: Buffer[] = [];
  const locaOffsets: number[] = [];
  let glyfLength = 0;
  for (let i = 0; i < glyphs.length; i++) {
    // glyphs may grow while looping: components are appended
    const source = font.glyphData(glyphs[i] ?? 0);
    let data = source;
    if (source.length >= 10 && source.readInt16BE(0) < 0) {
      data = Buffer.from(source);
      let at = 10;
      // A component record cut short by the end of the glyph ends the list (an uploaded font may be
      // anything): what was read stays.
      while (at + 6 <= data.length) {
        const flags = data.readUInt16BE(at);
        // A component the font does not have draws nothing: it is .notdef (0) in the subset.
        const component = data.readUInt16BE(at + 2) < font.numGlyphs ? data.readUInt16BE(at + 2) : 0;
        let mapped = index.get(component);
        if (mapped === undefined) {
          mapped = glyphs.length;
          glyphs.push(component);
          index.set(component, mapped);
        }
        data.writeUInt16BE(mapped, at + 2);
        at += 4 + (flags & ARG_1_AND_2_ARE_WORDS ? 4 : 2);
        if (flags & WE_HAVE_A_SCALE) at += 2;
        else if (flags & WE_HAVE_AN_X_AND_Y_SCALE) at += 4;
        else if (flags & WE_HAVE_A_TWO_BY_TWO) at += 8;
        if (!(flags & MORE_COMPONENTS)) break;
      }
    }
    locaOffsets.push(glyfLength);
    parts.push(data);
    glyfLength += data.length;
    const pad = (4 - (data.length % 4)) % 4;
    if (pad) {
      parts.push(Buffer.alloc(pad));
      glyfLength += pad;
    }
  }
  locaOffsets.push(glyfLength);
  const numGlyphs = glyphs.length;

  const loca = Buffer.alloc(4 * (numGlyphs + 1));
  locaOffsets.forEach((offset, i) => loca.writeUInt32BE(offset, 4 * i));
  const hmtx = Buffer.alloc(4 * numGlyphs);
  for (let i = 0; i < numGlyphs; i++) {
    const gid = glyphs[i] ?? 0;
    hmtx.writeUInt16BE(font.advance(gid), 4 * i);
    const outline = font.glyphData(gid);
    hmtx.writeInt16BE(outline.length >= 10 ? outline.readInt16BE(2) : 0, 4 * i + 2); // lsb = xMin
  }
  const head = Buffer.from(requiredTable(font, 'head'));
  head.writeUInt32BE(0, 8); // checkSumAdjustment: not needed inside a PDF
  head.writeInt16BE(1, 50); // long loca
  const hhea = Buffer.from(requiredTable(font, 'hhea'));
  hhea.writeUInt16BE(numGlyphs, 34);
  const maxp = Buffer.from(requiredTable(font, 'maxp'));
  maxp.writeUInt16BE(numGlyphs, 4);

  const tables: [string, Buffer][] = [
    ['cvt ', font.table('cvt ')],
    ['fpgm', font.table('fpgm')],
    ['glyf', Buffer.concat(parts, glyfLength)],
    ['head', head],
    ['hhea', hhea],
    ['hmtx', hmtx],
    ['loca', loca],
    ['maxp', maxp],
    ['prep', font.table('prep')],
  ].filter((t): t is [string, Buffer] => t[1] !== undefined);
  return writeSfnt(tables);
}

function requiredTable(font: TrueTypeFont, tag: string): Buffer {
  const t = font.table(tag);
  if (!t) throw new Error(`font has no ${tag} table`);
  return t;
}

function writeSfnt(tables: [string, Buffer][]): Buffer {
  const n = tables.length;
  const headerLength = 12 + 16 * n;
  let total = headerLength;
  for (const [, data] of tables) total += (data.length + 3) & ~3;
  const out = Buffer.alloc(total);
  const entrySelector = Math.floor(Math.log2(n));
  const searchRange = 2 ** entrySelector * 16;
  out.writeUInt32BE(0x00010000, 0);
  out.writeUInt16BE(n, 4);
  out.writeUInt16BE(searchRange, 6);
  out.writeUInt16BE(entrySelector, 8);
  out.writeUInt16BE(n * 16 - searchRange, 10);
  let offset = headerLength;
  tables.forEach(([tag, data], i) => {
    const rec = 12 + 16 * i;
    out.write(tag, rec, 'latin1');
    data.copy(out, offset);
    out.writeUInt32BE(checksum(out, offset, (data.length + 3) & ~3), rec + 4);
    out.writeUInt32BE(offset, rec + 8);
    out.writeUInt32BE(data.length, rec + 12);
    offset += (data.length + 3) & ~3;
  });
  return out;
}

function checksum(buf: Buffer, start: number, length: number): number {
  let sum = 0;
  for (let i = start; i < start + length; i += 4) sum = (sum + buf.readUInt32BE(i)) >>> 0;
  return sum;
}
