import { crc32, createInflate, inflateSync } from 'node:zlib';

// PNG files read as a PDF needs them, bounded before anything is inflated: the header's size is
// held to the limits first, every chunk must lie within the file with a correct CRC, and the image
// data is inflated (when it must be) to exactly the size the header declares, never more. PDF's
// FlateDecode with the PNG predictors reads a PNG's own compressed rows, so most PNGs are embedded
// without being decoded at all; an image with an alpha channel is split, row by row and still
// filtered, into colour and mask (PNG filters predict each byte from the same channel's bytes, so
// the split rows are valid filtered rows of their own).

/** Decisions section 25: images at most 40 megapixels and 10,000 px a side. */
export const IMAGE_MAX_PIXELS = 40_000_000;
export const IMAGE_MAX_SIDE = 10_000;
/** The image data of a PNG inflates to at most this (40 megapixels of 8-bit RGBA). */
export const PNG_MAX_INFLATED = 160_000_000;
/**
 * Interlaced PNGs, palettes with transparency and 16-bit colour keys are decoded pixel by pixel
 * (pngjs) to be embedded: those may have at most 4 megapixels.
 */
export const DECODED_MAX_PIXELS = 4_000_000;

export interface PngFile {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
  interlaced: boolean;
  palette: Buffer | undefined;
  transparency: Buffer | undefined;
  /** The IDAT chunks' data, in order. */
  data: Buffer[];
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

export function isPng(bytes: Buffer): boolean {
  return bytes.length >= 8 && bytes.subarray(0, 8).equals(SIGNATURE);
}

/** The size limits, as the message of a refusal ("is 12000 × 12000 pixels: ..."), or undefined. */
export function imageSizeProblem(width: number, height: number): string | undefined {
  if (width === 0 || height === 0) return 'has no pixels (a width or height of 0)';
  if (width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE || width * height > IMAGE_MAX_PIXELS) {
    return (
      `is ${width} × ${height} pixels: images may have at most ${IMAGE_MAX_SIDE.toLocaleString('en')} px a side ` +
      `and ${IMAGE_MAX_PIXELS / 1_000_000} megapixels`
    );
  }
  return undefined;
}

/** Reads the chunks (no inflating); throws an Error whose message says what is wrong. */
export function readPng(bytes: Buffer): PngFile {
  if (!isPng(bytes)) throw new Error('is not a PNG image');
  let at = 8;
  let header: Omit<PngFile, 'palette' | 'transparency' | 'data'> | undefined;
  let palette: Buffer | undefined;
  let transparency: Buffer | undefined;
  const data: Buffer[] = [];
  let ended = false;
  while (!ended) {
    if (at + 12 > bytes.length) throw new Error('is a PNG image cut short (no IEND chunk)');
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    if (length > bytes.length - at - 12) throw new Error(`is a PNG image cut short (in its ${type} chunk)`);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(body, crc32(bytes.subarray(at + 4, at + 8))) !== bytes.readUInt32BE(at + 8 + length)) {
      throw new Error(`is a damaged PNG image (the ${type} chunk fails its CRC check)`);
    }
    at += 12 + length;
    if (!header && type !== 'IHDR') throw new Error('is a damaged PNG image (it does not start with IHDR)');
    switch (type) {
      case 'IHDR':
        if (header) throw new Error('is a damaged PNG image (two IHDR chunks)');
        header = readHeader(body);
        break;
      case 'PLTE':
        if (length % 3 !== 0 || length === 0 || length > 768) {
          throw new Error('is a damaged PNG image (its palette has a wrong size)');
        }
        palette = body;
        break;
      case 'tRNS':
        transparency = body;
        break;
      case 'IDAT':
        data.push(body);
        break;
      case 'IEND':
        ended = true;
        break;
      default:
        // Ancillary chunks are ignored; an unknown critical chunk (upper-case first letter) is not.
        if (!/^[A-Za-z]{4}$/.test(type) || (type.charCodeAt(0) & 0x20) === 0) {
          throw new Error(
            `is a PNG image with a chunk this service cannot read (${type.replace(/\W/g, '?')})`,
          );
        }
    }
  }
  if (!header) throw new Error('is a damaged PNG image (no IHDR chunk)');
  if (data.length === 0) throw new Error('is a damaged PNG image (no image data)');
  if (header.colorType === 3 && !palette) throw new Error('is a damaged PNG image (no palette)');
  const png = { ...header, palette, transparency, data };
  const inflated = inflatedSize(png);
  if (inflated > PNG_MAX_INFLATED) {
    throw new Error(
      `decodes to ${Math.round(inflated / 1e6)} MB: a PNG may decode to at most ${PNG_MAX_INFLATED / 1e6} MB (40 megapixels of 8-bit colour with alpha)`,
    );
  }
  if (mustDecode(png) && png.width * png.height > DECODED_MAX_PIXELS) {
    throw new Error(
      `is ${png.width} × ${png.height} pixels: an interlaced PNG, or one with transparency in its palette or a 16-bit transparent colour, may have at most ${DECODED_MAX_PIXELS / 1e6} megapixels (save it without interlacing, or with an alpha channel)`,
    );
  }
  return png;
}

