import type { Design } from '../../pdf/design.schema.js';
import { designFontFaces } from '../../pdf/design-fonts.js';
import { decodeImage } from '../../pdf/images.js';
import { fontStyle, parseTrueType } from '../../pdf/truetype-font.js';
import { ValidationError } from '../../platform/errors.js';

// Files people upload into a design (the studio's images, backgrounds and fonts): the type is
// read from the content, never from the name; the file is decoded (by the very code that embeds
// it in PDFs) before anything is kept; it becomes a data URL inside the design, which is only ever
// drawn into PDFs and never served as it came, so nothing a browser would run (SVG, HTML) can
// pass. Sizes are bounded by the dashboard's upload limit (2 MiB) and the design schema (4 MiB
// data URLs).

export type UploadKind = 'image' | 'font';

function refuse(message: string): never {
  throw new ValidationError([{ path: ['file'], message }], message);
}

function startsWith(bytes: Buffer, signature: number[]): boolean {
  return signature.every((b, i) => bytes[i] === b);
}

// What the bytes are, for the message: a name says nothing.
function sniff(bytes: Buffer): string {
  const head = bytes
    .subarray(0, 512)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return 'an SVG drawing';
  if (head.startsWith('<')) return 'HTML or XML text';
  if (startsWith(bytes, [0x47, 0x49, 0x46])) return 'a GIF image';
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46])) return 'a PDF document';
  return 'not an image this service knows';
}

/** A PNG or JPEG image as a data URL, with its size in pixels. */
export function uploadedImage(bytes: Buffer): { src: string; width: number; height: number } {
  if (bytes.length === 0) refuse('The file is empty.');
  const type = startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    ? 'png'
    : startsWith(bytes, [0xff, 0xd8, 0xff])
      ? 'jpeg'
      : undefined;
  if (!type) {
    refuse(
      `The file is not a PNG or JPEG image: its content is ${sniff(bytes)}, whatever its name says. Export it as PNG or JPEG.`,
    );
  }
  const src = `data:image/${type};base64,${bytes.toString('base64')}`;
  try {
    const image = decodeImage(src);
    return { src, width: image.width, height: image.height };
  } catch (err) {
    return refuse(
      `The ${type.toUpperCase()} image is broken and cannot be used: it ${(err as Error).message}.`,
    );
  }
}

/**
 * A TrueType font as a data URL, after the checks the design makes of its own fonts, with the
 * family and weight it says it has (the studio names it after them).
 */
export function uploadedFont(bytes: Buffer): { src: string; family: string | null; bold: boolean } {
  const kind =
    startsWith(bytes, [0x00, 0x01, 0x00, 0x00]) || bytes.subarray(0, 4).toString('latin1') === 'true'
      ? 'ttf'
      : bytes.subarray(0, 4).toString('latin1') === 'OTTO'
        ? 'otf'
        : undefined;
  if (!kind)
    refuse(`The file is not a font (TTF or OTF): its content is ${sniff(bytes)}, whatever its name says.`);
  const src = `data:font/${kind};base64,${bytes.toString('base64')}`;
  const probe = {
    name: 'probe',
    fields: [],
    page: { width: 100, height: 100 },
    elements: [],
    fonts: [{ name: 'upload', src }],
  };
  const issue = designFontFaces(probe as Design).issues[0];
  if (issue) refuse(`The font cannot be used: it ${issue.message}.`);
  const { family, bold } = fontStyle(parseTrueType(bytes));
  return { src, family: family ?? null, bold };
}
