// A minimal read-only TrueType parser: just what embedding a subset in a PDF needs (cmap lookup,
// advance widths, vertical metrics and raw glyph data). Written here rather than taken from fontkit
// because per-document subsetting must cost microseconds, not milliseconds.

export interface TrueTypeFont {
  readonly postScriptName: string;
  readonly unitsPerEm: number;
  readonly ascender: number;
  readonly descender: number; // negative, font units
  readonly capHeight: number;
  readonly bbox: readonly [number, number, number, number];
  readonly italicAngle: number;
  readonly numGlyphs: number;
  /** Glyph id for a code point, 0 when the font has no glyph. */
  glyphId(codePoint: number): number;
  /** Advance width in font units. */
  advance(glyphId: number): number;
  /** Raw `glyf` bytes of one glyph (empty for glyphs without outline). */
  glyphData(glyphId: number): Buffer;
  /** Raw table bytes, or undefined when absent. */
  table(tag: string): Buffer | undefined;
}

interface TableRecord {
  offset: number;
  length: number;
}

/** Decisions section 25: at most this many code points mapped by a font's cmap (all of Unicode). */
export const MAX_MAPPED_CODE_POINTS = 0x110000;

// The smallest sizes of the tables whose fields are read at fixed offsets.
const MIN_LENGTH: Record<string, number> = { head: 54, hhea: 36, maxp: 6, cmap: 4 };

/**
 * Parses a TrueType font. Everything is bounded by the file: the table directory, each table and
 * each field read must lie within it, and the cmap is held to the Unicode range and the glyph
 * count (overlapping ranges refused) before any of it is expanded. Throws an Error whose message
 * names what is wrong ("font's cmap table ...").
 */
export function parseTrueType(data: Buffer): TrueTypeFont {
  if (data.length < 12) throw new Error('font is cut short (no table directory)');
  const tables = new Map<string, TableRecord>();
  const numTables = data.readUInt16BE(4);
  if (12 + 16 * numTables > data.length) throw new Error('font is cut short (in its table directory)');
  for (let i = 0; i < numTables; i++) {
    const rec = 12 + 16 * i;
    const tag = data.toString('latin1', rec, rec + 4);
    const offset = data.readUInt32BE(rec + 8);
    const length = data.readUInt32BE(rec + 12);
    if (offset > data.length || length > data.length - offset) {
      throw new Error(`font's ${printable(tag)} table lies outside the file`);
    }
    tables.set(tag, { offset, length });
  }
  const table = (tag: string): Buffer | undefined => {
    const t = tables.get(tag);
    return t ? data.subarray(t.offset, t.offset + t.length) : undefined;
  };
  const need = (tag: string): Buffer => {
    const t = table(tag);
    if (!t) throw new Error(`font has no ${tag} table`);
    if (t.length < (MIN_LENGTH[tag] ?? 0)) throw new Error(`font's ${tag} table is cut short`);
    return t;
  };

  const head = need('head');
  const hhea = need('hhea');
  const maxp = need('maxp');
  const hmtx = need('hmtx');
  const loca = need('loca');
  const glyf = need('glyf');
  const os2 = table('OS/2');
  const post = table('post');

  const unitsPerEm = head.readUInt16BE(18);
  if (unitsPerEm < 16 || unitsPerEm > 16384) throw new Error("font's head table has a wrong unitsPerEm");
  const bbox = [
    head.readInt16BE(36),
    head.readInt16BE(38),
    head.readInt16BE(40),
    head.readInt16BE(42),
  ] as const;
  const longLoca = head.readInt16BE(50) === 1;
  const numGlyphs = maxp.readUInt16BE(4);
  if (numGlyphs === 0) throw new Error('font has no glyphs');
  const numberOfHMetrics = hhea.readUInt16BE(34);
  if (numberOfHMetrics === 0 || numberOfHMetrics > numGlyphs || hmtx.length < 4 * numberOfHMetrics) {
    throw new Error("font's hmtx table does not match its glyph count");
  }
  if (loca.length < (numGlyphs + 1) * (longLoca ? 4 : 2)) throw new Error("font's loca table is cut short");
  const ascender = hhea.readInt16BE(4);
  const descender = hhea.readInt16BE(6);
  const capHeight =
    os2 && os2.length >= 90 && os2.readUInt16BE(0) >= 2 ? os2.readInt16BE(88) : Math.round(ascender * 0.7);
  const italicAngle = post && post.length >= 8 ? post.readInt32BE(4) / 65536 : 0;

  // Glyph offsets in order and within glyf: the glyphs are then slices of glyf that do not overlap,
  // so a subset is never larger than the table (glyphs that all point at the whole table made a
  // subset of one character hundreds of megabytes).
  const glyphOffsets = new Uint32Array(numGlyphs + 1);
  for (let i = 0; i <= numGlyphs; i++) {
    glyphOffsets[i] = longLoca ? loca.readUInt32BE(i * 4) : loca.readUInt16BE(i * 2) * 2;
    if (i > 0 && glyphOffsets[i]! < glyphOffsets[i - 1]!)
      throw new Error("font's loca table is out of order");
  }
  if (glyphOffsets[numGlyphs]! > glyf.length) throw new Error("font's loca table points past its glyf table");
  const advances = new Uint16Array(numGlyphs);
  for (let i = 0; i < numGlyphs; i++) {
    advances[i] = hmtx.readUInt16BE(4 * Math.min(i, numberOfHMetrics - 1));
  }

  const cmap = parseCmap(need('cmap'), numGlyphs);
  return {
    postScriptName: readPostScriptName(table('name')) ?? 'DejaVu',
    unitsPerEm,
    ascender,
    descender,
    capHeight,
    bbox,
    italicAngle,
    numGlyphs,
    glyphId: (cp) => (cp <= 0xffff ? (cmap.bmp[cp] ?? 0) : astralGlyph(cmap.astral, cp)),
    advance: (gid) => advances[gid] ?? 0,
    glyphData: (gid) => glyf.subarray(glyphOffsets[gid] ?? 0, glyphOffsets[gid + 1] ?? 0),
    table,
  };
}

