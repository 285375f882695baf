import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { PNG } from 'pngjs';
import { ByteLru } from './byte-lru.js';
import { readJpeg } from './jpeg.js';
import {
  channels,
  checkPngData,
  inflatedSize,
  inflatePng,
  mustDecode,
  readPng,
  rowBytes,
  type PngFile,
} from './png.js';

// Turns a data URL into the bytes of a PDF image XObject, once per template and thread. Every
// image is held to the size limits by its header before any of it is inflated (png.ts, jpeg.ts).

export interface PdfImage {
  width: number;
  height: number;
  /** Dictionary entries other than /Length and /SMask. */
  dict: string;
  data: Buffer;
  smask?: { dict: string; data: Buffer };
}

const dataUrlPattern = /^data:image\/(png|jpeg);base64,([A-Za-z0-9+/=]+)$/;

function imageBytes(dataUrl: string): { type: 'png' | 'jpeg'; bytes: Buffer } {
  const match = dataUrlPattern.exec(dataUrl);
  if (!match?.[2]) throw new Error('is not a data:image/png or data:image/jpeg base64 URL');
  return { type: match[1] as 'png' | 'jpeg', bytes: Buffer.from(match[2], 'base64') };
}

/**
 * The image's size in pixels, after every check that embedding it needs (PNG data inflated in
 * chunks, so memory stays small); throws an Error whose message says why the image is unusable.
 */
export async function checkImage(
  type: 'png' | 'jpeg',
  bytes: Buffer,
): Promise<{ width: number; height: number }> {
  if (type === 'jpeg') return readJpeg(bytes);
  const png = readPng(bytes);
  await checkPngData(png);
  // What must be decoded to be embedded is decoded here too (it is small: DECODED_MAX_PIXELS), so
  // whatever the decoder refuses is refused now, not when a certificate is rendered.
  if (mustDecode(png)) decodedPng(bytes);
  return { width: png.width, height: png.height };
}

