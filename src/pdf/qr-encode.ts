// A QR code encoder for what the certificates need and nothing more: the text as bytes (byte mode),
// error correction level M, one fixed mask pattern, the smallest version (1 to 40) the bytes fit.
// It makes the same symbol as the qrcode package with those settings (test/pdf/qr-encode compares
// them module by module), about ten times faster: flat byte arrays, Reed-Solomon by log tables, no
// object per module or segment.

/** Blocks per version (index version - 1) at level M (ISO/IEC 18004 table 9). */
const BLOCKS_M = [
  1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29,
  31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
];
/** Error correction codewords per version at level M, all blocks together. */
const EC_CODEWORDS_M = [
  10, 16, 26, 36, 48, 64, 72, 88, 110, 130, 150, 176, 198, 216, 240, 280, 308, 338, 364, 416, 442, 476, 504,
  560, 588, 644, 700, 728, 784, 812, 868, 924, 980, 1036, 1064, 1120, 1204, 1260, 1316, 1372,
];
/** Codewords per version, data and error correction. */
const CODEWORDS = [
  26, 44, 70, 100, 134, 172, 196, 242, 292, 346, 404, 466, 532, 581, 655, 733, 815, 901, 991, 1085, 1156,
  1258, 1364, 1474, 1588, 1706, 1828, 1921, 2051, 2185, 2323, 2465, 2611, 2761, 2876, 3034, 3196, 3362, 3532,
  3706,
];
const LEVEL_M = 0b00; // the level's two bits in the format information
const FORMAT_GENERATOR = 0b10100110111; // BCH(15,5)
const FORMAT_XOR = 0b101010000010010;
const VERSION_GENERATOR = 0b1111100100101; // BCH(18,6)

// GF(256) with the polynomial x^8 + x^4 + x^3 + x^2 + 1.
const EXP = new Uint8Array(512);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++) {
  EXP[i] = x;
  LOG[x] = i;
  x <<= 1;
  if (x & 0x100) x ^= 0x11d;
}
for (let i = 255; i < 512; i++) EXP[i] = EXP[i - 255]!;

const generators = new Map<number, Uint8Array>();
// The generator polynomial of `degree` error correction codewords, highest power first, its
// leading 1 left out and the others as their logarithms.
function generator(degree: number): Uint8Array {
  let g = generators.get(degree);
  if (g) return g;
  let poly = new Uint8Array([1]);
  for (let i = 0; i < degree; i++) {
    const next = new Uint8Array(poly.length + 1);
    for (let j = 0; j < poly.length; j++) {
      next[j]! ^= poly[j]!;
      if (poly[j]) next[j + 1]! ^= EXP[LOG[poly[j]!]! + i]!;
    }
    poly = next;
  }
  g = poly.subarray(1).map((c) => LOG[c]!);
  generators.set(degree, g);
  return g;
}

function errorCorrection(data: Uint8Array, degree: number): Uint8Array {
  const logG = generator(degree);
  const rest = new Uint8Array(degree);
  for (let i = 0; i < data.length; i++) {
    const factor = data[i]! ^ rest[0]!;
    if (factor === 0) {
      rest.copyWithin(0, 1);
      rest[degree - 1] = 0;
      continue;
    }
    const logFactor = LOG[factor]!;
    for (let j = 0; j < degree - 1; j++) rest[j] = rest[j + 1]! ^ EXP[logG[j]! + logFactor]!;
    rest[degree - 1] = EXP[logG[degree - 1]! + logFactor]!;
  }
  return rest;
}

const countBits = (version: number): number => (version < 10 ? 8 : 16);

function smallestVersion(length: number): number {
  for (let v = 1; v <= 40; v++) {
    const dataBits = (CODEWORDS[v - 1]! - EC_CODEWORDS_M[v - 1]!) * 8;
    if (4 + countBits(v) + 8 * length <= dataBits) return v;
  }
  throw new RangeError('The text is too long for a QR code');
}

