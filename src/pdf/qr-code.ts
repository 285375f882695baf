import { encodeQr } from './qr-encode.js';
import { num, rgb } from './pdf-syntax.js';

// The QR code is drawn as one 1-bit image mask, inline in the content stream (no object of its own),
// scaled to the code's box: a few hundred bytes of operators instead of a rectangle per run of
// dark modules, and no seams. Viewers paint a mask's samples without smoothing (/Interpolate is
// false), so the modules stay square at any zoom.
// Speed-first: byte mode, level M and a fixed mask, by our own encoder (qr-encode.ts; 1,000 codes
// decoded: qr-decode.test).

export interface QrBox {
  x: number;
  y: number; // top, from the top of the page
  size: number;
  color: string;
  background: string;
}

/** Light margin around the symbol, in modules (decoders need some quiet zone). */
export const QUIET_ZONE = 2;

/**
 * The mask pattern of every code. Pattern 2 (every third column) is the one qrcode's own search
 * picked for 9 in 10 verification URLs, with the lowest penalty score on average of the eight.
 */
export const QR_MASK = 2;

// The symbol's modules as the mask's samples: a row per line of modules, each padded to whole bytes,
// the first module in the high bit, 1 for a dark module.
function maskBytes(data: Uint8Array, count: number): Buffer {
  const rowBytes = (count + 7) >> 3;
  const bytes = Buffer.alloc(rowBytes * count);
  for (let row = 0; row < count; row++) {
    const at = row * rowBytes;
    for (let col = 0; col < count; col++) {
      if (data[row * count + col]) bytes[at + (col >> 3)]! |= 0x80 >> (col & 7);
    }
  }
  return bytes;
}

export function qrOps(box: QrBox, text: string, pageHeight: number): string {
  const { size: count, modules } = encodeQr(Buffer.from(text, 'utf8'), QR_MASK);
  const module = box.size / (count + 2 * QUIET_ZONE);
  const side = module * count;
  const top = pageHeight - box.y;
  const hex = maskBytes(modules, count).toString('hex');
  // The image's unit square mapped onto the symbol (its first row at the top); /D [1 0]: the 1 bits
  // are painted in the fill colour.
  return (
    `q ${rgb(box.background)} rg ${num(box.x)} ${num(top - box.size)} ${num(box.size)} ${num(box.size)} re f\n` +
    `${rgb(box.color)} rg ${num(side)} 0 0 ${num(side)} ${num(box.x + QUIET_ZONE * module)} ${num(top - QUIET_ZONE * module - side)} cm\n` +
    `BI /IM true /W ${count} /H ${count} /BPC 1 /D [1 0] /F /AHx ID\n${hex}>\nEI Q\n`
  );
}
