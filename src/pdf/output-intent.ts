import { flate } from './pdf-syntax.js';

// PDF/A's output intent: the colours of the file are sRGB. No sRGB .icc file ships with Node or
// with the machines this runs on, so the profile is built here, once per process: an ICC version 2
// display profile ('mntr', RGB to the XYZ connection space) with the sRGB (IEC 61966-2.1) primaries
// adapted to D50 (Bradford), as in the ICC's own sRGB v2 profiles:
//   red   X 0.4361 Y 0.2225 Z 0.0139
//   green X 0.3851 Y 0.7169 Z 0.0971
//   blue  X 0.1431 Y 0.0606 Z 0.7141
//   media white point D50 (0.9642, 1, 0.8249)
// and the sRGB tone curve (linear below 0.04045, else ((v + 0.055) / 1.055)^2.4) sampled at 256
// points, one curve shared by the three channels. 988 bytes; the template's prefix holds it, so
// a certificate pays nothing for it.

const SAMPLES = 256;
const DESCRIPTION = 'sRGB IEC61966-2.1';
const COPYRIGHT = 'No copyright, use freely';

/** s15Fixed16Number */
function fixed(value: number): number {
  return Math.round(value * 65536);
}

function xyz(x: number, y: number, z: number): Buffer {
  const b = Buffer.alloc(20);
  b.write('XYZ ', 0, 'latin1');
  b.writeInt32BE(fixed(x), 8);
  b.writeInt32BE(fixed(y), 12);
  b.writeInt32BE(fixed(z), 16);
  return b;
}

function curve(): Buffer {
  const b = Buffer.alloc(12 + 2 * SAMPLES);
  b.write('curv', 0, 'latin1');
  b.writeUInt32BE(SAMPLES, 8);
  for (let i = 0; i < SAMPLES; i++) {
    const v = i / (SAMPLES - 1);
    const linear = v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    b.writeUInt16BE(Math.round(linear * 65535), 12 + 2 * i);
  }
  return b;
}

// textDescriptionType: the ASCII description, no Unicode or ScriptCode ones.
function description(text: string): Buffer {
  const b = Buffer.alloc(12 + text.length + 1 + 4 + 4 + 2 + 1 + 67);
  b.write('desc', 0, 'latin1');
  b.writeUInt32BE(text.length + 1, 8);
  b.write(text, 12, 'latin1');
  return b;
}

function textTag(text: string): Buffer {
  const b = Buffer.alloc(8 + text.length + 1);
  b.write('text', 0, 'latin1');
  b.write(text, 8, 'latin1');
  return b;
}

/** The sRGB profile's bytes. */
export function srgbProfile(): Buffer {
  const trc = curve();
  const tags: [string, Buffer][] = [
    ['desc', description(DESCRIPTION)],
    ['cprt', textTag(COPYRIGHT)],
    ['wtpt', xyz(0.9642, 1, 0.8249)],
    ['rXYZ', xyz(0.4361, 0.2225, 0.0139)],
    ['gXYZ', xyz(0.3851, 0.7169, 0.0971)],
    ['bXYZ', xyz(0.1431, 0.0606, 0.7141)],
    ['rTRC', trc],
    ['gTRC', trc],
    ['bTRC', trc],
  ];
  const tableSize = 4 + 12 * tags.length;
  const pad = (n: number) => (n + 3) & ~3;
  const table = Buffer.alloc(tableSize);
  table.writeUInt32BE(tags.length, 0);
  const data: Buffer[] = [];
  const placed = new Map<Buffer, number>();
  let at = 128 + tableSize;
  tags.forEach(([signature, bytes], i) => {
    let offset = placed.get(bytes);
    if (offset === undefined) {
      offset = at;
      placed.set(bytes, offset);
      const padded = Buffer.alloc(pad(bytes.length));
      bytes.copy(padded);
      data.push(padded);
      at += padded.length;
    }
    table.write(signature, 4 + 12 * i, 'latin1');
    table.writeUInt32BE(offset, 8 + 12 * i);
    table.writeUInt32BE(bytes.length, 12 + 12 * i);
  });
  const header = Buffer.alloc(128);
  header.writeUInt32BE(at, 0); // profile size
  header.writeUInt32BE(0x02100000, 8); // version 2.1
  header.write('mntrRGB XYZ ', 12, 'latin1'); // class, colour space, connection space
  // Creation date: 2026-01-01 00:00:00 (fixed: the same bytes in every file).
  [2026, 1, 1, 0, 0, 0].forEach((v, i) => header.writeUInt16BE(v, 24 + 2 * i));
  header.write('acsp', 36, 'latin1');
  header.writeUInt32BE(0, 64); // rendering intent: perceptual
  header.writeInt32BE(fixed(0.9642), 68); // the connection space's illuminant, D50
  header.writeInt32BE(fixed(1), 72);
  header.writeInt32BE(fixed(0.8249), 76);
  return Buffer.concat([header, table, ...data]);
}

let compressed: Buffer | undefined;

/** The output intent's profile stream (dictionary entries and data), made once per process. */
export function outputIntentProfile(): { dict: string; data: Buffer } {
  compressed ??= flate(srgbProfile());
  return { dict: '/N 3 /Filter /FlateDecode', data: compressed };
}

/** The catalog's /OutputIntents value, for the profile stream `profileId`. */
export function outputIntents(profileId: number): string {
  return (
    `[<< /Type /OutputIntent /S /GTS_PDFA1 /OutputConditionIdentifier (${DESCRIPTION}) ` +
    `/RegistryName (http://www.color.org) /Info (${DESCRIPTION}) /DestOutputProfile ${profileId} 0 R >>]`
  );
}
