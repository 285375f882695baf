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

export function parseTrueType(data: Buffer): TrueTypeFont {
  const tables = new Map<string, TableRecord>();
  const numTables = data.readUInt16BE(4);
  for (let i = 0; i < numTables; i++) {
    const rec = 12 + 16 * i;
    tables.set(data.toString('latin1', rec, rec + 4), {
      offset: data.readUInt32BE(rec + 8),
      length: data.readUInt32BE(rec + 12),
    });
  }
  const table = (tag: string): Buffer | undefined => {
    const t = tables.get(tag);
    return t ? data.subarray(t.offset, t.offset + t.length) : undefined;
  };
  const need = (tag: string): Buffer => {
    const t = table(tag);
    if (!t) throw new Error(`font has no ${tag} table`);
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
  const bbox = [
    head.readInt16BE(36),
    head.readInt16BE(38),
    head.readInt16BE(40),
    head.readInt16BE(42),
  ] as const;
  const longLoca = head.readInt16BE(50) === 1;
  const numGlyphs = maxp.readUInt16BE(4);
  const numberOfHMetrics = hhea.readUInt16BE(34);
  const ascender = hhea.readInt16BE(4);
  const descender = hhea.readInt16BE(6);
  const capHeight = os2 && os2.readUInt16BE(0) >= 2 ? os2.readInt16BE(88) : Math.round(ascender * 0.7);
  const italicAngle = post ? post.readInt32BE(4) / 65536 : 0;

  const glyphOffsets = new Uint32Array(numGlyphs + 1);
  for (let i = 0; i <= numGlyphs; i++) {
    glyphOffsets[i] = longLoca ? loca.readUInt32BE(i * 4) : loca.readUInt16BE(i * 2) * 2;
  }
  const advances = new Uint16Array(numGlyphs);
  for (let i = 0; i < numGlyphs; i++) {
    advances[i] = hmtx.readUInt16BE(4 * Math.min(i, numberOfHMetrics - 1));
  }

  const { bmp, astral } = parseCmap(need('cmap'));
  return {
    postScriptName: readPostScriptName(table('name')) ?? 'DejaVu',
    unitsPerEm,
    ascender,
    descender,
    capHeight,
    bbox,
    italicAngle,
    numGlyphs,
    glyphId: (cp) => (cp <= 0xffff ? (bmp[cp] ?? 0) : (astral.get(cp) ?? 0)),
    advance: (gid) => advances[gid] ?? 0,
    glyphData: (gid) => glyf.subarray(glyphOffsets[gid] ?? 0, glyphOffsets[gid + 1] ?? 0),
    table,
  };
}

// Fills a flat BMP lookup (one array read per character at render time) from format 4 or 12.
function parseCmap(cmap: Buffer): { bmp: Uint16Array; astral: Map<number, number> } {
  const bmp = new Uint16Array(0x10000);
  const astral = new Map<number, number>();
  const count = cmap.readUInt16BE(2);
  let format4 = -1;
  let format12 = -1;
  for (let i = 0; i < count; i++) {
    const platform = cmap.readUInt16BE(4 + 8 * i);
    const encoding = cmap.readUInt16BE(6 + 8 * i);
    const offset = cmap.readUInt32BE(8 + 8 * i);
    const format = cmap.readUInt16BE(offset);
    if (format === 4 && (platform === 3 || platform === 0) && (encoding === 1 || platform === 0))
      format4 = offset;
    if (format === 12 && (platform === 3 || platform === 0)) format12 = offset;
  }
  if (format12 >= 0) {
    const groups = cmap.readUInt32BE(format12 + 12);
    for (let g = 0; g < groups; g++) {
      const rec = format12 + 16 + 12 * g;
      const start = cmap.readUInt32BE(rec);
      const end = cmap.readUInt32BE(rec + 4);
      const startGid = cmap.readUInt32BE(rec + 8);
      for (let cp = start; cp <= end; cp++) {
        if (cp <= 0xffff) bmp[cp] = startGid + cp - start;
        else astral.set(cp, startGid + cp - start);
      }
    }
  } else if (format4 >= 0) {
    const segX2 = cmap.readUInt16BE(format4 + 6);
    const ends = format4 + 14;
    const starts = ends + segX2 + 2;
    const deltas = starts + segX2;
    const rangeOffsets = deltas + segX2;
    for (let s = 0; s < segX2; s += 2) {
      const end = cmap.readUInt16BE(ends + s);
      const start = cmap.readUInt16BE(starts + s);
      const delta = cmap.readInt16BE(deltas + s);
      const rangeOffset = cmap.readUInt16BE(rangeOffsets + s);
      for (let cp = start; cp <= end && cp !== 0xffff; cp++) {
        let gid: number;
        if (rangeOffset === 0) gid = (cp + delta) & 0xffff;
        else {
          const at = rangeOffsets + s + rangeOffset + 2 * (cp - start);
          gid = cmap.readUInt16BE(at);
          if (gid !== 0) gid = (gid + delta) & 0xffff;
        }
        bmp[cp] = gid;
      }
    }
  } else {
    throw new Error('font has no usable cmap');
  }
  return { bmp, astral };
}

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
  return readName(name, 6)?.replace(/[^A-Za-z0-9-]/g, '');
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
