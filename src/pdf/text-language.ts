// The language a text is read in, from its writing system (decisions 23): what a tagged PDF's /Lang
// says of a recipient's name and of any text whose script is not the document's. A text takes the
// script most of its letters are in; Latin (and text without letters) is the document's language.

const SCRIPTS: { pattern: RegExp; lang: (locale: string) => string }[] = [
  // Arabic script: Urdu and Persian designs read it in their own language, any other as Arabic.
  { pattern: /\p{Script=Arabic}/u, lang: (l) => (l === 'ur' || l === 'fa' ? l : 'ar') },
  { pattern: /\p{Script=Hebrew}/u, lang: () => 'he' },
  { pattern: /\p{Script=Devanagari}/u, lang: (l) => (l === 'mr' || l === 'ne' ? l : 'hi') },
  { pattern: /\p{Script=Bengali}/u, lang: (l) => (l === 'as' ? l : 'bn') },
  { pattern: /\p{Script=Tamil}/u, lang: () => 'ta' },
  { pattern: /\p{Script=Thai}/u, lang: () => 'th' },
  { pattern: /\p{Script=Hangul}/u, lang: () => 'ko' },
  // Han with kana is Japanese; Han alone Chinese (kana counted with Han, below).
  { pattern: /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u, lang: () => 'zh' },
  { pattern: /\p{Script=Greek}/u, lang: () => 'el' },
  {
    pattern: /\p{Script=Cyrillic}/u,
    lang: (l) => (['ru', 'uk', 'bg', 'sr', 'mk', 'be', 'kk'].includes(l) ? l : 'ru'),
  },
  { pattern: /\p{Script=Georgian}/u, lang: () => 'ka' },
  { pattern: /\p{Script=Armenian}/u, lang: () => 'hy' },
];
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
// Any letter that is not Latin: text without one (the common case) costs one test.
const NOT_LATIN = /[^\P{L}\p{Script=Latin}]/u;
const LETTER = /\p{L}/u;
const LATIN = /\p{Script=Latin}/u;

const LATIN_LETTER = -1;
const OTHER = -2; // not a letter, or a letter of a script not listed
// Speed-first: each character's script (an index in SCRIPTS) found once by the regular expressions,
// then looked up (names repeat their letters); bounded, as the characters a process sees are not.
const scripts = new Map<string, number>();
function scriptOf(char: string): number {
  let i = scripts.get(char);
  if (i !== undefined) return i;
  i = classify(char);
  if (scripts.size >= 65536) scripts.clear();
  scripts.set(char, i);
  return i;
}

function classify(char: string): number {
  if (!LETTER.test(char)) return OTHER;
  if (LATIN.test(char)) return LATIN_LETTER;
  const i = SCRIPTS.findIndex((s) => s.pattern.test(char));
  return i < 0 ? OTHER : i;
}

// Speed-first: the languages of texts seen lately (a batch repeats its names), bounded.
const seen = new Map<string, string>();

/** The BCP 47 language of `text`; `documentLang` for Latin text and text without letters. */
export function textLanguage(text: string, documentLang: string): string {
  // Below U+0250 (ASCII, Latin-1, Latin Extended) every letter is Latin but the micro sign, of no
  // script: most lines (codes, links, dates) end here, without a look-up.
  let at = 0;
  while (at < text.length && text.charCodeAt(at) < 0x250) at++;
  if (at === text.length) return documentLang;
  const key = `${documentLang}\u0000${text}`;
  let lang = seen.get(key);
  if (lang === undefined) {
    lang = languageOf(text, documentLang);
    if (seen.size >= 4096) seen.clear();
    seen.set(key, lang);
  }
  return lang;
}

function languageOf(text: string, documentLang: string): string {
  if (!NOT_LATIN.test(text)) return documentLang;
  const base = documentLang.toLowerCase().split('-')[0] ?? '';
  const counts = new Array<number>(SCRIPTS.length).fill(0);
  let latin = 0;
  for (const char of text) {
    const i = scriptOf(char);
    if (i === LATIN_LETTER) latin++;
    else if (i >= 0) counts[i]!++;
  }
  let best = -1;
  counts.forEach((n, i) => {
    if (n > 0 && (best < 0 || n > counts[best]!)) best = i;
  });
  if (best < 0 || latin > counts[best]!) return documentLang;
  const lang = SCRIPTS[best]!.lang(base);
  if (lang === 'zh' && KANA.test(text)) return 'ja';
  // The document's own language when it is of this script (a Korean design, a Hindi one).
  return lang === base ? documentLang : lang;
}

/** The document's language: the design's locale, else English. */
export function documentLanguage(locale: string | undefined): string {
  return locale && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(locale) ? locale : 'en';
}
