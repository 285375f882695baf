import { createHash } from 'node:crypto';
import { ByteLru } from './byte-lru.js';
import type { Face } from './fonts.js';
import { hex4 } from './pdf-syntax.js';
import type { SubsetState } from './template-compiler.js';
import { pdfWidth } from './text-layout.js';
import type { TrueTypeFont } from './truetype-font.js';
import { fixedGlyphs, subsetParts, type FixedGlyphs, type GlyphList } from './truetype-subset.js';
import { deflatedPiece, storedPiece, zlibStream, type ZlibPiece } from './zlib-pieces.js';

// Speed-first: certificates repeat their subsets, so each is deflated once (same bytes: font-streams.test);
// and a subset that is new (a unique name) deflates only its own glyphs: the template's are a
// piece of the stream deflated once.

/** What a document's font objects need from its subset: all of it depends on the face and subset only. */
export interface FontStreams {
  /** `/ABCDEF+DejaVuSans`: the tag is derived from the glyph list, components included. */
  baseFont: string;
  /** Advance widths in CID order, for /W. */
  widths: string;
  /** The TrueType subset, deflated, and its length before (/Length1). */
  fontFile: Buffer;
  length1: number;
  /** The ToUnicode CMap, deflated. */
  toUnicode: Buffer;
}

/**
 * The streams of one subset, made from scratch (the cache's miss path). Leaves `subset` as it is.
 * `base` is the template's subset of the face, which `subset` starts with (none for a font only the
 * document draws with): its outlines and CMap lines are pieces of the streams deflated once (and
 * kept in the cache), so that only the document's own glyphs are deflated per document.
 */
export function makeFontStreams(face: Face, subset: SubsetState, base?: SubsetState): FontStreams {
  const { font } = face;
  const fixed = base?.glyphs.length ?? 1;
  const baseKey = baseKeyOf(face, base);
  // The subsetter appends composite glyphs' components to the lists it is given: give it copies.
  const glyphs = subset.glyphs.slice();
  const list = { glyphs, index: subset.index };
  const outlines = fixedOutlines(baseKey, face, list, fixed);
  const parts = subsetParts(font, list, outlines.glyphs);
  const fontFile = [
    storedPiece(parts.head),
    programsPiece(face, parts.programs),
    outlines.piece,
    // The template's subset as it is (no glyph of the document's own) repeats in every document:
    // deflated, once.
    ownPiece(parts.rest, subset.glyphs.length > fixed ? STORED_OUTLINES : 0),
  ];
  const tail = Buffer.from(cmapLines(subset.text, fixed, subset.text.length) + CMAP_END, 'latin1');
  return {
    baseFont: `/${subsetTag(glyphs)}+${font.postScriptName}`,
    widths: widthsText(font, glyphs),
    fontFile: zlibStream(fontFile),
    length1: fontFile.reduce((n, p) => n + p.length, 0),
    toUnicode: zlibStream([cmapHead(baseKey, subset.text, fixed), ownPiece(tail, STORED_CMAP)]),
  };
}

// The glyphs' widths, spaced. Written as text directly: an array of them (map, join) held small
// integers for one font and doubles for another, and the join deoptimised on the switch.
function widthsText(font: TrueTypeFont, glyphs: number[]): string {
  let text = '';
  for (let i = 0; i < glyphs.length; i++) text += `${i === 0 ? '' : ' '}${pdfWidth(font, glyphs[i]!)}`;
  return text;
}

// A document's own part of a stream (its glyphs' outlines and metrics, its CMap lines) is stored
// rather than deflated below a size: a zlib call (about 100 us in a render) costs more than the
// bytes it would save. Outlines deflate by about a fifth: a unique name's own part, 0.3 to 3 KB,
// is stored in 9 certificates of 10 for 0.7 KB more per PDF (bench/pdf-cpu's unique names); CMap
// lines (hex) deflate by two thirds.
const STORED_OUTLINES = 3072;
const STORED_CMAP = 512;
const ownPiece = (bytes: Buffer, storedBelow: number): ZlibPiece =>
  bytes.length < storedBelow ? storedPiece(bytes) : deflatedPiece(bytes);

// The subsets made lately in this thread, within a bound in bytes, and apart from them the pieces
// subsets share: a face's hinting programs, a template's outlines, the head of a CMap.
const DEFAULT_LIMIT = 4 * 1024 * 1024; // per thread; a Latin subset is about 5 to 10 KB deflated
const ENTRY_OVERHEAD = 200;
interface SharedPiece {
  piece: ZlibPiece;
  glyphs?: FixedGlyphs;
}
const entries = new ByteLru<FontStreams>(DEFAULT_LIMIT);
const shared = new ByteLru<SharedPiece>(DEFAULT_LIMIT / 4);
let hits = 0;
let misses = 0;

// Faces are numbered as first seen: a design's own font is a Face of its own, so the key names
// exactly the font the subset was cut from.
const faceNumbers = new WeakMap<Face, number>();
let nextFaceNumber = 0;

function faceNumber(face: Face): number {
  let n = faceNumbers.get(face);
  if (n === undefined) {
    n = nextFaceNumber++;
    faceNumbers.set(face, n);
  }
  return n;
}