const printable = (tag: string): string => tag.replace(/[^\x20-\x7e]/g, '?').trim() || '?';

// Code points beyond the BMP, as the format-12 groups that map them: start, end, first glyph id
// (three numbers per group, sorted, not overlapping), searched by halves.
function astralGlyph(groups: Uint32Array, cp: number): number {
  let lo = 0;
  let hi = groups.length / 3 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const start = groups[3 * mid]!;
    if (cp < start) hi = mid - 1;
    else if (cp > groups[3 * mid + 1]!) lo = mid + 1;
    else return groups[3 * mid + 2]! + cp - start;
  }
  return 0;
}

interface Cmap {
  /** A flat BMP lookup: one array read per character at render time. */
  bmp: Uint16Array;
  astral: Uint32Array;
}

// Format 12 (preferred) or format 4, checked whole before anything is filled in: ranges within
// the table, in order and not overlapping, within Unicode, mapping to glyphs the font has.
function parseCmap(cmap: Buffer, numGlyphs: number): Cmap {
  const fail = (what: string): never => {
    throw new Error(`font's cmap table ${what}`);
  };
  const count = cmap.readUInt16BE(2);
  if (4 + 8 * count > cmap.length) fail('is cut short');
  let format4 = -1;
  let format12 = -1;
  for (let i = 0; i < count; i++) {
    const platform = cmap.readUInt16BE(4 + 8 * i);
    const encoding = cmap.readUInt16BE(6 + 8 * i);
    const offset = cmap.readUInt32BE(8 + 8 * i);
    if (offset + 4 > cmap.length) fail('has a subtable outside the table');
    const format = cmap.readUInt16BE(offset);
    if (format === 4 && (platform === 3 || platform === 0) && (encoding === 1 || platform === 0))
      format4 = offset;
    if (format === 12 && (platform === 3 || platform === 0)) format12 = offset;
  }
  if (format12 >= 0) return format12Cmap(cmap, format12, numGlyphs, fail);
  if (format4 >= 0) return format4Cmap(cmap, format4, numGlyphs, fail);
  return fail('has no Unicode subtable (format 4 or 12)');
}

function format12Cmap(cmap: Buffer, at: number, numGlyphs: number, fail: (what: string) => never): Cmap {
  if (at + 16 > cmap.length) fail('is cut short (format 12)');
  const groups = cmap.readUInt32BE(at + 12);
  if (groups > (cmap.length - at - 16) / 12) fail(`says it has ${groups} groups, more than it holds`);
  let mapped = 0;
  let previousEnd = -1;
  const astral: number[] = [];
  for (let g = 0; g < groups; g++) {
    const rec = at + 16 + 12 * g;
    const start = cmap.readUInt32BE(rec);
    const end = cmap.readUInt32BE(rec + 4);
    const startGid = cmap.readUInt32BE(rec + 8);
    if (end < start || end > 0x10ffff) fail(`has a group outside Unicode (${hex(start)}-${hex(end)})`);
    if (start <= previousEnd) fail(`has overlapping or unordered groups (at ${hex(start)})`);
    if (startGid + (end - start) >= numGlyphs) {
      fail(`maps ${hex(start)}-${hex(end)} to glyphs the font does not have (it has ${numGlyphs})`);
    }
    mapped += end - start + 1;
    if (mapped > MAX_MAPPED_CODE_POINTS) fail(`maps more than ${MAX_MAPPED_CODE_POINTS} code points`);
    previousEnd = end;
  }
  const bmp = new Uint16Array(0x10000);
  for (let g = 0; g < groups; g++) {
    const rec = at + 16 + 12 * g;
    const start = cmap.readUInt32BE(rec);
    const end = cmap.readUInt32BE(rec + 4);
    const startGid = cmap.readUInt32BE(rec + 8);
    for (let cp = start; cp <= Math.min(end, 0xffff); cp++) bmp[cp] = startGid + cp - start;
    if (end > 0xffff) {
      const from = Math.max(start, 0x10000);
      astral.push(from, end, startGid + from - start);
    }
  }
  return { bmp, astral: Uint32Array.from(astral) };
}

