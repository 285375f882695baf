import { readFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { bundledFace, bundledFacePath } from '../../src/pdf/font-catalog.js';
import { inflatedSize } from '../../src/pdf/png.js';

// The hostile files of issue 27, made here byte by byte: decompression bombs, headers that lie,
// fonts whose cmap would expand forever, broken and disguised files. Each says what a refusal must
// name (`refusal`), or that the file is valid and must be taken (`refusal: undefined`).

export interface HostileFile {
  name: string;
  kind: 'image' | 'font';
  bytes: Buffer;
  /** What the 422 must say; undefined when the file is valid (within the limits) and is taken. */
  refusal: RegExp | undefined;
}

/** A PNG chunk: length, type, body and CRC. */
export function chunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body, crc32(Buffer.from(type, 'latin1'))));
  return Buffer.concat([head, body, crc]);
}

export function png(opts: {
  width: number;
  height: number;
  bitDepth?: number;
  colorType?: number;
  interlace?: boolean;
  /** The inflated image data; by default rows of zeros of the declared size. */
  raw?: Buffer;
  idat?: Buffer;
  extra?: Buffer[];
}): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(opts.width, 0);
  ihdr.writeUInt32BE(opts.height, 4);
  ihdr[8] = opts.bitDepth ?? 8;
  ihdr[9] = opts.colorType ?? 2;
  ihdr[12] = opts.interlace ? 1 : 0;
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[opts.colorType ?? 2] ?? 3;
  const rowBytes = Math.ceil((opts.width * channels * (opts.bitDepth ?? 8)) / 8);
  const idat =
    opts.idat ??
    deflateSync(opts.raw ?? Buffer.alloc(opts.height * (1 + rowBytes)), { level: 9, memLevel: 9 });
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    ...(opts.extra ?? []),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A font whose table `tag` is replaced by `data` (appended to the file; the directory points at it). */
export function withTable(font: Buffer, tag: string, data: Buffer): Buffer {
  const out = Buffer.concat([font, Buffer.alloc((4 - (font.length % 4)) % 4), data]);
  const offset = out.length - data.length;
  for (let i = 0; i < out.readUInt16BE(4); i++) {
    const rec = 12 + 16 * i;
    if (out.toString('latin1', rec, rec + 4) === tag) {
      out.writeUInt32BE(offset, rec + 8);
      out.writeUInt32BE(data.length, rec + 12);
      return out;
    }
  }
  throw new Error(`no ${tag} table`);
}

/** The offset and length of a table in the font's directory (and where its record is). */
export function tableRecord(font: Buffer, tag: string): { at: number; offset: number; length: number } {
  for (let i = 0; i < font.readUInt16BE(4); i++) {
    const rec = 12 + 16 * i;
    if (font.toString('latin1', rec, rec + 4) === tag) {
      return { at: rec, offset: font.readUInt32BE(rec + 8), length: font.readUInt32BE(rec + 12) };
    }
  }
  throw new Error(`no ${tag} table`);
}

/** A cmap with one format-12 subtable (Windows, UCS-4) of these groups. */
export function format12Cmap(groups: [number, number, number][]): Buffer {
  const sub = Buffer.alloc(16 + 12 * groups.length);
  sub.writeUInt16BE(12, 0);
  sub.writeUInt32BE(sub.length, 4);
  sub.writeUInt32BE(groups.length, 12);
  groups.forEach(([start, end, gid], g) => {
    sub.writeUInt32BE(start, 16 + 12 * g);
    sub.writeUInt32BE(end, 20 + 12 * g);
    sub.writeUInt32BE(gid, 24 + 12 * g);
  });
  const head = Buffer.alloc(12);
  head.writeUInt16BE(1, 2);
  head.writeUInt16BE(3, 4);
  head.writeUInt16BE(10, 6);
  head.writeUInt32BE(12, 8);
  return Buffer.concat([head, sub]);
}

/** A cmap with one format-4 subtable of these segments (start, end, delta; no glyph array). */
export function format4Cmap(segments: [number, number, number][]): Buffer {
  const all = [...segments, [0xffff, 0xffff, 1] as [number, number, number]];
  const n = all.length;
  const sub = Buffer.alloc(16 + 8 * n);
  sub.writeUInt16BE(4, 0);
  sub.writeUInt16BE(Math.min(sub.length, 0xffff), 2);
  sub.writeUInt16BE(2 * n, 6);
  all.forEach(([start, end, delta], s) => {
    sub.writeUInt16BE(end, 14 + 2 * s);
    sub.writeUInt16BE(start, 16 + 2 * n + 2 * s);
    sub.writeInt16BE(delta, 16 + 4 * n + 2 * s);
  });
  const head = Buffer.alloc(12);
  head.writeUInt16BE(1, 2);
  head.writeUInt16BE(3, 4);
  head.writeUInt16BE(1, 6);
  head.writeUInt32BE(12, 8);
  return Buffer.concat([head, sub]);
}

export const dejavu = (): Buffer => Buffer.from(readFileSync(bundledFacePath(bundledFace('dejavu-sans'))));

