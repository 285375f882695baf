import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { bundledFace, bundledFacePath } from '../../pdf/font-catalog.js';
import { subsetFontForText } from '../../pdf/web-font-subset.js';
import { LANGUAGE_NAMES, type Language } from '../../platform/i18n/i18n.js';

// The language switcher draws each language's name in its own script with fonts the service ships
// (decisions section 23), never with the reader's system fonts: one small font per group of names,
// cut from the bundled fonts down to the characters of those names only (a few KB each, where the
// whole Chinese font is 10 MB). Their file names carry a hash of what they are made of, so they are
// served with a year's cache; each is cut once, when it is first asked for, and kept.

interface Group {
  id: string;
  langs: Language[];
  /** The bundled face of a weight: 400 for the names, 700 for the current language's. */
  face: (weight: 400 | 700) => string;
}

const GROUPS: Group[] = [
  {
    id: 'latin',
    langs: ['en', 'fr', 'de', 'es', 'pt'],
    face: (w) => (w === 700 ? 'dejavu-sans-bold' : 'dejavu-sans'),
  },
  { id: 'arabic', langs: ['ar'], face: (w) => `noto-arabic-${w}` },
  { id: 'devanagari', langs: ['hi'], face: (w) => `noto-devanagari-${w}` },
  { id: 'sc', langs: ['zh'], face: (w) => `noto-sc-${w}` },
  { id: 'jp', langs: ['ja'], face: (w) => `noto-jp-${w}` },
];

interface LanguageFont {
  file: string;
  group: Group;
  weight: 400 | 700;
  faceId: string;
  text: string;
}

const fonts: LanguageFont[] = GROUPS.flatMap((group) =>
  ([400, 700] as const).map((weight) => {
    const faceId = group.face(weight);
    const text = group.langs.map((l) => LANGUAGE_NAMES[l]).join('');
    const size = statSync(bundledFacePath(bundledFace(faceId))).size;
    const hash = createHash('sha256')
      .update(`${faceId}:${size}:${text}`)
      .digest('hex')
      .slice(0, 10)
      .toUpperCase();
    return { file: `language-${group.id}-${weight}-${hash}.ttf`, group, weight, faceId, text };
  }),
);

/** The font family that draws the name of `lang` in the switcher. */
export function languageFontFamily(lang: Language): string {
  const group = GROUPS.find((g) => g.langs.includes(lang))!;
  return `"certsvc language ${group.id}"`;
}

/**
 * The @font-face rules of the switcher's fonts (served under `base`, ending in /) and the rules that
 * give each name, by its lang attribute, its font: `selector` is the switcher's (e.g. `.langs`).
 */
export function languageFontCss(base: string, selector: string): string {
  const faces = fonts.map(
    (f) =>
      `@font-face{font-family:"certsvc language ${f.group.id}";src:url(${base}${f.file}) format("truetype");font-weight:${f.weight};font-display:swap}`,
  );
  const rules = GROUPS.map(
    (g) =>
      `${g.langs.map((l) => `${selector} [lang=${l}]`).join(',')}{font-family:"certsvc language ${g.id}",sans-serif}`,
  );
  return [...faces, ...rules].join('\n');
}

const cut = new Map<string, Uint8Array>();

/** The bytes of a switcher font (`language-arabic-400-<hash>.ttf`), or undefined for any other name. */
export function languageFontBytes(file: string): Uint8Array | undefined {
  const font = fonts.find((f) => f.file === file);
  if (!font) return undefined;
  let bytes = cut.get(file);
  if (bytes === undefined) {
    bytes = subsetFontForText(readFileSync(bundledFacePath(bundledFace(font.faceId))), font.text);
    cut.set(file, bytes);
  }
  return bytes;
}
