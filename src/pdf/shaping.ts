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
    if (shapingOff) glyphs = byCmap(run.face, word, false);
    else glyphs = run.face.hb ? harfbuzz(run.face.hb, word, run.rtl) : byCmap(run.face, word, run.rtl);
    remember(perFace, key, glyphs);
  }
  return glyphs;
}

function offset(glyphs: ShapedGlyph[], by: number): ShapedGlyph[] {
  return by === 0 ? glyphs : glyphs.map((g) => ({ ...g, cluster: g.cluster + by }));
}

function harfbuzz(font: hb.Font, piece: string, rtl: boolean): ShapedGlyph[] {
  buffer.clearContents();
  buffer.addText(piece);
  buffer.guessSegmentProperties();
  buffer.setDirection(rtl ? hb.Direction.RTL : hb.Direction.LTR);
  hb.shape(font, buffer);
  const infos = buffer.getGlyphInfos();
  const positions = buffer.getGlyphPositions();
  return infos.map((info, i) => {
    const p = positions[i]!;
    return { gid: info.codepoint, cluster: info.cluster, advance: p.xAdvance, dx: p.xOffset, dy: p.yOffset };
  });
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
