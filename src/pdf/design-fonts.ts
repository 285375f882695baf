import { createHash } from 'node:crypto';
import type { Design } from './design.schema.js';
import {
  designFont,
  fallbackStyle,
  fontNames,
  makeFace,
  type Face,
  type FallbackStyle,
  type FontName,
} from './fonts.js';
import type { RenderIssue } from './render-types.js';
import { FONT_MAX_BYTES, fontProblem, notAFont } from './font-check.js';

// A design's own fonts (`fonts` in the design): parsed once per template and thread, tried before
// the bundled fonts by the text elements that name them.

export interface DesignFontFace {
  face: Face;
  fallback: FontName;
}

const dataUrl = /^data:font\/(ttf|otf);base64,([A-Za-z0-9+/=]+)$/;

// A design's own fonts, parsed once per thread and kept while recent: the next version of a design
// (and every template that uses the font) reuses the face, and HarfBuzz (whose memory is freed only
// when the garbage collector finalises its objects) is not given a new copy of the font each time.
const CACHED_FACES = 16;
const faceCache = new Map<string, Face>();

// Keyed by the font's whole SHA-256 (not the short id in its name): another account's font can
// never be taken for this one.
function cachedFace(
  digest: string,
  id: string,
  bytes: Buffer,
  opts: { shape: boolean; serif: boolean; bold: boolean },
): Face {
  const key = `${digest}:${opts.serif ? 's' : ''}${opts.bold ? 'b' : ''}`;
  let face = faceCache.get(key);
  if (face) faceCache.delete(key);
  else face = makeFace(id, bytes, opts);
  faceCache.set(key, face);
  if (faceCache.size > CACHED_FACES) faceCache.delete(faceCache.keys().next().value!);
  return face;
}

/** The design's fonts by name, and what is wrong with any of them (issue paths in the design). */
export function designFontFaces(design: Design): {
  faces: Map<string, DesignFontFace>;
  issues: RenderIssue[];
} {
  const faces = new Map<string, DesignFontFace>();
  const issues: RenderIssue[] = [];
  (design.fonts ?? []).forEach((font, i) => {
    if ((fontNames as readonly string[]).includes(font.name)) {
      issues.push({
        path: ['fonts', i, 'name'],
        message: `is the name of a bundled font (${fontNames.join(', ')})`,
      });
      return;
    }
    if (faces.has(font.name)) {
      issues.push({ path: ['fonts', i, 'name'], message: `"${font.name}" is declared twice` });
      return;
    }
    const base64 = dataUrl.exec(font.src)?.[2];
    if (!base64) {
      issues.push({
        path: ['fonts', i, 'src'],
        message: 'is not a data:font/ttf or data:font/otf base64 URL',
      });
      return;
    }
    const fallback = font.fallback ?? 'sans';
    const digest = createHash('sha256').update(base64).digest('hex');
    const id = `custom-${digest.slice(0, 12)}`;
    const bytes = Buffer.from(base64, 'base64');
    const refused =
      bytes.length > FONT_MAX_BYTES
        ? `is ${(bytes.length / 1048576).toFixed(1)} MiB: fonts may be at most 2 MiB`
        : notAFont(bytes);
    if (refused) {
      issues.push({ path: ['fonts', i, 'src'], message: refused });
      return;
    }
    try {
      const face = cachedFace(digest, id, bytes, {
        shape: true,
        serif: fallback.startsWith('serif'),
        bold: fallback.endsWith('bold'),
      });
      faces.set(font.name, { face, fallback });
    } catch (err) {
      issues.push({ path: ['fonts', i, 'src'], message: fontProblem(err) });
    }
  });
  return { faces, issues };
}

/**
 * The fonts a text element draws with first, and the style of the fallbacks its text calls for:
 * the family and weight of its bundled font (a design font's `fallback`), and the design's locale.
 */
export function elementFonts(
  font: string | undefined,
  custom: ReadonlyMap<string, DesignFontFace>,
  locale: string | undefined,
): { own: Face[]; style: FallbackStyle } {
  const mine = font === undefined ? undefined : custom.get(font);
  const name: FontName = mine ? mine.fallback : ((font ?? 'sans') as FontName);
  const bundled = designFont(name);
  return { own: mine ? [mine.face, bundled] : [bundled], style: fallbackStyle(name, locale) };
}
