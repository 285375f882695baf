import type { TrueTypeFont } from './truetype-font.js';

// Builds a TrueType font holding only the given glyphs, renumbered in list order (new id = index).
// Composite glyphs pull in their components (appended to `glyphs`, which is why it is mutable).
// Only the tables a PDF viewer needs for an Identity-H CIDFontType2 font are written.
// The file is laid out in parts, so that what a batch's documents share can be deflated once
// (font-streams.ts): the table directory, then the tables that are the same for the face (head and
// the hinting programs), then the outlines of the list's first glyphs (the template's), then the
// rest of the outlines, loca, hmtx, hhea and maxp. The directory is sorted by tag; the tables' data
// may come in any order.

const ARG_1_AND_2_ARE_WORDS = 0x0001;
const WE_HAVE_A_SCALE = 0x0008;
const MORE_COMPONENTS = 0x0020;
const WE_HAVE_AN_X_AND_Y_SCALE = 0x0040;
const WE_HAVE_A_TWO_BY_TWO = 0x0080;

export interface GlyphList {
  /** Original glyph ids; index = id in the subset. Index 0 must be glyph 0 (.notdef). */
  glyphs: number[];
  /** Original id -> subset id (left as it is: components appended are kept apart). */
  index: ReadonlyMap<number, number>;
}

/** The outlines of a subset's first `count` glyphs, when they need no glyph after them. */
export interface FixedGlyphs {
  count: number;
  /** Their glyf data, each glyph padded to 4 bytes, and where each starts in it. */
  data: Buffer;
  offsets: number[];
  checksum: number;
}

/** The subset's file in its parts, one after the other: `head`, `programs`, fixed glyphs, `rest`. */
export interface SubsetParts {
  /** The offset table and the directory. */
  head: Buffer;
  /** head, cvt, fpgm and prep: the same for every subset of the face. */
  programs: Buffer;
  /** The outlines after the fixed glyphs, then loca, hmtx, hhea and maxp. */
  rest: Buffer;
}

export function subsetTrueType(font: TrueTypeFont, list: GlyphList): Buffer {
  const fixed = fixedGlyphs(font, list, 0);
  const { head, programs, rest } = subsetParts(font, list, fixed);
  return Buffer.concat([head, programs, fixed.data, rest]);
}

const NO_FIXED_GLYPHS: FixedGlyphs = { count: 0, data: Buffer.alloc(0), offsets: [], checksum: 0 };

/**
 * The outlines of the list's first `count` glyphs as they are in any subset that starts with them:
 * none (count 0) unless every component of a composite among them is among them too.
 */
export function fixedGlyphs(font: TrueTypeFont, list: GlyphList, count: number): FixedGlyphs {
  const offsets: number[] = [];
  const parts: Buffer[] = [];
  let length = 0;
  for (let i = 0; i < count; i++) {
    const data = remapComponents(font, font.glyphData(list.glyphs[i] ?? 0), (component) => {
      const mapped = list.index.get(component);
      return mapped !== undefined && mapped < count ? mapped : undefined;
    });
    if (!data) return NO_FIXED_GLYPHS;
    offsets.push(length);
    length = pushPadded(parts, data, length);
  }
  const data = Buffer.concat(parts, length);
  return { count, data, offsets, checksum: checksum(data, 0, length) };
}

/** The parts of the subset of `list` after `fixed` (which must be fixedGlyphs of the same list). */
export function subsetParts(font: TrueTypeFont, list: GlyphList, fixed: FixedGlyphs): SubsetParts {
  const { glyphs, index } = list;
  const parts: Buffer[] = [];
  const locaOffsets = fixed.offsets.slice();
  let glyfLength = fixed.data.length;
  const added = new Map<number, number>();
  const appended = (component: number): number => {
    let mapped = index.get(component) ?? added.get(component);
    if (mapped === undefined) {
      mapped = glyphs.length;
      glyphs.push(component);
      added.set(component, mapped);
    }
    return mapped;
  };
  // glyphs may grow while looping: components are appended
  for (let i = fixed.count; i < glyphs.length; i++) {
    const data = remapComponents(font, font.glyphData(glyphs[i] ?? 0), appended)!;
    locaOffsets.push(glyfLength);
    glyfLength = pushPadded(parts, data, glyfLength);
  }
  locaOffsets.push(glyfLength);
  const numGlyphs = glyphs.length;
  const glyf = Buffer.concat(parts);
  const loca = Buffer.alloc(4 * (numGlyphs + 1));
  locaOffsets.forEach((offset, i) => loca.writeUInt32BE(offset, 4 * i));
  const hmtx = Buffer.alloc(4 * numGlyphs);
  for (let i = 0; i < numGlyphs; i++) {
    const gid = glyphs[i] ?? 0;
    hmtx.writeUInt16BE(font.advance(gid), 4 * i);
    const outline = font.glyphData(gid);
    hmtx.writeInt16BE(outline.length >= 10 ? outline.readInt16BE(2) : 0, 4 * i + 2); // lsb = xMin
  }
  const hhea = Buffer.from(requiredTable(font, 'hhea'));
  hhea.writeUInt16BE(numGlyphs, 34);
  const maxp = Buffer.from(requiredTable(font, 'maxp'));
  maxp.writeUInt16BE(numGlyphs, 4);
  const { programs, programBytes } = faceTables(font);
  const glyfTable = {
    tag: 'glyf',
    length: glyfLength,
    sum: (fixed.checksum + checksum(glyf, 0, glyf.length)) >>> 0,
  };
  const back = [table('loca', loca), table('hmtx', hmtx), table('hhea', hhea), table('maxp', maxp)];
  return {
    head: writeDirectory([...programs, glyfTable, ...back]),
    programs: programBytes,
    rest: Buffer.concat([glyf, ...back.map(padded)]),
  };
}