// The data codewords: mode, count, the bytes, a terminator, then pad codewords.
function dataCodewords(bytes: Uint8Array, version: number): Uint8Array {
  const out = new Uint8Array(CODEWORDS[version - 1]! - EC_CODEWORDS_M[version - 1]!);
  let bits = 0;
  let acc = 0;
  let at = 0;
  const put = (value: number, n: number): void => {
    for (let i = n - 1; i >= 0; i--) {
      acc = (acc << 1) | ((value >>> i) & 1);
      if (++bits === 8) {
        out[at++] = acc;
        bits = 0;
        acc = 0;
      }
    }
  };
  put(0b0100, 4);
  put(bytes.length, countBits(version));
  for (const b of bytes) put(b, 8);
  if (at * 8 + bits + 4 <= out.length * 8) put(0, 4);
  if (bits > 0) put(0, 8 - bits);
  for (let pad = 0; at < out.length; pad++) out[at++] = pad % 2 ? 0x11 : 0xec;
  return out;
}

// The codewords in the order they are placed: the blocks' data interleaved, then their error
// correction interleaved.
function interleaved(data: Uint8Array, version: number): Uint8Array {
  const total = CODEWORDS[version - 1]!;
  const blocks = BLOCKS_M[version - 1]!;
  const longBlocks = total % blocks;
  const shortData = Math.floor(data.length / blocks);
  const degree = Math.floor(total / blocks) - shortData;
  const parts: Uint8Array[] = [];
  const ecs: Uint8Array[] = [];
  for (let b = 0, at = 0; b < blocks; b++) {
    const size = shortData + (b >= blocks - longBlocks ? 1 : 0);
    const part = data.subarray(at, at + size);
    at += size;
    parts.push(part);
    ecs.push(errorCorrection(part, degree));
  }
  const out = new Uint8Array(total);
  let k = 0;
  for (let i = 0; i <= shortData; i++) for (const p of parts) if (i < p.length) out[k++] = p[i]!;
  for (let i = 0; i < degree; i++) for (const e of ecs) out[k++] = e[i]!;
  return out;
}

function alignmentCenters(version: number, size: number): number[] {
  if (version === 1) return [];
  const count = Math.floor(version / 7) + 2;
  const step = size === 145 ? 26 : Math.ceil((size - 13) / (2 * count - 2)) * 2;
  const centers = [6];
  for (let k = count - 2; k >= 0; k--) centers.push(size - 7 - k * step);
  return centers;
}

function bch(data: number, generatorPoly: number, shift: number): number {
  const degree = 31 - Math.clz32(generatorPoly);
  let rest = data << shift;
  while (rest !== 0 && 31 - Math.clz32(rest) >= degree)
    rest ^= generatorPoly << (31 - Math.clz32(rest) - degree);
  return (data << shift) | rest;
}

export interface QrSymbol {
  /** Modules per side. */
  size: number;
  /** Row by row, 1 for a dark module. */
  modules: Uint8Array;
}

/**
 * The QR code of `bytes` at level M with mask pattern `mask` (0 to 7). Throws a RangeError when
 * the bytes do not fit version 40.
 */
export function encodeQr(bytes: Uint8Array, mask: number): QrSymbol {
  const version = smallestVersion(bytes.length);
  const { size, base, places, flips } = layout(version, mask);
  const codewords = interleaved(dataCodewords(bytes, version), version);
  const modules = base.slice();
  const bits = Math.min(places.length, codewords.length * 8);
  for (let k = 0; k < bits; k++)
    modules[places[k]!] = ((codewords[k >> 3]! >> (7 - (k & 7))) & 1) ^ flips[k]!;
  for (let k = bits; k < places.length; k++) modules[places[k]!] = flips[k]!;
  return { size, modules };
}

interface Layout {
  size: number;
  /** The function patterns and the format and version information; data modules 0. */
  base: Uint8Array;
  /** The data modules' indices in placement order, and whether the mask flips each. */
  places: Uint32Array;
  flips: Uint8Array;
}

