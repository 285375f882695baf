import { constants, deflateRawSync } from 'node:zlib';
import { FLATE_LEVEL } from './pdf-syntax.js';

// Speed-first: a /FlateDecode stream put together from pieces deflated (or stored) apart, so that
// the parts a batch's documents share are deflated once (font-streams.ts). Each piece ends on a
// byte boundary (a sync flush) with no final block; inflating the stream gives the pieces in order.

export interface ZlibPiece {
  /** Raw deflate blocks, none of them final. */
  data: Buffer;
  /** Adler-32 of the bytes the piece stands for, and their count. */
  adler: number;
  length: number;
}

/** `bytes` deflated at the renderer's level (one zlib call). */
export function deflatedPiece(bytes: Buffer): ZlibPiece {
  const data = deflateRawSync(bytes, { level: FLATE_LEVEL, finishFlush: constants.Z_SYNC_FLUSH });
  return { data, adler: adler32(bytes), length: bytes.length };
}

/** `bytes` as stored blocks: no zlib call, for pieces too small for deflating to pay. */
export function storedPiece(bytes: Buffer): ZlibPiece {
  const blocks = Math.max(1, Math.ceil(bytes.length / 0xffff));
  const data = Buffer.allocUnsafe(bytes.length + 5 * blocks);
  let at = 0;
  for (let start = 0, k = 0; k < blocks; k++, start += 0xffff) {
    const size = Math.min(0xffff, bytes.length - start);
    data[at] = 0; // not final, stored
    data.writeUInt16LE(size, at + 1);
    data.writeUInt16LE(~size & 0xffff, at + 3);
    bytes.copy(data, at + 5, start, start + size);
    at += 5 + size;
  }
  return { data, adler: adler32(bytes), length: bytes.length };
}

/**
 * The zlib stream of the pieces in order: header, the pieces, an empty final block, Adler-32. In a
 * buffer of its own (not a slice of a shared pool that a cache would keep alive).
 */
export function zlibStream(pieces: readonly ZlibPiece[]): Buffer {
  let size = 2 + 2 + 4;
  for (const p of pieces) size += p.data.length;
  const out = Buffer.allocUnsafeSlow(size);
  out[0] = 0x78; // deflate, 32 KB window
  out[1] = 0x01; // fastest level; (0x78 << 8 | 0x01) is a multiple of 31
  let at = 2;
  let adler = 1;
  for (const p of pieces) {
    at += p.data.copy(out, at);
    adler = adler32Combine(adler, p.adler, p.length);
  }
  out[at] = 0x03; // final block, fixed codes, end of block at once
  out[at + 1] = 0x00;
  out.writeUInt32BE(adler, at + 2);
  return out;
}

const BASE = 65521;

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < data.length;) {
    const end = Math.min(i + 5552, data.length);
    for (; i < end; i++) {
      a += data[i]!;
      b += a;
    }
    a %= BASE;
    b %= BASE;
  }
  return ((b << 16) | a) >>> 0;
}

// zlib's adler32_combine: the checksum of two byte strings one after the other, from theirs.
function adler32Combine(first: number, second: number, secondLength: number): number {
  const rem = secondLength % BASE;
  let sum1 = first & 0xffff;
  let sum2 = (rem * sum1) % BASE;
  sum1 += (second & 0xffff) + BASE - 1;
  sum2 += (first >>> 16) + (second >>> 16) + BASE - rem;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum1 >= BASE) sum1 -= BASE;
  if (sum2 >= 2 * BASE) sum2 -= 2 * BASE;
  if (sum2 >= BASE) sum2 -= BASE;
  return ((sum2 << 16) | sum1) >>> 0;
}