// A template's subset of a face, named by what it holds (so that a template compiled again names
// the same streams), worked out once per compiled template.
const baseKeys = new WeakMap<SubsetState, string>();

function baseKeyOf(face: Face, base: SubsetState | undefined): string {
  if (!base) return `f${faceNumber(face)}`;
  let key = baseKeys.get(base);
  if (key === undefined) {
    // Hashed: a short key is quicker to look up, for every document.
    const held = `${base.glyphs.join(',')}|${JSON.stringify(base.text)}`;
    key = `b${faceNumber(face)}|${createHash('sha256').update(held).digest('base64')}`;
    baseKeys.set(base, key);
  }
  return key;
}

/** The streams of `subset`, which starts with `base`, the template's subset of the face (if any). */
export function fontStreams(face: Face, subset: SubsetState, base?: SubsetState): FontStreams {
  // The glyph list fixes the subset (the index maps each glyph to its first place in the list) and
  // the texts fix the CMap; JSON keeps the texts apart whatever characters they hold. The template's
  // part of both is named once per compiled template.
  const fixed = base?.glyphs.length ?? 1;
  const key = `${baseKeyOf(face, base)}|${subset.glyphs.slice(fixed).join(',')}|${JSON.stringify(subset.text.slice(fixed))}`;
  const known = entries.get(key);
  if (known) {
    hits++;
    return known;
  }
  misses++;
  const streams = makeFontStreams(face, subset, base);
  const bytes =
    ENTRY_OVERHEAD +
    2 * (key.length + streams.baseFont.length + streams.widths.length) +
    streams.fontFile.length +
    streams.toUnicode.length;
  if (bytes <= entries.limit) entries.set(key, streams, bytes);
  return streams;
}

// A shared piece from the cache, or made and kept.
function sharedPiece(key: string, make: () => SharedPiece): SharedPiece {
  const known = shared.get(key);
  if (known) return known;
  const made = make();
  const bytes = ENTRY_OVERHEAD + 2 * key.length + made.piece.data.length + (made.glyphs?.data.length ?? 0);
  if (bytes <= shared.limit) {
    // Exactly sized copies: a small Buffer may be a slice of a shared 8 KB pool it would keep alive.
    made.piece.data = ownCopy(made.piece.data);
    if (made.glyphs) made.glyphs.data = ownCopy(made.glyphs.data);
    shared.set(key, made, bytes);
  }
  return made;
}

function programsPiece(face: Face, programs: Buffer): ZlibPiece {
  return sharedPiece(`p${faceNumber(face)}`, () => ({ piece: deflatedPiece(programs) })).piece;
}

function fixedOutlines(
  baseKey: string,
  face: Face,
  list: GlyphList,
  fixed: number,
): { piece: ZlibPiece; glyphs: FixedGlyphs } {
  const kept = sharedPiece(`g${baseKey}`, () => {
    const glyphs = fixedGlyphs(face.font, list, fixed);
    return { piece: deflatedPiece(glyphs.data), glyphs };
  });
  return { piece: kept.piece, glyphs: kept.glyphs! };
}

function cmapHead(baseKey: string, text: string[], fixed: number): ZlibPiece {
  const make = () => ({
    piece: deflatedPiece(Buffer.from(CMAP_START + cmapLines(text, 0, fixed), 'latin1')),
  });
  return sharedPiece(`u${baseKey}`, make).piece;
}

function ownCopy(data: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(data.length);
  data.copy(copy);
  return copy;
}

/** For tests and benchmarks: empties the cache and sets its bound in bytes (0 turns it off). */
export function resetFontStreamCache(bytes: number = DEFAULT_LIMIT): void {
  entries.clear();
  shared.clear();
  hits = 0;
  misses = 0;
  entries.limit = bytes;
  shared.limit = bytes / 4;
}

/** Subsets only: the pieces they share are kept apart, in a quarter of the bound. */
export function fontStreamCacheStats(): { entries: number; bytes: number; hits: number; misses: number } {
  return { entries: entries.size, bytes: entries.bytes, hits, misses };
}

const CMAP_START =
  '/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n' +
  '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n' +
  '/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n';
const CMAP_END = 'endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n';

// The bfchar blocks (100 lines at most each) of the CIDs from `start` to `end`.
function cmapLines(text: string[], start: number, end: number): string {
  const lines: string[] = [];
  for (let id = start; id < end; id++) {
    const t = text[id];
    if (!t) continue;
    let hex = '';
    for (let i = 0; i < t.length; i++) hex += hex4(t.charCodeAt(i));
    lines.push(`<${hex4(id)}> <${hex}>`);
  }
  let out = '';
  for (let i = 0; i < lines.length; i += 100) {
    const block = lines.slice(i, i + 100);
    out += `${block.length} beginbfchar\n${block.join('\n')}\nendbfchar\n`;
  }
  return out;
}

// Six capitals derived from the glyph set, as PDF asks of subset font names.
function subsetTag(glyphs: number[]): string {
  let hash = 0x811c9dc5;
  for (const g of glyphs) hash = Math.imul(hash ^ g, 0x01000193) >>> 0;
  let tag = '';
  for (let i = 0; i < 6; i++) {
    tag += String.fromCharCode(65 + (hash % 26));
    hash = Math.floor(hash / 26) + i * 7919;
  }
  return tag;
}
