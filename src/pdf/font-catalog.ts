import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

// The bundled fonts, all from npm: DejaVu for the design's own `sans`/`serif` choices, then Noto
// (SIL Open Font License) per writing system as fallbacks, in the design's family: a `sans` text
// falls back to Noto Sans faces, a `serif` one to Noto Serif faces (Naskh for Arabic), and Urdu to
// Noto Nastaliq Urdu in both. Only the regular and bold weights are used (of the CJK serif
// packages too, which ship seven more: they are never read). Which fallbacks a text needs is a pure
// function of its characters, its family and weight, and whether the design is in Urdu
// (FallbackStyle), so the main thread can load exactly the font files a batch needs and hand them
// to the worker threads, and every thread builds the same chain for the same text.

export type FontName = 'sans' | 'sans-bold' | 'serif' | 'serif-bold';

export const fontNames: readonly FontName[] = ['sans', 'sans-bold', 'serif', 'serif-bold'];

export interface BundledFace {
  id: string;
  /** npm package and file inside it. */
  pkg: string;
  file: string;
  /**
   * Shape with HarfBuzz. The CJK fonts map characters to glyphs one to one (no joining, reordering
   * or kerning by default), so their cmap is enough and their 10-15 MB need not be copied into the
   * WebAssembly heap.
   */
  shape: boolean;
  /** For the PDF font descriptor's Serif flag. */
  serif: boolean;
  /**
   * Drawn only in runs of this script (bidi script code), and tried before the element's bundled
   * font: Nastaliq for Urdu, which DejaVu Sans would otherwise draw (it has Arabic letters), while
   * Nastaliq's own Latin letters and digits never draw the rest of the line.
   */
  script?: string;
  /**
   * Sets words on a cascading baseline (Nastaliq): text extraction cannot put its glyphs back in
   * order, so each run carries its text as /ActualText.
   */
  actualText?: boolean;
}

const dejavu = (id: FontName, file: string): BundledFace => ({
  id: `dejavu-${id}`,
  pkg: 'dejavu-fonts-ttf',
  file: `ttf/${file}`,
  shape: true,
  serif: id.startsWith('serif'),
});

/** A face of an @expo-google-fonts package: `noto-serif-sc` and `NotoSerifSC` give NotoSerifSC_700Bold.ttf. */
const expo = (
  id: string,
  pkg: string,
  family: string,
  weight: 400 | 700,
  opts: { shape: boolean; serif: boolean; script?: string; actualText?: boolean },
): BundledFace => {
  const folder = weight === 400 ? '400Regular' : '700Bold';
  return {
    id: `${id}-${weight}`,
    pkg: `@expo-google-fonts/${pkg}`,
    file: `${folder}/${family}_${folder}.ttf`,
    ...opts,
  };
};

export const designFaces: Record<FontName, BundledFace> = {
  sans: dejavu('sans', 'DejaVuSans.ttf'),
  'sans-bold': dejavu('sans-bold', 'DejaVuSans-Bold.ttf'),
  serif: dejavu('serif', 'DejaVuSerif.ttf'),
  'serif-bold': dejavu('serif-bold', 'DejaVuSerif-Bold.ttf'),
};

/** What picks a text's fallback fonts besides its characters. */
export interface FallbackStyle {
  /** The element's family: its bundled font's, or its design font's `fallback`. */
  serif: boolean;
  /** Bold text falls back to the 700 weight, other text to 400. */
  bold: boolean;
  /** The design's locale is Urdu (`ur`, `ur-PK`, ...): Arabic-script text is Urdu. */
  urdu: boolean;
}

/** The fallback style of text drawn in `font` (bundled, or a design font's fallback) in a design of `locale`. */
export function fallbackStyle(font: FontName, locale: string | undefined): FallbackStyle {
  return {
    serif: font.startsWith('serif'),
    bold: font.endsWith('bold'),
    urdu: locale !== undefined && /^ur(?:-|$)/i.test(locale),
  };
}

/**
 * A writing system with its fallback fonts, and the characters that call for it. `serif` names the
 * serif face's package and family; without one (Tamil, Thai, Georgian, Armenian: no serif face is
 * published on npm as TrueType) the sans face serves both families.
 */
interface Fallback {
  script: string;
  family: string;
  serif?: { pkg: string; family: string };
  pattern: RegExp;
  shape?: boolean;
}