/** Why an image data URL cannot be used, or undefined when it can. */
export async function imageProblem(dataUrl: string): Promise<string | undefined> {
  try {
    const { type, bytes } = imageBytes(dataUrl);
    await checkImage(type, bytes);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * How many bytes embedding the image makes a thread inflate and write (0 when the PNG's rows or
 * the JPEG go into the PDF as they are): a design's images are held to DESIGN_IMAGE_WORK in all.
 */
export function imageWork(dataUrl: string): number {
  const { type, bytes } = imageBytes(dataUrl);
  if (type === 'jpeg') return 0;
  const png = readPng(bytes);
  if (mustDecode(png)) return png.width * png.height * 8;
  return png.colorType === 4 || png.colorType === 6 ? inflatedSize(png) : 0;
}

/** Decisions section 25 bounds each image; this bounds a design's (160 MB: one image at the limit). */
export const DESIGN_IMAGE_WORK = 160_000_000;

// Images prepared lately in this thread, by the SHA-256 of their data URL, up to PREPARED_BYTES:
// the next version of a design (an element moved) does not split or decode its images again.
const PREPARED_BYTES = 64 * 1024 * 1024;
const prepared = new ByteLru<PdfImage>(PREPARED_BYTES);

/** decodeImage, from the thread's cache of images prepared lately. */
export function preparedImage(dataUrl: string): PdfImage {
  const key = createHash('sha256').update(dataUrl).digest('base64');
  const hit = prepared.get(key);
  if (hit) return hit;
  const image = decodeImage(dataUrl);
  const bytes = image.data.length + (image.smask?.data.length ?? 0);
  // One image takes at most a quarter of the cache.
  if (bytes <= PREPARED_BYTES / 4) prepared.set(key, image, bytes);
  return image;
}

/** Throws an Error whose message says why the image is unusable. */
export function decodeImage(dataUrl: string): PdfImage {
  const { type, bytes } = imageBytes(dataUrl);
  if (type === 'jpeg') return jpegImage(bytes);
  const png = readPng(bytes);
  if (mustDecode(png)) return decodedPng(bytes);
  return png.colorType === 4 || png.colorType === 6 ? splitPng(png) : filteredPng(png);
}

function flateDict(width: number, height: number, colorSpace: string, colors: number, bits: number): string {
  return (
    `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace ${colorSpace} ` +
    `/BitsPerComponent ${bits} /Filter /FlateDecode ` +
    `/DecodeParms << /Predictor 15 /Colors ${colors} /BitsPerComponent ${bits} /Columns ${width} >>`
  );
}

function colorSpace(png: PngFile): string {
  if (png.colorType === 3) {
    const palette = png.palette!;
    return `[/Indexed /DeviceRGB ${palette.length / 3 - 1} <${palette.toString('hex')}>]`;
  }
  return png.colorType === 0 || png.colorType === 4 ? '/DeviceGray' : '/DeviceRGB';
}

// Grey, RGB or palette without alpha: the PNG's own compressed, filtered rows, as they are. A
// colour key (tRNS of a grey or RGB image) becomes the image's /Mask.
function filteredPng(png: PngFile): PdfImage {
  const colors = png.colorType === 3 ? 1 : channels(png.colorType);
  let dict = flateDict(png.width, png.height, colorSpace(png), colors, png.bitDepth);
  const key = png.transparency;
  const inRange = (v: number) => v < 2 ** png.bitDepth;
  if (
    key &&
    png.colorType !== 3 &&
    key.length >= 2 * colors &&
    [0, 1, 2].slice(0, colors).every((i) => inRange(key.readUInt16BE(2 * i)))
  ) {
    const values = Array.from({ length: colors }, (_, i) => key.readUInt16BE(2 * i));
    dict += ` /Mask [${values.map((v) => `${v} ${v}`).join(' ')}]`;
  }
  return { width: png.width, height: png.height, dict, data: Buffer.concat(png.data) };
}

// Grey or RGB with an alpha channel: each filtered row split into its colour and alpha bytes, the
// filter byte kept on both (the filters predict from the same channel), then deflated again.
function splitPng(png: PngFile): PdfImage {
  const raw = inflatePng(png);
  const sample = png.bitDepth / 8;
  const colorBytes = (channels(png.colorType) - 1) * sample;
  const pixelBytes = colorBytes + sample;
  const stride = 1 + rowBytes(png, png.width);
  const color = Buffer.allocUnsafe(png.height * (1 + png.width * colorBytes));
  const alpha = Buffer.allocUnsafe(png.height * (1 + png.width * sample));
  let c = 0;
  let a = 0;
  for (let row = 0; row < raw.length; row += stride) {
    color[c++] = raw[row]!;
    alpha[a++] = raw[row]!;
    for (let at = row + 1; at < row + stride; at += pixelBytes) {
      for (let i = 0; i < colorBytes; i++) color[c++] = raw[at + i]!;
      for (let i = 0; i < sample; i++) alpha[a++] = raw[at + colorBytes + i]!;
    }
  }
  const colors = channels(png.colorType) - 1;
  return {
    width: png.width,
    height: png.height,
    dict: flateDict(png.width, png.height, colorSpace(png), colors, png.bitDepth),
    data: deflateSync(color),
    smask: {
      dict: flateDict(png.width, png.height, '/DeviceGray', 1, png.bitDepth),
      data: deflateSync(alpha),
    },
  };
}

// Interlaced images, palettes with transparency and 16-bit colour keys (at most DECODED_MAX_PIXELS):
// decoded to 8-bit RGBA (pngjs), then written with the Paeth predictor.
function decodedPng(bytes: Buffer): PdfImage {
  let decoded: { width: number; height: number; data: Buffer };
  try {
    decoded = PNG.sync.read(bytes);
  } catch (err) {
    throw new Error(`is not a readable PNG image (${(err as Error).message})`);
  }
  const { width, height, data } = decoded;
  const pixels = width * height;
  const rgb = Buffer.allocUnsafe(pixels * 3);
  const alpha = Buffer.allocUnsafe(pixels);
  let opaque = true;
  for (let p = 0; p < pixels; p++) {
    rgb[3 * p] = data[4 * p] ?? 0;
    rgb[3 * p + 1] = data[4 * p + 1] ?? 0;
    rgb[3 * p + 2] = data[4 * p + 2] ?? 0;
    const a = data[4 * p + 3] ?? 255;
    alpha[p] = a;
    if (a !== 255) opaque = false;
  }
  const image: PdfImage = {
    width,
    height,
    dict: flateDict(width, height, '/DeviceRGB', 3, 8),
    data: deflateSync(paethFilter(rgb, width, height, 3)),
  };
  if (!opaque) {
    image.smask = {
      dict: flateDict(width, height, '/DeviceGray', 1, 8),
      data: deflateSync(paethFilter(alpha, width, height, 1)),
    };
  }
  return image;
}

// PNG predictor 4 (Paeth) on every row.
function paethFilter(raw: Buffer, width: number, height: number, bpp: number): Buffer {
  const stride = width * bpp;
  const out = Buffer.allocUnsafe(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    const dst = y * (stride + 1);
    out[dst] = 4;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? (raw[row + i - bpp] ?? 0) : 0;
      const b = y > 0 ? (raw[row - stride + i] ?? 0) : 0;
      const c = i >= bpp && y > 0 ? (raw[row - stride + i - bpp] ?? 0) : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      const predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      out[dst + 1 + i] = ((raw[row + i] ?? 0) - predictor) & 0xff;
    }
  }
  return out;
}

function jpegImage(bytes: Buffer): PdfImage {
  const { width, height, components, adobe } = readJpeg(bytes);
  const colorSpace = components === 1 ? '/DeviceGray' : components === 3 ? '/DeviceRGB' : '/DeviceCMYK';
  const decode = components === 4 && adobe ? ' /Decode [1 0 1 0 1 0 1 0]' : '';
  return {
    width,
    height,
    dict:
      `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace ${colorSpace} ` +
      `/BitsPerComponent 8 /Filter /DCTDecode${decode}`,
    data: bytes,
  };
}
