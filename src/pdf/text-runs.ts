import bidiModule from 'bidi-js';
import type { Face } from './fonts.js';

// First stage of drawing a line of text, as browsers do it: bidi levels (Unicode Bidirectional
// Algorithm), then runs of one level and one script, each with the first font of the chain that
// covers all of it (or, failing that, font by font per cluster), then the runs in visual order.

// bidi-js is CommonJS whose types declare an ES default export: at run time the import is the factory.
const bidi = (bidiModule as unknown as typeof bidiModule.default)();

/** A piece of the line drawn with one font in one direction; `start`/`end` index the text. */
export interface TextRun {
  start: number;
  end: number;
  rtl: boolean;
  face: Face;
}

export type Itemized = { runs: TextRun[] } | { uncovered: string[] };

/** Isolates placed around each value, so a value's direction never spills into the sentence. */
export const ISOLATE_START = '\u2068'; // FIRST STRONG ISOLATE
export const ISOLATE_END = '\u2069'; // POP DIRECTIONAL ISOLATE

// Characters that extend the cluster before them: marks, joiners, variation selectors.
const mark = /\p{M}/u;
const extending = (char: string, cp: number): boolean => isIgnorable(cp) || mark.test(char);
// Characters that take the script of their neighbours (spaces, digits, punctuation, marks).
const neutral = /[\p{Script=Common}\p{Script=Inherited}]/u;
// Not looked up in fonts: HarfBuzz draws joiners and selectors as nothing when a font lacks them.

interface Cluster {
  start: number;
  end: number;
  level: number;
  script: string; // '' for neutral clusters
}

// Letters of right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, NKo ... and their
// presentation forms): without any, every level is 0 and the bidi pass can be skipped.
const rightToLeft = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

export function itemize(text: string, chain: readonly Face[]): Itemized {
  const first = chain[0];
  // The common case, a left-to-right text that the element's own font draws whole: one run.
  if (first && !first.script && !rightToLeft.test(text) && coversAll(first, text, 0, text.length)) {
    return { runs: text.length === 0 ? [] : [{ start: 0, end: text.length, rtl: false, face: first }] };
  }
  const levels = rightToLeft.test(text) ? bidi.getEmbeddingLevels(text).levels : new Uint8Array(text.length);
  const clusters = toClusters(text, levels);
  const uncovered: string[] = [];
  const runs: TextRun[] = [];
  const runScripts: string[] = []; // of each run: '' when all its clusters are neutral
  let i = 0;
  while (i < clusters.length) {
    // A run: clusters of one level whose scripts agree (neutral ones join either side).
    const head = clusters[i]!;
    let script = head.script;
    let j = i + 1;
    while (j < clusters.length) {
      const c = clusters[j]!;
      if (c.level !== head.level || (c.script && script && c.script !== script)) break;
      if (c.script) script = c.script;
      j++;
    }
    const start = head.start;
    const end = clusters[j - 1]!.end;
    const face = firstCovering(chain, script, text, start, end);
    if (face) {
      runs.push({ start, end, rtl: head.level % 2 === 1, face });
      runScripts.push(script);
    } else {
      // No single font has the whole run: each cluster takes the first font that has it.
      for (let k = i; k < j; k++) {
        const c = clusters[k]!;
        const f = firstCovering(chain, script, text, c.start, c.end);
        if (!f) {
          uncovered.push(text.slice(c.start, c.end));
          continue;
        }
        const last = runs[runs.length - 1];
        if (last && last.face === f && last.end === c.start && last.rtl === (c.level % 2 === 1)) {
          last.end = c.end;
          if (c.script) runScripts[runScripts.length - 1] = c.script;
        } else {
          runs.push({ start: c.start, end: c.end, rtl: c.level % 2 === 1, face: f });
          runScripts.push(c.script);
        }
      }
    }
    i = j;
  }
  if (uncovered.length > 0) return { uncovered };
  keepRightToLeftFont(text, runs, runScripts, levels);
  return { runs: visualOrder(runs, clusters, levels) };
}

// The first face of the chain that has every character of text[start, end); a face for one script
// (Nastaliq) draws only runs of that script. A loop, not a closure made per run: V8 drops the
// optimised code of closures that no live function holds at each full GC (docs/benchmarks.md).
function firstCovering(chain: readonly Face[], script: string, text: string, start: number, end: number) {
  for (const f of chain) {
    if ((f.script === undefined || f.script === script) && coversAll(f, text, start, end)) return f;
  }
  return undefined;
}

