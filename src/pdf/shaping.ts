import * as hb from 'harfbuzzjs';
import type { Face } from './fonts.js';
import type { TextRun } from './text-runs.js';

// Second stage: each run becomes glyphs with positions, by HarfBuzz (joining, ligatures, marks,
// Indic reordering, kerning) or, for fonts drawn by their cmap alone, one glyph per character.
// Like browsers, text is shaped word by word (spaces never join, reorder or kern with letters in
// these fonts), and words are cached per font: in a batch, names share first names, courses repeat.

/** One glyph in visual order; lengths in font units. `cluster` indexes the run's text. */
export interface ShapedGlyph {
  gid: number;
  cluster: number;
  advance: number;
  dx: number;
  dy: number;
}

const buffer = new hb.Buffer();
const MAX_CACHED = 4096;
// Weak: a design's own fonts go away with their compiled template.
let cache = new WeakMap<Face, Map<string, ShapedGlyph[]>>();

export function shapeRun(text: string, run: TextRun): ShapedGlyph[] {
  const piece = text.slice(run.start, run.end);
  let perFace = cache.get(run.face);
  if (!perFace) {
    perFace = new Map();
    cache.set(run.face, perFace);
  }
  const key = run.rtl ? `\u0001${piece}` : piece;
  const whole = perFace.get(key);
  if (whole) return whole;
  const words: ShapedGlyph[][] = [];
  // Spaces are shaped alone; the isolates the renderer puts around values are drawn as nothing.
  let start = 0;
  for (let i = 0; i <= piece.length; i++) {
    const c = i < piece.length ? piece.charCodeAt(i) : 0x20;
    if (c !== 0x20 && c !== 0x2068 && c !== 0x2069) continue;
    if (i > start) words.push(offset(shapeWord(run, piece.slice(start, i), perFace), start));
    if (c === 0x20 && i < piece.length) words.push(offset(shapeWord(run, ' ', perFace), i));
    start = i + 1;
  }
  if (run.rtl && !shapingOff) words.reverse();
  const glyphs = words.length === 1 ? words[0]! : words.flat();
  remember(perFace, key, glyphs);
  return glyphs;
}

function remember(perFace: Map<string, ShapedGlyph[]>, key: string, glyphs: ShapedGlyph[]): void {
  if (perFace.size >= MAX_CACHED) perFace.clear();
  perFace.set(key, glyphs);
}

function shapeWord(run: TextRun, word: string, perFace: Map<string, ShapedGlyph[]>): ShapedGlyph[] {
  const key = run.rtl ? `\u0001${word}` : word;
  let glyphs = perFace.get(key);
  if (!glyphs) {
    // Not kept: cheaper made again than the words it would push out of the cache (codes, URLs).
    const ascii = !run.rtl && !shapingOff ? asciiGlyphs(run.face, word) : undefined;
    if (ascii) return ascii;
    if (shapingOff) glyphs = byCmap(run.face, word, false);
    else glyphs = run.face.hb ? harfbuzz(run.face.hb, word, run.rtl) : byCmap(run.face, word, run.rtl);
    remember(perFace, key, glyphs);
  }
  return glyphs;
}

// Speed-first: a word of printable ASCII (a code, a URL, a date in Latin digits) in a design font
// (DejaVu) is laid out from the font's cmap and advances, each glyph's advance adjusted by the
// kerning of its pair with the next as HarfBuzz gives it, asked once per pair and face. A character
// or pair that HarfBuzz does more with (a ligature, another glyph, an offset, the second glyph
// moved) sends the word to HarfBuzz. The fonts' only contextual lookups (ccmp) act on marks, never
// on ASCII alone: the same glyphs and advances as HarfBuzz's for every pair and for codes, URLs and
// random ASCII words (ascii-shaping.test).
const FIRST = 0x21;
const SPAN = 0x7e - FIRST + 1;
const UNKNOWN = 0x7fffffff;
const SHAPED = 0x7ffffffe; // HarfBuzz does more than kern
// Per face: [a * SPAN + b] the kerning of the pair a b, [SPAN * SPAN + a] 0 when a alone is plain.
const asciiTables = new WeakMap<Face, Int32Array>();