function readHeader(body: Buffer): Omit<PngFile, 'palette' | 'transparency' | 'data'> {
  if (body.length !== 13) throw new Error('is a damaged PNG image (its IHDR chunk has a wrong size)');
  const width = body.readUInt32BE(0);
  const height = body.readUInt32BE(4);
  const tooBig = imageSizeProblem(width, height);
  if (tooBig) throw new Error(tooBig);
  const bitDepth = body[8]!;
  const colorType = body[9]!;
  if (!DEPTHS[colorType]?.includes(bitDepth)) {
    throw new Error(`is a damaged PNG image (colour type ${colorType} with ${bitDepth} bits)`);
  }
  if (body[10] !== 0 || body[11] !== 0 || (body[12] !== 0 && body[12] !== 1)) {
    throw new Error('is a damaged PNG image (unknown compression, filter or interlace method)');
  }
  return { width, height, bitDepth, colorType, interlaced: body[12] === 1 };
}

/** Whether embedding the image needs it decoded pixel by pixel (not passed through or split). */
export function mustDecode(
  png: Pick<PngFile, 'interlaced' | 'colorType' | 'bitDepth' | 'transparency'>,
): boolean {
  return png.interlaced || (png.transparency !== undefined && (png.colorType === 3 || png.bitDepth === 16));
}

/** Bytes per row of a (sub)image `width` pixels wide, without the filter byte. */
export function rowBytes(png: Pick<PngFile, 'colorType' | 'bitDepth'>, width: number): number {
  return Math.ceil((width * CHANNELS[png.colorType]! * png.bitDepth) / 8);
}

// Adam7: the passes' first column, first row, column step and row step.
const PASSES = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** The exact size of the inflated image data: rows of each pass, each with its filter byte. */
export function inflatedSize(
  png: Pick<PngFile, 'width' | 'height' | 'bitDepth' | 'colorType' | 'interlaced'>,
): number {
  if (!png.interlaced) return png.height * (1 + rowBytes(png, png.width));
  let size = 0;
  for (const [x0, y0, dx, dy] of PASSES) {
    const w = Math.ceil((png.width - x0) / dx);
    const h = Math.ceil((png.height - y0) / dy);
    if (w > 0 && h > 0) size += h * (1 + rowBytes(png, w));
  }
  return size;
}

/**
 * The image data inflated: exactly `inflatedSize` bytes, each row's filter type checked. A stream
 * that would inflate to more (a bomb beyond its own header) stops at that size and is refused.
 */
export function inflatePng(png: PngFile): Buffer {
  const expected = inflatedSize(png);
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(png.data), { maxOutputLength: expected + 1 });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_BUFFER_TOO_LARGE')
      throw new Error('is a damaged PNG image (more image data than its size)');
    throw new Error('is a damaged PNG image (its image data does not decompress)');
  }
  if (raw.length !== expected) {
    throw new Error(
      `is a damaged PNG image (${raw.length < expected ? 'less' : 'more'} image data than its size)`,
    );
  }
  if (!png.interlaced) {
    const stride = 1 + rowBytes(png, png.width);
    for (let at = 0; at < raw.length; at += stride) {
      if (raw[at]! > 4) throw new Error('is a damaged PNG image (a row has an unknown filter)');
    }
  }
  return raw;
}

export const channels = (colorType: number): number => CHANNELS[colorType]!;

/**
 * Checks that the image data inflates to exactly the declared size with known row filters, in
 * chunks (memory stays small whatever the image's size): what an upload or a design check needs.
 */
export async function checkPngData(png: PngFile): Promise<void> {
  const expected = inflatedSize(png);
  const stride = png.interlaced ? 0 : 1 + rowBytes(png, png.width);
  let seen = 0;
  let problem: string | undefined;
  const inflate = createInflate();
  await new Promise<void>((resolve) => {
    inflate.on('data', (chunk: Buffer) => {
      if (problem) return;
      if (stride > 0) {
        for (let at = (stride - (seen % stride)) % stride; at < chunk.length; at += stride) {
          if (chunk[at]! > 4) problem = 'is a damaged PNG image (a row has an unknown filter)';
        }
        if (problem) {
          inflate.destroy();
          resolve();
          return;
        }
      }
      seen += chunk.length;
      if (seen > expected) {
        problem = 'is a damaged PNG image (more image data than its size)';
        inflate.destroy();
        resolve();
      }
    });
    inflate.on('error', () => {
      problem ??= 'is a damaged PNG image (its image data does not decompress)';
      resolve();
    });
    inflate.on('end', () => resolve());
    inflate.on('close', () => resolve());
    for (const part of png.data) inflate.write(part);
    inflate.end();
  });
  if (!problem && seen < expected) problem = 'is a damaged PNG image (less image data than its size)';
  if (problem) throw new Error(problem);
}