// Digits between the words of a right-to-left name ("محمد 2 علي") are a run of their own, one
// bidi level up, and the first font of the chain that has them (the element's Latin font) would
// draw them. As in browsers, they keep the font of the right-to-left run they sit in when it has
// them: a run one level or more above its neighbour in logical order (the one before it, else the
// one after), of no script or the neighbour's (Arabic-Indic digits), takes the neighbour's font.
function keepRightToLeftFont(text: string, runs: TextRun[], scripts: string[], levels: Uint8Array): void {
  if (runs.length < 2) return;
  const levelOf = (k: number) => levels[runs[k]!.start] ?? 0;
  for (let k = 0; k < runs.length; k++) {
    const run = runs[k]!;
    for (const n of [k - 1, k + 1]) {
      const near = runs[n];
      if (!near || !near.rtl || levelOf(n) >= levelOf(k)) continue;
      if (scripts[k] && scripts[k] !== scripts[n]) continue;
      if (near.face === run.face) break;
      if (!coversAll(near.face, text, run.start, run.end)) continue;
      run.face = near.face;
      break;
    }
  }
}

function toClusters(text: string, levels: Uint8Array): Cluster[] {
  const clusters: Cluster[] = [];
  let lastScript = '';
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const char = text.slice(i, i + width);
    if (char === ISOLATE_START || char === ISOLATE_END) {
      i += width; // drawn as nothing; its level is the sentence's, not the value's
      continue;
    }
    const prev = clusters[clusters.length - 1];
    if (prev && prev.end === i && extending(char, cp)) {
      prev.end = i + width;
    } else {
      const script = neutral.test(char) ? '' : scriptOf(char, lastScript);
      if (script) lastScript = script;
      clusters.push({ start: i, end: i + width, level: levels[i] ?? 0, script });
    }
    i += width;
  }
  return clusters;
}

const scripts: [string, RegExp][] = [
  ['Latn', /\p{Script=Latin}/u],
  ['Arab', /\p{Script=Arabic}/u],
  ['Hebr', /\p{Script=Hebrew}/u],
  ['Deva', /\p{Script=Devanagari}/u],
  ['Beng', /\p{Script=Bengali}/u],
  ['Taml', /\p{Script=Tamil}/u],
  ['Thai', /\p{Script=Thai}/u],
  ['Grek', /\p{Script=Greek}/u],
  ['Cyrl', /\p{Script=Cyrillic}/u],
  ['Geor', /\p{Script=Georgian}/u],
  ['Armn', /\p{Script=Armenian}/u],
  // Japanese mixes kanji and kana in one word: one run, so that one font draws it.
  ['Hani', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u],
];

function scriptOf(char: string, previous: string): string {
  for (const [name, pattern] of scripts) if (pattern.test(char)) return name;
  return previous || 'Zzzz';
}

export function coversAll(face: Face, text: string, start: number, end: number): boolean {
  for (let i = start; i < end;) {
    const cp = text.codePointAt(i)!;
    i += cp > 0xffff ? 2 : 1;
    if (face.font.glyphId(cp) === 0 && !isIgnorable(cp)) return false;
  }
  return true;
}

// Joiners, variation selectors and the isolates placed around values: drawn as nothing.
function isIgnorable(cp: number): boolean {
  return cp === 0x200c || cp === 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0x2068 || cp === 0x2069;
}

// Rule L2 of the bidi algorithm on whole runs: from the highest level down to the lowest odd one,
// reverse every sequence of runs at that level or above. A run of one level reverses its glyphs
// itself (HarfBuzz returns right-to-left runs in visual order).
const atLevelZero = (c: Cluster) => c.level === 0;

function visualOrder(runs: TextRun[], clusters: Cluster[], levels: Uint8Array): TextRun[] {
  if (clusters.every(atLevelZero)) return runs;
  const withLevel: { run: TextRun; level: number }[] = [];
  for (const run of runs) withLevel.push({ run, level: levels[run.start] ?? 0 });
  let max = 0;
  let minOdd = Number.POSITIVE_INFINITY;
  for (const { level } of withLevel) {
    max = Math.max(max, level);
    if (level % 2 === 1) minOdd = Math.min(minOdd, level);
  }
  for (let level = max; level >= minOdd; level--) {
    for (let i = 0; i < withLevel.length;) {
      if (withLevel[i]!.level < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < withLevel.length && withLevel[j]!.level >= level) j++;
      const reversed = withLevel.slice(i, j).reverse();
      withLevel.splice(i, j - i, ...reversed);
      i = j;
    }
  }
  // Pushed, not mapped: an array of the same elements kind as itemize's own runs (a mapped one is
  // "holey"), so that code iterating over runs sees one hidden class.
  const ordered: TextRun[] = [];
  for (const w of withLevel) ordered.push(w.run);
  return ordered;
}