const layouts = new Map<number, Layout>();

// What every symbol of a version and mask has in common, worked out once.
function layout(version: number, mask: number): Layout {
  const key = version * 8 + mask;
  const known = layouts.get(key);
  if (known) return known;
  const size = 17 + 4 * version;
  const base = new Uint8Array(size * size);
  const fixed = new Uint8Array(size * size);
  const set: Place = (row, col, dark) => {
    base[row * size + col] = dark ? 1 : 0;
    fixed[row * size + col] = 1;
  };
  drawFunctionPatterns(set, version, size);
  const format = bch((LEVEL_M << 3) | mask, FORMAT_GENERATOR, 10) ^ FORMAT_XOR;
  for (let i = 0; i < 15; i++) {
    const dark = (format >> i) & 1;
    set(i < 6 ? i : i < 8 ? i + 1 : size - 15 + i, 8, dark);
    set(8, i < 8 ? size - i - 1 : i < 9 ? 15 - i : 14 - i, dark);
  }
  set(size - 8, 8, 1);
  const places: number[] = [];
  const flips: number[] = [];
  const flip = MASKS[mask]!;
  // The two-column zigzag from the bottom right, skipping the function patterns.
  let upward = true;
  for (let right = size - 1; right > 0; right -= 2) {
    if (right === 6) right = 5;
    for (let step = 0; step < size; step++) {
      const row = upward ? size - 1 - step : step;
      for (let col = right; col >= right - 1; col--) {
        if (fixed[row * size + col]) continue;
        places.push(row * size + col);
        flips.push(flip(row, col) ? 1 : 0);
      }
    }
    upward = !upward;
  }
  const made = { size, base, places: Uint32Array.from(places), flips: Uint8Array.from(flips) };
  layouts.set(key, made);
  return made;
}

// Sets a function module dark or light and marks it as not for data.
type Place = (row: number, col: number, dark: boolean | number) => void;

// The finder, separator, timing and alignment patterns and the version information.
function drawFunctionPatterns(set: Place, version: number, size: number): void {
  for (const [row, col] of [
    [0, 0],
    [size - 7, 0],
    [0, size - 7],
  ] as const) {
    for (let r = -1; r <= 7; r++) {
      for (let c = -1; c <= 7; c++) {
        if (row + r < 0 || row + r >= size || col + c < 0 || col + c >= size) continue;
        const ring = Math.max(Math.abs(r - 3), Math.abs(c - 3));
        set(row + r, col + c, ring !== 2 && ring !== 4);
      }
    }
  }
  for (let i = 8; i < size - 8; i++) {
    set(i, 6, i % 2 === 0);
    set(6, i, i % 2 === 0);
  }
  const centers = alignmentCenters(version, size);
  const last = centers.length - 1;
  centers.forEach((row, i) =>
    centers.forEach((col, j) => {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
      for (let r = -2; r <= 2; r++)
        for (let c = -2; c <= 2; c++) set(row + r, col + c, Math.max(Math.abs(r), Math.abs(c)) !== 1);
    }),
  );
  if (version >= 7) {
    const bits = bch(version, VERSION_GENERATOR, 12);
    for (let i = 0; i < 18; i++) {
      const dark = (bits >> i) & 1;
      set(Math.floor(i / 3), size - 11 + (i % 3), dark);
      set(size - 11 + (i % 3), Math.floor(i / 3), dark);
    }
  }
}

const MASKS: ((row: number, col: number) => boolean)[] = [
  (r, c) => (r + c) % 2 === 0,
  (r) => r % 2 === 0,
  (_r, c) => c % 3 === 0,
  (r, c) => (r + c) % 3 === 0,
  (r, c) => (Math.floor(r / 2) + Math.floor(c / 3)) % 2 === 0,
  (r, c) => ((r * c) % 2) + ((r * c) % 3) === 0,
  (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 === 0,
  (r, c) => (((r * c) % 3) + ((r + c) % 2)) % 2 === 0,
];