/** The glyphs HarfBuzz gives `word`, made without it; undefined when it needs HarfBuzz. */
export function asciiGlyphs(face: Face, word: string): ShapedGlyph[] | undefined {
  const { hb: hbFont, font } = face;
  if (!hbFont || !face.asciiFastPath) return undefined;
  let table = asciiTables.get(face);
  if (!table) {
    table = new Int32Array(SPAN * (SPAN + 1)).fill(UNKNOWN);
    asciiTables.set(face, table);
  }
  for (let i = 0; i < word.length; i++) {
    const a = word.charCodeAt(i) - FIRST;
    if (a < 0 || a >= SPAN) return undefined;
    if (known(table, SPAN * SPAN + a, hbFont, face, a, -1) !== 0) return undefined;
  }
  const glyphs: ShapedGlyph[] = [];
  for (let i = 0; i < word.length; i++) {
    const a = word.charCodeAt(i) - FIRST;
    const gid = font.glyphId(a + FIRST);
    let kern = 0;
    if (i + 1 < word.length) {
      const b = word.charCodeAt(i + 1) - FIRST;
      kern = known(table, a * SPAN + b, hbFont, face, a, b);
      if (kern === SHAPED) return undefined;
    }
    glyphs.push({ gid, cluster: i, advance: font.advance(gid) + kern, dx: 0, dy: 0 });
  }
  return glyphs;
}

function known(table: Int32Array, at: number, hbFont: hb.Font, face: Face, a: number, b: number): number {
  let value = table[at]!;
  if (value === UNKNOWN) {
    value = b < 0 ? plainAlone(hbFont, face, a) : pairKerning(hbFont, face, a, b);
    table[at] = value;
  }
  return value;
}

// 0 when HarfBuzz draws the character alone as its cmap glyph with its advance, else SHAPED.
function plainAlone(hbFont: hb.Font, face: Face, a: number): number {
  const gid = face.font.glyphId(a + FIRST);
  const [g, more] = harfbuzz(hbFont, String.fromCharCode(a + FIRST), false);
  const plain = gid !== 0 && !more && g?.gid === gid && g.advance === face.font.advance(gid);
  return plain && g.dx === 0 && g.dy === 0 ? 0 : SHAPED;
}

// What HarfBuzz adds to the first glyph's advance in the pair, or SHAPED when it does more.
function pairKerning(hbFont: hb.Font, face: Face, a: number, b: number): number {
  const { font } = face;
  const [first, second, more] = harfbuzz(hbFont, String.fromCharCode(a + FIRST, b + FIRST), false);
  if (!first || !second || more) return SHAPED;
  const gidB = font.glyphId(b + FIRST);
  if (first.gid !== font.glyphId(a + FIRST) || second.gid !== gidB || second.cluster !== 1) return SHAPED;
  if (first.dx || first.dy || second.dx || second.dy || second.advance !== font.advance(gidB)) return SHAPED;
  return first.advance - font.advance(first.gid);
}

function offset(glyphs: ShapedGlyph[], by: number): ShapedGlyph[] {
  // A literal in the same field order as the others (a spread made glyphs of another shape).
  if (by === 0) return glyphs;
  return glyphs.map((g) => ({ gid: g.gid, cluster: g.cluster + by, advance: g.advance, dx: g.dx, dy: g.dy }));
}

function harfbuzz(font: hb.Font, piece: string, rtl: boolean): ShapedGlyph[] {
  buffer.clearContents();
  buffer.addText(piece);
  buffer.guessSegmentProperties();
  buffer.setDirection(rtl ? hb.Direction.RTL : hb.Direction.LTR);
  hb.shape(font, buffer);
  const infos = buffer.getGlyphInfos();
  const positions = buffer.getGlyphPositions();
  const glyphs: ShapedGlyph[] = [];
  for (let i = 0; i < infos.length; i++) {
    const info = infos[i]!;
    const p = positions[i]!;
    glyphs.push({
      gid: info.codepoint,
      cluster: info.cluster,
      advance: p.xAdvance,
      dx: p.xOffset,
      dy: p.yOffset,
    });
  }
  return glyphs;
}

function byCmap(face: Face, piece: string, rtl: boolean): ShapedGlyph[] {
  const glyphs: ShapedGlyph[] = [];
  for (let i = 0; i < piece.length;) {
    const cp = piece.codePointAt(i)!;
    const gid = face.font.glyphId(cp);
    glyphs.push({ gid, cluster: i, advance: face.font.advance(gid), dx: 0, dy: 0 });
    i += cp > 0xffff ? 2 : 1;
  }
  return rtl ? glyphs.reverse() : glyphs;
}

let shapingOff = false;

/**
 * Draws every run as the renderer did before shaping existed (one glyph per character, in logical
 * order): only for the tests that show their checks fail on such drawing. Affects this thread only.
 */
export function turnOffShapingForTests(off: boolean): void {
  shapingOff = off;
  cache = new WeakMap();
}