function format4Cmap(cmap: Buffer, at: number, numGlyphs: number, fail: (what: string) => never): Cmap {
  if (at + 14 > cmap.length) fail('is cut short (format 4)');
  const segX2 = cmap.readUInt16BE(at + 6);
  if (segX2 % 2 !== 0) fail('has an odd segment count');
  const ends = at + 14;
  const starts = ends + segX2 + 2;
  const deltas = starts + segX2;
  const rangeOffsets = deltas + segX2;
  if (rangeOffsets + segX2 > cmap.length) fail(`says it has ${segX2 / 2} segments, more than it holds`);
  let previousEnd = -1;
  for (let s = 0; s < segX2; s += 2) {
    const end = cmap.readUInt16BE(ends + s);
    const start = cmap.readUInt16BE(starts + s);
    if (end < start) fail(`has a segment that ends before it starts (${hex(start)}-${hex(end)})`);
    if (start <= previousEnd) fail(`has overlapping or unordered segments (at ${hex(start)})`);
    previousEnd = end;
  }
  // Segments in order and apart: at most 65,536 code points in all.
  const bmp = new Uint16Array(0x10000);
  for (let s = 0; s < segX2; s += 2) {
    const end = cmap.readUInt16BE(ends + s);
    const start = cmap.readUInt16BE(starts + s);
    const delta = cmap.readInt16BE(deltas + s);
    const rangeOffset = cmap.readUInt16BE(rangeOffsets + s);
    for (let cp = start; cp <= end && cp !== 0xffff; cp++) {
      let gid: number;
      if (rangeOffset === 0) gid = (cp + delta) & 0xffff;
      else {
        const glyphAt = rangeOffsets + s + rangeOffset + 2 * (cp - start);
        gid = glyphAt + 2 <= cmap.length ? cmap.readUInt16BE(glyphAt) : 0;
        if (gid !== 0) gid = (gid + delta) & 0xffff;
      }
      bmp[cp] = gid < numGlyphs ? gid : 0; // a glyph the font does not have draws as .notdef
    }
  }
  return { bmp, astral: new Uint32Array(0) };
}

const hex = (cp: number): string => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

// A string of the `name` table (the first record with that name id, Mac Roman or UTF-16BE), or
// undefined when there is none or the table is cut short (an uploaded font may be anything).
function readName(name: Buffer | undefined, id: number): string | undefined {
  if (!name || name.length < 6) return undefined;
  const count = name.readUInt16BE(2);
  const strings = name.readUInt16BE(4);
  for (let i = 0; i < count; i++) {
    const rec = 6 + 12 * i;
    if (rec + 12 > name.length) return undefined;
    if (name.readUInt16BE(rec + 6) !== id) continue;
    const platform = name.readUInt16BE(rec);
    const length = name.readUInt16BE(rec + 8);
    const at = strings + name.readUInt16BE(rec + 10);
    if (at + length > name.length) continue;
    const raw = name.subarray(at, at + length);
    if (platform === 1) return raw.toString('latin1');
    return Buffer.from(raw.subarray(0, length - (length % 2)))
      .swap16()
      .toString('utf16le');
  }
  return undefined;
}

function readPostScriptName(name: Buffer | undefined): string | undefined {
  // PDF names are at most 127 bytes: the subset tag and its + take 7 (decisions section 25).
  return (
    readName(name, 6)
      ?.replace(/[^A-Za-z0-9-]/g, '')
      .slice(0, 120) || undefined
  );
}

/**
 * What a font says it is: its family (the typographic family, name id 16, else name id 1) and
 * whether it is bold (OS/2 weight 600 or more, else the bold bit of head.macStyle).
 */
export function fontStyle(font: TrueTypeFont): { family: string | undefined; bold: boolean } {
  const name = font.table('name');
  const family = (readName(name, 16) ?? readName(name, 1))?.trim() || undefined;
  const os2 = font.table('OS/2');
  const head = font.table('head');
  const bold =
    os2 && os2.length >= 6
      ? os2.readUInt16BE(4) >= 600
      : head !== undefined && (head.readUInt16BE(44) & 1) === 1;
  return { family, bold };
}
