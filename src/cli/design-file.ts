import { open } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from './output.js';
import { BODY_LIMIT, DESIGN_MAX_BYTES, MIB } from '../platform/limits.js';

// Files named on the command line are bounded before they are read (decisions section 25): a design
// at most 2 MiB, an image or font it names at most the studio's upload limit.
const FILE_MAX_BYTES = BODY_LIMIT;

/** The file's bytes, refused with a CliError when it is larger than `max`, before reading it. */
export async function readBounded(file: string, max: number, what: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > max) {
      throw new CliError(
        `${file} is ${(size / MIB).toFixed(1)} MiB: ${what} may be at most ${max / MIB} MiB`,
      );
    }
    // Read at most max + 1 bytes: a file that grows meanwhile (or a device) is still bounded.
    const buffer = Buffer.alloc(max + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > max) throw new CliError(`${file} is larger than ${max / MIB} MiB, the limit for ${what}`);
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

const IMAGES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg' };
const FONTS: Record<string, string> = { '.ttf': 'font/ttf', '.otf': 'font/otf' };

async function inline(
  src: unknown,
  baseDir: string,
  kind: 'image' | 'font',
  done: Map<string, Promise<string>>,
): Promise<unknown> {
  if (typeof src !== 'string' || src.startsWith('data:')) return src;
  const file = path.resolve(baseDir, src);
  // A file named by many elements is read once.
  let url = done.get(file);
  if (!url) done.set(file, (url = inlineFile(src, file, kind)));
  return url;
}

async function inlineFile(src: string, file: string, kind: 'image' | 'font'): Promise<string> {
  const types = kind === 'image' ? IMAGES : FONTS;
  const mime = types[path.extname(file).toLowerCase()];
  if (!mime) throw new CliError(`${kind} "${src}": only ${Object.keys(types).join(', ')} files can be used`);
  const bytes = await readBounded(file, FILE_MAX_BYTES, kind === 'image' ? 'an image' : 'a font').catch(
    (err: unknown) => {
      if (err instanceof CliError) throw err;
      throw new CliError(`${kind} "${src}" not found (looked at ${file})`);
    },
  );
  return `data:${mime};base64,${bytes.toString('base64')}`;
}

// Reads a design file; image and font paths relative to the file are inlined as data URLs so that
// the stored template needs nothing from the disk.
export async function readDesignFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = (await readBounded(file, DESIGN_MAX_BYTES, 'a design file')).toString('utf8');
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`cannot read design file ${file}`);
  }
  let design: Record<string, unknown>;
  try {
    design = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new CliError(`design file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const baseDir = path.dirname(path.resolve(file));
  const done = new Map<string, Promise<string>>();
  if (design && typeof design === 'object') {
    const bg = design.background as Record<string, unknown> | undefined;
    if (bg && typeof bg === 'object' && 'image' in bg)
      bg.image = await inline(bg.image, baseDir, 'image', done);
    if (Array.isArray(design.elements)) {
      for (const el of design.elements as Record<string, unknown>[]) {
        if (el && typeof el === 'object' && el.type === 'image')
          el.src = await inline(el.src, baseDir, 'image', done);
      }
    }
    if (Array.isArray(design.fonts)) {
      for (const font of design.fonts as Record<string, unknown>[]) {
        if (font && typeof font === 'object') font.src = await inline(font.src, baseDir, 'font', done);
      }
    }
  }
  return design;
}
