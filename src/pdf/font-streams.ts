import { ByteLru } from './byte-lru.js';
import type { Face } from './fonts.js';
import { flate, hex4 } from './pdf-syntax.js';
import type { SubsetState } from './template-compiler.js';
import { pdfWidth } from './text-layout.js';
import { subsetTrueType } from './truetype-subset.js';

// Speed-first: certificates repeat their subsets, so each is deflated once (same bytes: font-streams.test).

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

/** The streams of one subset, made from scratch (the cache's miss path). Leaves `subset` as it is. */
export function makeFontStreams(face: Face, subset: SubsetState): FontStreams {
  const { font } = face;
  // The subsetter appends composite glyphs' components to the lists it is given: give it copies.
  const glyphs = subset.glyphs.slice();
  const fontFile = subsetTrueType(font, { glyphs, index: new Map(subset.index) });
  return {
    baseFont: `/${subsetTag(glyphs)}+${font.postScriptName}`,
    widths: glyphs.map((gid) => pdfWidth(font, gid)).join(' '),
    fontFile: flate(fontFile),
    length1: fontFile.length,
    toUnicode: flate(Buffer.from(toUnicodeCMap(subset.text), 'latin1')),
  };
}

// The subsets made lately in this thread, within a bound in bytes.
const DEFAULT_LIMIT = 4 * 1024 * 1024; // per thread; a Latin subset is about 5 to 10 KB deflated
const ENTRY_OVERHEAD = 200;
const entries = new ByteLru<FontStreams>(DEFAULT_LIMIT);
let hits = 0;
let misses = 0;

// Faces are numbered as first seen: a design's own font is a Face of its own, so the key names
// exactly the font the subset was cut from.
const faceNumbers = new WeakMap<Face, number>();
let nextFaceNumber = 0;

export function fontStreams(face: Face, subset: SubsetState): FontStreams {
  let n = faceNumbers.get(face);
  if (n === undefined) {
    n = nextFaceNumber++;
    faceNumbers.set(face, n);
  }
  // The glyph list fixes the subset (the index maps each glyph to its first place in the list) and
  // the texts fix the CMap; JSON keeps the texts apart whatever characters they hold.
  const key = `${n}|${subset.glyphs.join(',')}|${JSON.stringify(subset.text)}`;
  const known = entries.get(key);
  if (known) {
    hits++;
    return known;
  }
  misses++;
  const streams = makeFontStreams(face, subset);
  const bytes =
    ENTRY_OVERHEAD +
    2 * (key.length + streams.baseFont.length + streams.widths.length) +
    streams.fontFile.length +
    streams.toUnicode.length;
  if (bytes <= entries.limit) {
    // Exactly sized copies: a small Buffer may be a slice of a shared 8 KB pool it would keep alive.
    streams.fontFile = ownCopy(streams.fontFile);
    streams.toUnicode = ownCopy(streams.toUnicode);
    entries.set(key, streams, bytes);
  }
  return streams;
}

function ownCopy(data: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(data.length);
  data.copy(copy);
  return copy;
}

/** For tests and benchmarks: empties the cache and sets its bound in bytes (0 turns it off). */
export function resetFontStreamCache(bytes: number = DEFAULT_LIMIT): void {
  entries.clear();
  hits = 0;
  misses = 0;
  entries.limit = bytes;
}

export function fontStreamCacheStats(): { entries: number; bytes: number; hits: number; misses: number } {
  return { entries: entries.size, bytes: entries.bytes, hits, misses };
}

function toUnicodeCMap(text: string[]): string {
  const lines: string[] = [];
  text.forEach((t, id) => {
    if (!t) return;
    let hex = '';
    for (let i = 0; i < t.length; i++) hex += hex4(t.charCodeAt(i));
    lines.push(`<${hex4(id)}> <${hex}>`);
  });
  let cmap =
    '/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n' +
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n' +
    '/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n';
  for (let i = 0; i < lines.length; i += 100) {
    const block = lines.slice(i, i + 100);
    cmap += `${block.length} beginbfchar\n${block.join('\n')}\nendbfchar\n`;
  }
  return `${cmap}endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n`;
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
