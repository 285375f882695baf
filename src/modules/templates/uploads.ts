import { NOT_A_FONT, type FileChecker } from '../../pdf/pdf-renderer.js';
import { ValidationError } from '../../platform/errors.js';
import { DESIGN_MAX_BYTES, MIB } from '../../platform/limits.js';
import { imageType, sniff } from '../shared/image-type.js';

// Files people upload into a design (the studio's images, backgrounds and fonts): the type is
// read from the content, never from the name; the file is checked (by the very code that embeds
// it in PDFs, in the file checker's threads, under their memory and time limits) before anything
// is kept; it becomes a data URL inside the design, which is only ever drawn into PDFs and never
// served as it came, so nothing a browser would run (SVG, HTML) can pass. Sizes are bounded by
// the dashboard's upload limit (2 MiB) before anything is read; pixels and cmap ranges by the
// files' headers before anything is decoded (decisions section 25).

export type UploadKind = 'image' | 'font';

function refuse(message: string): never {
  throw new ValidationError([{ path: ['file'], message }], message);
}

// A file goes into a design as base64 (4 bytes for 3), and a design is at most 2 MiB: a file that
// could never be saved is refused at once, not at the next Save.
function fitsADesign(src: string, what: 'image' | 'font'): void {
  if (src.length <= DESIGN_MAX_BYTES) return;
  const max = ((DESIGN_MAX_BYTES * 3) / 4 / MIB).toFixed(1);
  refuse(
    `The ${what} is ${(((src.length - src.indexOf(',') - 1) * 3) / 4 / MIB).toFixed(1)} MiB: inside a design (at most 2 MiB, as base64) ${what === 'image' ? 'an image' : 'a font'} may be at most ${max} MiB. Make it smaller.`,
  );
}

export function createUploadsService(deps: { checker: () => FileChecker }) {
  return {
    /** A PNG or JPEG image as a data URL, with its size in pixels. */
    async image(bytes: Buffer): Promise<{ src: string; width: number; height: number }> {
      if (bytes.length === 0) refuse('The file is empty.');
      const type = imageType(bytes);
      if (!type) {
        refuse(
          `The file is not a PNG or JPEG image: its content is ${sniff(bytes)}, whatever its name says. Export it as PNG or JPEG.`,
        );
      }
      const checked = await deps.checker().image(type, bytes);
      if (!checked.ok) {
        refuse(`The ${type.toUpperCase()} image cannot be used: it ${checked.message}.`);
      }
      const src = `data:image/${type};base64,${bytes.toString('base64')}`;
      fitsADesign(src, 'image');
      return { src, width: checked.width, height: checked.height };
    },

    /**
     * A TrueType font as a data URL, after the checks the design makes of its own fonts, with the
     * family and weight it says it has (the studio names it after them).
     */
    async font(bytes: Buffer): Promise<{ src: string; family: string | null; bold: boolean }> {
      if (bytes.length === 0) refuse('The file is empty.');
      const checked = await deps.checker().font(bytes);
      if (!checked.ok && checked.message === NOT_A_FONT) {
        refuse(
          `The file is not a font (TTF or OTF): its content is ${sniff(bytes)}, whatever its name says.`,
        );
      }
      if (!checked.ok) refuse(`The font cannot be used: it ${checked.message}.`);
      const kind = bytes.subarray(0, 4).toString('latin1') === 'OTTO' ? 'otf' : 'ttf';
      const src = `data:font/${kind};base64,${bytes.toString('base64')}`;
      fitsADesign(src, 'font');
      return { src, family: checked.family ?? null, bold: checked.bold };
    },
  };
}

export type UploadsService = ReturnType<typeof createUploadsService>;