// A glyph's data with its components renumbered by `map` (a simple glyph as it is); undefined
// when `map` refuses a component. A component the font does not have draws nothing: it is .notdef.
function remapComponents(
  font: TrueTypeFont,
  source: Buffer,
  map: (component: number) => number | undefined,
): Buffer | undefined {
  if (source.length < 10 || source.readInt16BE(0) >= 0) return source;
  const data = Buffer.from(source);
  let at = 10;
  // A component record cut short by the end of the glyph ends the list (an uploaded font may be
  // anything): what was read stays.
  while (at + 6 <= data.length) {
    const flags = data.readUInt16BE(at);
    const component = data.readUInt16BE(at + 2) < font.numGlyphs ? data.readUInt16BE(at + 2) : 0;
    const mapped = map(component);
    if (mapped === undefined) return undefined;
    data.writeUInt16BE(mapped, at + 2);
    at += 4 + (flags & ARG_1_AND_2_ARE_WORDS ? 4 : 2);
    if (flags & WE_HAVE_A_SCALE) at += 2;
    else if (flags & WE_HAVE_AN_X_AND_Y_SCALE) at += 4;
    else if (flags & WE_HAVE_A_TWO_BY_TWO) at += 8;
    if (!(flags & MORE_COMPONENTS)) break;
  }
  return data;
}

function pushPadded(parts: Buffer[], data: Buffer, length: number): number {
  parts.push(data);
  const pad = (4 - (data.length % 4)) % 4;
  if (pad) parts.push(Buffer.alloc(pad));
  return length + data.length + pad;
}

interface TableEntry {
  tag: string;
  length: number;
  sum: number;
  data?: Buffer;
}

function table(tag: string, data: Buffer): TableEntry {
  const copy = padded({ tag, length: data.length, sum: 0, data });
  return { tag, length: data.length, sum: checksum(copy, 0, copy.length), data };
}

function padded(entry: TableEntry): Buffer {
  const data = entry.data!;
  if (data.length % 4 === 0) return data;
  const out = Buffer.alloc((data.length + 3) & ~3);
  data.copy(out);
  return out;
}

// The tables that are the same in every subset of a font (head and the hinting programs), made once
// per font.
const sameTables = new WeakMap<TrueTypeFont, { programs: TableEntry[]; programBytes: Buffer }>();

function faceTables(font: TrueTypeFont): { programs: TableEntry[]; programBytes: Buffer } {
  let tables = sameTables.get(font);
  if (!tables) {
    const head = Buffer.from(requiredTable(font, 'head'));
    head.writeUInt32BE(0, 8); // checkSumAdjustment: not needed inside a PDF
    head.writeInt16BE(1, 50); // long loca
    const programs = [table('head', head)];
    for (const tag of ['cvt ', 'fpgm', 'prep']) {
      const data = font.table(tag);
      if (data) programs.push(table(tag, data));
    }
    tables = { programs, programBytes: Buffer.concat(programs.map(padded)) };
    sameTables.set(font, tables);
  }
  return tables;
}

function requiredTable(font: TrueTypeFont, tag: string): Buffer {
  const t = font.table(tag);
  if (!t) throw new Error(`font has no ${tag} table`);
  return t;
}

// Module-level, not a closure made per subset: its optimised code outlives full GCs (docs/benchmarks.md).
const byTag = (a: TableEntry, b: TableEntry) => (a.tag < b.tag ? -1 : 1);

// The offset table and the directory (sorted by tag), for tables whose data follow it in the
// order given, each padded to 4 bytes.
function writeDirectory(tables: TableEntry[]): Buffer {
  const n = tables.length;
  const out = Buffer.alloc(12 + 16 * n);
  const entrySelector = Math.floor(Math.log2(n));
  const searchRange = 2 ** entrySelector * 16;
  out.writeUInt32BE(0x00010000, 0);
  out.writeUInt16BE(n, 4);
  out.writeUInt16BE(searchRange, 6);
  out.writeUInt16BE(entrySelector, 8);
  out.writeUInt16BE(n * 16 - searchRange, 10);
  const offsets = new Map<string, number>();
  let offset = out.length;
  for (const t of tables) {
    offsets.set(t.tag, offset);
    offset += (t.length + 3) & ~3;
  }
  const sorted = [...tables].sort(byTag);
  for (let i = 0; i < sorted.length; i++) {
    const t = sorted[i]!;
    const rec = 12 + 16 * i;
    out.write(t.tag, rec, 'latin1');
    out.writeUInt32BE(t.sum, rec + 4);
    out.writeUInt32BE(offsets.get(t.tag)!, rec + 8);
    out.writeUInt32BE(t.length, rec + 12);
  }
  return out;
}

function checksum(buf: Buffer, start: number, length: number): number {
  let sum = 0;
  for (let i = start; i < start + length; i += 4)
    sum = (sum + ((buf[i]! << 24) | (buf[i + 1]! << 16) | (buf[i + 2]! << 8) | buf[i + 3]!)) >>> 0;
  return sum;
}
