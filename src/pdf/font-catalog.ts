import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// The bundled fonts, all from npm: DejaVu for the design's own `sans`/`serif` choices, then Noto
// (SIL Open Font License) per writing system as fallbacks. Only the regular and bold weights are
// used. Which fallbacks a text needs is a pure function of its characters, so the main thread can
// load exactly the font files a batch needs and hand them to the worker threads, and every thread
// builds the same chain for the same text.

export type FontName = 'sans' | 'sans-bold' | 'serif' | 'serif-bold';

export const fontNames: readonly FontName[] = ['sans', 'sans-bold', 'serif', 'serif-bold'];

export interface BundledFace {
  id: string;
  /** npm package and file inside it. */
  pkg: string;
  file: string;
  /**
   * Shape with HarfBuzz. The CJK fonts map characters to glyphs one to one (no joining, reordering
   * or kerning by default), so their cmap is enough and their 5-10 MB need not be copied into the
   * WebAssembly heap.
   */
  shape: boolean;
}

const dejavu = (id: FontName, file: string): BundledFace => ({
  id: `dejavu-${id}`,
  pkg: 'dejavu-fonts-ttf',
  file: `ttf/${file}`,
  shape: true,
});

const noto = (script: string, family: string, weight: 400 | 700, shape = true): BundledFace => {
  const folder = weight === 400 ? '400Regular' : '700Bold';
  return {
    id: `noto-${script}-${weight}`,
    pkg: `@expo-google-fonts/noto-sans-${script}`,
    file: `${folder}/NotoSans${family}_${folder}.ttf`,
    shape,
  };
};

export const designFaces: Record<FontName, BundledFace> = {
  sans: dejavu('sans', 'DejaVuSans.ttf'),
  'sans-bold': dejavu('sans-bold', 'DejaVuSans-Bold.ttf'),
  serif: dejavu('serif', 'DejaVuSerif.ttf'),
  'serif-bold': dejavu('serif-bold', 'DejaVuSerif-Bold.ttf'),
};

/** A writing system with its fallback font, and the characters that call for it. */
interface Fallback {
  script: string;
  family: string;
  pattern: RegExp;
  shape?: boolean;
}

// Order matters where fonts overlap (CJK): kana asks for the Japanese font first, Hangul for the
// Korean one, and Han characters alone for Simplified then Traditional Chinese.
const fallbacks: Fallback[] = [
  { script: 'arabic', family: 'Arabic', pattern: /\p{Script_Extensions=Arabic}/u },
  { script: 'hebrew', family: 'Hebrew', pattern: /\p{Script_Extensions=Hebrew}/u },
  { script: 'devanagari', family: 'Devanagari', pattern: /\p{Script_Extensions=Devanagari}/u },
  { script: 'bengali', family: 'Bengali', pattern: /\p{Script_Extensions=Bengali}/u },
  { script: 'tamil', family: 'Tamil', pattern: /\p{Script_Extensions=Tamil}/u },
  { script: 'thai', family: 'Thai', pattern: /\p{Script_Extensions=Thai}/u },
  { script: 'georgian', family: 'Georgian', pattern: /\p{Script_Extensions=Georgian}/u },
  { script: 'armenian', family: 'Armenian', pattern: /\p{Script_Extensions=Armenian}/u },
  {
    script: 'jp',
    family: 'JP',
    pattern: /[\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}]/u,
    shape: false,
  },
  { script: 'kr', family: 'KR', pattern: /\p{Script_Extensions=Hangul}/u, shape: false },
  { script: 'sc', family: 'SC', pattern: /\p{Script_Extensions=Han}/u, shape: false },
  { script: 'tc', family: 'TC', pattern: /\p{Script_Extensions=Han}/u, shape: false },
];

const fallbackFaces = new Map<string, BundledFace>();
for (const f of fallbacks) {
  for (const weight of [400, 700] as const) {
    const face = noto(f.script, f.family, weight, f.shape ?? true);
    fallbackFaces.set(face.id, face);
  }
}

const bundled = new Map<string, BundledFace>([
  ...Object.values(designFaces).map((f): [string, BundledFace] => [f.id, f]),
  ...fallbackFaces,
]);

export function bundledFace(id: string): BundledFace {
  const face = bundled.get(id);
  if (!face) throw new Error(`unknown bundled font ${id}`);
  return face;
}

export const allBundledFaces: readonly BundledFace[] = [...bundled.values()];

// Any character of any fallback script: text without one (the common case) costs one regex test.
const anyFallback = new RegExp(fallbacks.map((f) => f.pattern.source).join('|'), 'u');

// Latin, Greek and Cyrillic need no fallback: most texts are answered by this cheap test alone.
const european = /^[\u0020-\u052f\u1e00-\u1fff\u2000-\u206f]*$/;

/** Ids of the fallback faces that `text` calls for, in chain order. */
export function fallbackFaceIds(text: string, bold: boolean): string[] {
  if (european.test(text) || !anyFallback.test(text)) return [];
  const weight = bold ? 700 : 400;
  const ids: string[] = [];
  for (const f of fallbacks) if (f.pattern.test(text)) ids.push(`noto-${f.script}-${weight}`);
  return ids;
}

const require = createRequire(import.meta.url);
const packageDirs = new Map<string, string>();

export function bundledFacePath(face: BundledFace): string {
  let dir = packageDirs.get(face.pkg);
  if (!dir) {
    dir = dirname(require.resolve(`${face.pkg}/package.json`));
    packageDirs.set(face.pkg, dir);
  }
  return join(dir, face.file);
}