/** A name table whose every record is this one string (UTF-16BE, Windows). */
export function nameTable(text: string): Buffer {
  const ids = [1, 4, 6, 16];
  const value = Buffer.from(text, 'utf16le').swap16();
  const head = Buffer.alloc(6 + 12 * ids.length);
  head.writeUInt16BE(ids.length, 2);
  head.writeUInt16BE(head.length, 4);
  ids.forEach((id, i) => {
    const rec = 6 + 12 * i;
    head.writeUInt16BE(3, rec);
    head.writeUInt16BE(1, rec + 2);
    head.writeUInt16BE(0x409, rec + 4);
    head.writeUInt16BE(id, rec + 6);
    head.writeUInt16BE(value.length, rec + 8);
    head.writeUInt16BE(0, rec + 10);
  });
  return Buffer.concat([head, value]);
}

function jpegFrame(width: number, height: number): Buffer {
  const sof = Buffer.from([0xff, 0xc0, 0, 17, 8, 0, 0, 0, 0, 3, 1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1]);
  sof.writeUInt16BE(height, 5);
  sof.writeUInt16BE(width, 7);
  return sof;
}

export function hostileFiles(): HostileFile[] {
  const font = dejavu();
  const numGlyphs = font.readUInt16BE(tableRecord(font, 'maxp').offset + 4);
  const image = (name: string, bytes: Buffer, refusal: RegExp | undefined): HostileFile => ({
    name,
    kind: 'image',
    bytes,
    refusal,
  });
  const fontFile = (name: string, bytes: Buffer, refusal: RegExp | undefined): HostileFile => ({
    name,
    kind: 'font',
    bytes,
    refusal,
  });
  const truncated = font.subarray(0, 4096);
  const outside = Buffer.from(font);
  outside.writeUInt32BE(font.length + 1000, tableRecord(font, 'glyf').at + 8);
  const manyTables = Buffer.from(font);
  manyTables.writeUInt16BE(0xffff, 4);
  const shortLoca = withTable(font, 'loca', Buffer.alloc(8));
  // Every glyph the whole glyf table: offsets 0, end, 0, end, ... (long loca).
  const headAt = tableRecord(font, 'head').offset;
  const glyfLength = tableRecord(font, 'glyf').length;
  const zigzag = Buffer.alloc(4 * (numGlyphs + 1));
  for (let i = 0; i <= numGlyphs; i++) zigzag.writeUInt32BE(i % 2 ? glyfLength : 0, 4 * i);
  const overlapping = withTable(font, 'loca', zigzag);
  overlapping.writeInt16BE(1, headAt + 50);
  const interlaced = (side: number) =>
    png({
      width: side,
      height: side,
      colorType: 0,
      bitDepth: 1,
      raw: Buffer.alloc(
        inflatedSize({ width: side, height: side, bitDepth: 1, colorType: 0, interlaced: true }),
      ),
      interlace: true,
    });
  const palette = chunk('PLTE', Buffer.from([255, 0, 0, 0, 255, 0]));
  const badIndex = Buffer.alloc(4 * 5);
  badIndex[1] = 5; // index 5 of a palette of 2
  const goodPng = png({ width: 4, height: 4 });
  const badCrc = Buffer.from(goodPng);
  badCrc[badCrc.length - 20]! ^= 0xff;
  return [
    image(
      '1 × 100,000,000 PNG (68 bytes)',
      png({ width: 1, height: 100_000_000, idat: deflateSync(Buffer.alloc(16)) }),
      /is 1 × 100000000 pixels: images may have at most 10,000 px a side and 40 megapixels/,
    ),
    image(
      '12,000 × 12,000 PNG bomb',
      png({ width: 12_000, height: 12_000, idat: deflateSync(Buffer.alloc(1000)) }),
      /is 12000 × 12000 pixels/,
    ),
    image(
      '7,000 × 7,000 PNG (49 megapixels)',
      png({ width: 7_000, height: 7_000, idat: deflateSync(Buffer.alloc(10)) }),
      /40 megapixels/,
    ),
    image(
      '5,000 × 5,000 grey PNG bomb (valid)',
      png({ width: 5_000, height: 5_000, colorType: 0, bitDepth: 1 }),
      undefined,
    ),
    image(
      '5,000 × 5,000 RGBA PNG bomb (valid)',
      png({ width: 5_000, height: 5_000, colorType: 6 }),
      undefined,
    ),
    image(
      '10 × 10 PNG that inflates to 100 MB',
      png({ width: 10, height: 10, raw: Buffer.alloc(100_000_000) }),
      /more image data than its size/,
    ),
    image(
      'PNG with too little image data',
      png({ width: 100, height: 100, raw: Buffer.alloc(10) }),
      /less image data than its size/,
    ),
    image('PNG with a bad CRC', badCrc, /fails its CRC check/),
    image('PNG cut short', goodPng.subarray(0, goodPng.length - 20), /cut short/),
    image(
      'PNG with a chunk longer than the file',
      Buffer.concat([goodPng.subarray(0, 8), Buffer.from([0x7f, 0xff, 0xff, 0xff]), goodPng.subarray(12)]),
      /cut short/,
    ),
    image(
      'interlaced PNG of 5,000 × 5,000 (1-bit)',
      interlaced(5_000),
      /an interlaced PNG, or one with transparency in its palette or a 16-bit transparent colour, may have at most 4 megapixels/,
    ),
    image('interlaced PNG of 1,000 × 1,000 (valid)', interlaced(1_000), undefined),
    image(
      'palette with transparency and an index outside it',
      png({
        width: 4,
        height: 4,
        colorType: 3,
        raw: badIndex,
        extra: [palette, chunk('tRNS', Buffer.from([0, 255]))],
      }),
      /not a readable PNG image/,
    ),
    image(
      'RGBA PNG decoding to 320 MB (16-bit, 40 megapixels)',
      png({ width: 8_000, height: 5_000, colorType: 6, bitDepth: 16, idat: deflateSync(Buffer.alloc(10)) }),
      /decodes to 320 MB: a PNG may decode to at most 160 MB/,
    ),
    image(
      'PNG with an unknown filter',
      png({ width: 4, height: 2, raw: Buffer.from([9, ...Buffer.alloc(12), 0, ...Buffer.alloc(12)]) }),
      /unknown filter/,
    ),
    image(
      'JPEG of endless markers',
      Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(1_500_000, 0xff)]),
      /no frame header/,
    ),
    image(
      'JPEG of endless empty segments',
      Buffer.concat([
        Buffer.from([0xff, 0xd8]),
        ...Array.from({ length: 200_000 }, () => Buffer.from([0xff, 0xe1, 0, 2])),
      ]),
      /no frame header/,
    ),
    image(
      'JPEG 60,000 × 60,000',
      Buffer.concat([Buffer.from([0xff, 0xd8]), jpegFrame(60_000, 60_000), Buffer.from([0xff, 0xd9])]),
      /is 60000 × 60000 pixels/,
    ),
    image(
      'JPEG whose segment runs past the end',
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0xff, 0x00, 0x01, 0x02]),
      /runs past the end/,
    ),
    fontFile(
      'cmap format 12, one group U+10000–U+FFFFFF',
      withTable(font, 'cmap', format12Cmap([[0x10000, 0xffffff, 1]])),
      /group outside Unicode/,
    ),
    fontFile(
      'cmap format 12, all of Unicode to glyphs it lacks',
      withTable(font, 'cmap', format12Cmap([[0, 0x10ffff, 1]])),
      /to glyphs the font does not have/,
    ),
    fontFile(
      'cmap format 12, overlapping groups',
      withTable(
        font,
        'cmap',
        format12Cmap([
          [0x20, 0x7e, 3],
          [0x41, 0x42, 5],
        ]),
      ),
      /overlapping or unordered groups/,
    ),
    fontFile(
      'cmap format 12, 4 billion groups declared',
      (() => {
        const c = format12Cmap([[0x20, 0x7e, 3]]);
        c.writeUInt32BE(0xffffffff, 12 + 12);
        return withTable(font, 'cmap', c);
      })(),
      /says it has 4294967295 groups/,
    ),
    fontFile(
      'cmap format 4, 32,000 overlapping segments',
      withTable(
        font,
        'cmap',
        format4Cmap(Array.from({ length: 32_000 }, () => [0, 0xfffe, 0] as [number, number, number])),
      ),
      /overlapping or unordered segments/,
    ),
    fontFile('font cut short', truncated, /(lies outside the file|cut short)/),
    fontFile('font whose glyf table lies outside the file', outside, /glyf table lies outside the file/),
    fontFile('font that says it has 65,535 tables', manyTables, /cut short \(in its table directory\)/),
    fontFile('font with a loca table cut short', shortLoca, /loca table is cut short/),
    fontFile('font whose glyphs all overlap the whole glyf table', overlapping, /loca table is out of order/),
    fontFile(
      'TTC font collection',
      Buffer.concat([Buffer.from('ttcf'), Buffer.alloc(64)]),
      /font collection \(TTC\)/,
    ),
    fontFile(
      'WOFF',
      Buffer.concat([Buffer.from('wOFF'), Buffer.alloc(64)]),
      /WOFF\), which is not supported: upload the TTF or OTF/,
    ),
    fontFile(
      'WOFF2',
      Buffer.concat([Buffer.from('wOF2'), Buffer.alloc(64)]),
      /WOFF2\), which is not supported/,
    ),
    fontFile('PNG given as a font', goodPng, /is an image \(PNG\), not a font/),
    fontFile(
      'font with a 10,000-character name (valid)',
      withTable(font, 'name', nameTable('N'.repeat(10_000))),
      undefined,
    ),
    fontFile(
      'format 12 within Unicode and the glyph count (valid)',
      withTable(
        font,
        'cmap',
        format12Cmap([
          [0x20, 0x7e, 3],
          [0x1f600, 0x1f600 + numGlyphs - 200, 100],
        ]),
      ),
      undefined,
    ),
  ];
}
