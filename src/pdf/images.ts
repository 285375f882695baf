import { deflateSync } from 'node:zlib';
import { PNG } from 'pngjs';

// Turns a data URL into the bytes of a PDF image XObject, once per template and thread.

export interface PdfImage {
  width: number;
  height: number;
  /** Dictionary entries other than /Length and /SMask. */
  dict: string;
  data: Buffer;
  smask?: { dict: string; data: Buffer };
}

const dataUrlPattern = /^data:image\/(png|jpeg);base64,([A-Za-z0-9+/=]+)$/;

/** Why an image cannot be used, or undefined when it can (reads it without re-encoding). */
export function imageProblem(dataUrl: string): string | undefined {
  const match = dataUrlPattern.exec(dataUrl);
  if (!match?.[2]) return 'is not a data:image/png or data:image/jpeg base64 URL';
  const bytes = Buffer.from(match[2], 'base64');
  try {
    if (match[1] === 'png') readPng(bytes);
    else decodeJpeg(bytes);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Throws an Error whose message says why the image is unusable. */
export function decodeImage(dataUrl: string): PdfImage {
  const match = dataUrlPattern.exec(dataUrl);
  if (!match?.[2]) throw new Error('is not a data:image/png or data:image/jpeg base64 URL');
  const bytes = Buffer.from(match[2], 'base64');
  return match[1] === 'png' ? decodePng(bytes) : decodeJpeg(bytes);
}

function readPng(bytes: Buffer): { width: number; height: number; data: Buffer } {
  try {
    return PNG.sync.read(bytes);
  } catch (err) {
    throw new Error(`is not a readable PNG image (${(err as Error).message})`);
  }
}

function decodePng(bytes: Buffer): PdfImage {
  const { width, height, data } = readPng(bytes);
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
    dict: imageDict(width, height, '/DeviceRGB', 3),
    data: deflateSync(paethFilter(rgb, width, height, 3), { level: 9 }),
  };
  if (!opaque) {
    image.smask = {
      dict: imageDict(width, height, '/DeviceGray', 1),
      data: deflateSync(paethFilter(alpha, width, height, 1), { level: 9 }),
    };
  }
  return image;
}

function imageDict(width: number, height: number, colorSpace: string, colors: number): string {
  return (
    `/Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace ${colorSpace} ` +
    `/BitsPerComponent 8 /Filter /FlateDecode ` +
    `/DecodeParms << /Predictor 15 /Colors ${colors} /BitsPerComponent 8 /Columns ${width} >>`
  );
}

// PNG predictor 4 (Paeth) on every row: compresses photos and flat artwork far better than raw samples.
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

function decodeJpeg(bytes: Buffer): PdfImage {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) throw new Error('is not a JPEG image');
  let at = 2;
  let adobe = false;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) throw new Error('is not a readable JPEG image');
    const marker = bytes[at + 1] ?? 0;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    if (marker === 0xee && bytes.toString('latin1', at + 4, at + 9) === 'Adobe') adobe = true;
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame && at + 10 <= bytes.length) {
      const height = bytes.readUInt16BE(at + 5);
      const width = bytes.readUInt16BE(at + 7);
      const components = bytes[at + 9];
      const colorSpace = components === 1 ? '/DeviceGray' : components === 3 ? '/DeviceRGB' : '/DeviceCMYK';
      if ((components !== 1 && components !== 3 && components !== 4) || width === 0 || height === 0) {
        throw new Error('is a JPEG image of an unsupported kind');
      }
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
    at += 2 + length;
  }
  throw new Error('is not a readable JPEG image (no frame header)');
}
