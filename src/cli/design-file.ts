import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CliError } from './output.js';

const IMAGES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg' };
const FONTS: Record<string, string> = { '.ttf': 'font/ttf', '.otf': 'font/otf' };

async function inline(src: unknown, baseDir: string, kind: 'image' | 'font'): Promise<unknown> {
  if (typeof src !== 'string' || src.startsWith('data:')) return src;
  const file = path.resolve(baseDir, src);
  const types = kind === 'image' ? IMAGES : FONTS;
  const mime = types[path.extname(file).toLowerCase()];
  if (!mime) throw new CliError(`${kind} "${src}": only ${Object.keys(types).join(', ')} files can be used`);
  const bytes = await readFile(file).catch(() => {
    throw new CliError(`${kind} "${src}" not found (looked at ${file})`);
  });
  return `data:${mime};base64,${bytes.toString('base64')}`;
}

// Reads a design file; image and font paths relative to the file are inlined as data URLs so that
// the stored template needs nothing from the disk.
export async function readDesignFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new CliError(`cannot read design file ${file}`);
  }
  let design: Record<string, unknown>;
  try {
    design = JSON.parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new CliError(`design file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const baseDir = path.dirname(path.resolve(file));
  if (design && typeof design === 'object') {
    const bg = design.background as Record<string, unknown> | undefined;
    if (bg && typeof bg === 'object' && 'image' in bg) bg.image = await inline(bg.image, baseDir, 'image');
    if (Array.isArray(design.elements)) {
      for (const el of design.elements as Record<string, unknown>[]) {
        if (el && typeof el === 'object' && el.type === 'image')
          el.src = await inline(el.src, baseDir, 'image');
      }
    }
    if (Array.isArray(design.fonts)) {
      for (const font of design.fonts as Record<string, unknown>[]) {
        if (font && typeof font === 'object') font.src = await inline(font.src, baseDir, 'font');
      }
    }
  }
  return design;
}
