import { makeFace } from './fonts.js';
import { fontStyle } from './truetype-font.js';

// What an uploaded font is, read from its bytes: the refusals say what the file is when it is not
// a font this service can embed (a collection, a web font, an image), and which table is broken.

/** Decisions section 25: fonts at most 2 MiB. */
export const FONT_MAX_BYTES = 2 * 1024 * 1024;

const tag = (bytes: Buffer) => bytes.subarray(0, 4).toString('latin1');

/** Why these bytes are not a TrueType or OpenType font, or undefined when they say they are one. */
export function notAFont(bytes: Buffer): string | undefined {
  const head = tag(bytes);
  if (head === '\x00\x01\x00\x00' || head === 'true' || head === 'OTTO') return undefined;
  if (head === 'ttcf') return 'is a font collection (TTC): upload one of its fonts as a TTF or OTF file';
  if (head === 'wOFF' || head === 'wOF2') {
    return `is a web font (${head === 'wOFF' ? 'WOFF' : 'WOFF2'}), which is not supported: upload the TTF or OTF file`;
  }
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return 'is an image (PNG), not a font';
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'is an image (JPEG), not a font';
  if (head === 'GIF8') return 'is an image (GIF), not a font';
  if (head === '%PDF') return 'is a PDF document, not a font';
  return NOT_A_FONT;
}

export const NOT_A_FONT = 'is not a TrueType or OpenType font';

/** The font's family and weight, after the checks embedding it needs; throws an Error saying why not. */
export function checkFont(bytes: Buffer): { family: string | undefined; bold: boolean } {
  if (bytes.length > FONT_MAX_BYTES) {
    throw new Error(`is ${(bytes.length / 1048576).toFixed(1)} MiB: fonts may be at most 2 MiB`);
  }
  const problem = notAFont(bytes);
  if (problem) throw new Error(problem);
  let face;
  try {
    face = makeFace('check', bytes, { shape: true, serif: false, bold: false });
  } catch (err) {
    throw new Error(fontProblem(err));
  }
  return fontStyle(face.font);
}

/** What a parse error says, as the rest of a sentence about the font ("it ..."). */
export function fontProblem(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/no (glyf|loca) table/.test(message)) {
    return 'has PostScript (CFF) outlines: only fonts with TrueType outlines can be embedded (convert it to TTF)';
  }
  return `is not a usable TrueType/OpenType font (${message})`;
}