// Order matters where fonts overlap (CJK): kana asks for the Japanese font first, Hangul for the
// Korean one, and Han characters alone for Simplified then Traditional Chinese.
const fallbacks: Fallback[] = [
  {
    script: 'arabic',
    family: 'Arabic',
    serif: { pkg: 'noto-naskh-arabic', family: 'NotoNaskhArabic' },
    pattern: /\p{Script_Extensions=Arabic}/u,
  },
  {
    script: 'hebrew',
    family: 'Hebrew',
    serif: { pkg: 'noto-serif-hebrew', family: 'NotoSerifHebrew' },
    pattern: /\p{Script_Extensions=Hebrew}/u,
  },
  {
    script: 'devanagari',
    family: 'Devanagari',
    serif: { pkg: 'noto-serif-devanagari', family: 'NotoSerifDevanagari' },
    pattern: /\p{Script_Extensions=Devanagari}/u,
  },
  {
    script: 'bengali',
    family: 'Bengali',
    serif: { pkg: 'noto-serif-bengali', family: 'NotoSerifBengali' },
    pattern: /\p{Script_Extensions=Bengali}/u,
  },
  { script: 'tamil', family: 'Tamil', pattern: /\p{Script_Extensions=Tamil}/u },
  { script: 'thai', family: 'Thai', pattern: /\p{Script_Extensions=Thai}/u },
  { script: 'georgian', family: 'Georgian', pattern: /\p{Script_Extensions=Georgian}/u },
  { script: 'armenian', family: 'Armenian', pattern: /\p{Script_Extensions=Armenian}/u },
  {
    script: 'jp',
    family: 'JP',
    serif: { pkg: 'noto-serif-jp', family: 'NotoSerifJP' },
    pattern: /[\p{Script_Extensions=Hiragana}\p{Script_Extensions=Katakana}]/u,
    shape: false,
  },
  {
    script: 'kr',
    family: 'KR',
    serif: { pkg: 'noto-serif-kr', family: 'NotoSerifKR' },
    pattern: /\p{Script_Extensions=Hangul}/u,
    shape: false,
  },
  {
    script: 'sc',
    family: 'SC',
    serif: { pkg: 'noto-serif-sc', family: 'NotoSerifSC' },
    pattern: /\p{Script_Extensions=Han}/u,
    shape: false,
  },
  {
    script: 'tc',
    family: 'TC',
    serif: { pkg: 'noto-serif-tc', family: 'NotoSerifTC' },
    pattern: /\p{Script_Extensions=Han}/u,
    shape: false,
  },
];

// Letters that Urdu writes and Arabic and Persian do not (tteh, ddal, rreh, noon ghunna, heh goal
// and its hamza form, teh marbuta goal, yeh barree and its hamza form): an Arabic-script text with
// one is Urdu (or Punjabi, Saraiki, Kashmiri: all written in Nastaliq too). Heh doachashmee (U+06BE),
// frequent in Urdu, is left out: Kurdish, Uyghur and Sindhi, which are not written in Nastaliq, use
// it as well.
export const URDU_LETTERS = /[\u0679\u0688\u0691\u06ba\u06c1-\u06c3\u06d2\u06d3]/u;

// Latin, Greek and Cyrillic characters that DejaVu Serif or DejaVu Serif Bold lack (a few ranges
// taken whole), drawn by Noto Serif in a serif text (test/pdf/serif-fallbacks.test.ts holds this
// list to the fonts). DejaVu Sans lacks far fewer, and a sans text has no such fallback.
const serifGaps =
  // eslint-disable-next-line no-misleading-character-class -- code points, not graphemes: some are marks
  /[\u0342\u0345\u035e\u0363-\u036f\u0460\u0461\u0466-\u0469\u046e\u046f\u0478-\u048b\u048e\u048f\u049c\u049d\u04a8\u04a9\u04b8\u04b9\u04bc-\u04bf\u04c5\u04c6\u04c9\u04ca\u04cd\u04ce\u04fa-\u050f\u0516-\u0519\u051e-\u052f\u1c80-\u1c8a\u1d6c-\u1dff\u1efc-\u1eff\u205d\u20f0\u2186-\u2188\u2c60-\u2c7f\u2de0-\u2dff\u2e17\u2e43\ua640-\ua69f\ua700-\ua7ff\uab30-\uab6f\ufe2e\ufe2f\uff21-\uff3a\uff41-\uff5a\u{10140}-\u{101a0}\u{10780}-\u{107ba}\u{1d200}-\u{1d245}\u{1df00}-\u{1df2a}\u{1e030}-\u{1e08f}]/u;

const fallbackFaces = new Map<string, BundledFace>();
const add = (face: BundledFace) => fallbackFaces.set(face.id, face);
for (const weight of [400, 700] as const) {
  for (const f of fallbacks) {
    const shape = f.shape ?? true;
    add(
      expo(`noto-${f.script}`, `noto-sans-${f.script}`, `NotoSans${f.family}`, weight, {
        shape,
        serif: false,
      }),
    );
    if (f.serif)
      add(expo(`noto-serif-${f.script}`, f.serif.pkg, f.serif.family, weight, { shape, serif: true }));
  }
  add(expo('noto-serif-latin', 'noto-serif', 'NotoSerif', weight, { shape: true, serif: true }));
  add(
    expo('noto-nastaliq-urdu', 'noto-nastaliq-urdu', 'NotoNastaliqUrdu', weight, {
      shape: true,
      serif: false,
      script: 'Arab',
      actualText: true,
    }),
  );
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

// Latin, Greek and Cyrillic need no fallback in sans: most texts are answered by this cheap test alone.
const european = /^[\u0020-\u052f\u1e00-\u1fff\u2000-\u206f]*$/;

const none: string[] = [];

/**
 * Ids of the fallback faces that `text` calls for, in chain order: Noto Serif first for the Latin,
 * Greek and Cyrillic that DejaVu Serif lacks, then per script; Arabic-script text that is Urdu
 * tries Noto Nastaliq Urdu before the Arabic face (which draws the letters Nastaliq lacks).
 */
export function fallbackFaceIds(text: string, style: FallbackStyle): string[] {
  const weight = style.bold ? 700 : 400;
  const ids = style.serif && serifGaps.test(text) ? [`noto-serif-latin-${weight}`] : none;
  if (european.test(text) || !anyFallback.test(text)) return ids;
  const chain = [...ids];
  for (const f of fallbacks) {
    if (!f.pattern.test(text)) continue;
    if (f.script === 'arabic' && (style.urdu || URDU_LETTERS.test(text)))
      chain.push(`noto-nastaliq-urdu-${weight}`);
    chain.push(`noto-${style.serif && f.serif ? 'serif-' : ''}${f.script}-${weight}`);
  }
  return chain;
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
