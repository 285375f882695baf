import type { Face } from './fonts.js';
import { hexTextString, num, rgb } from './pdf-syntax.js';
import { shapeRun, type ShapedGlyph } from './shaping.js';
import { ISOLATE_END, ISOLATE_START, itemize, type TextRun } from './text-runs.js';
import type { TrueTypeFont } from './truetype-font.js';

// Third and fourth stages: one line of text in a box, measured on the shaped advances, shrunk to
// fit the box width, aligned (left, center and right mean the box's edges whatever the direction),
// and turned into content-stream operators that place every glyph where HarfBuzz put it.

/** Where a glyph goes in the document's subset of a font, with the text it stands for. */
export type GlyphSink = (face: Face, glyphId: number, text: string) => { resource: string; cid: number };

export interface TextBox {
  x: number;
  y: number; // top of the line box, from the top of the page
  width: number;
  size: number;
  minSize?: number | undefined;
  align: 'left' | 'center' | 'right';
  color: string;
  /** The element's design font: its ascent and descent make the line box. */
  metrics: TrueTypeFont;
}

export interface ShapedRun {
  run: TextRun;
  glyphs: ShapedGlyph[];
}

export interface ShapedLine {
  runs: ShapedRun[];
  /** Width at size 1, in points. */
  em: number;
  /** What the runs index: the text with isolates around values. */
  source: string;
  /** The characters of the line in logical order (what a reader copies). */
  text: string;
}

export type TextLayout = { ops: string } | { tooLong: true; fittingSize: number };

/**
 * How a line is tagged (structure-tree.ts): `open` gives the operator that opens a marked-content
 * sequence for the runs from `start`; the runs inside `own` (the recipient's name) get sequences of
 * their own, the others share theirs.
 */
export interface LineTag {
  own?: readonly [number, number];
  open(own: boolean, start: number): string;
}

/**
 * The line's runs, shaped. `cuts` (indices of `text` at isolates) split runs there, so that a value
 * has runs of its own: the glyphs are the same, as words are shaped alone (shaping.ts).
 */
export function shapeLine(
  text: string,
  chain: readonly Face[],
  cuts?: readonly number[],
): ShapedLine | { uncovered: string[] } {
  const itemized = itemize(text, chain);
  if ('uncovered' in itemized) return itemized;
  let em = 0;
  const pieces = cuts ? splitRuns(itemized.runs, cuts) : itemized.runs;
  const runs: ShapedLine['runs'] = [];
  for (const run of pieces) {
    const glyphs = shapeRun(text, run);
    let units = 0;
    for (const g of glyphs) units += g.advance;
    em += units / run.face.font.unitsPerEm;
    runs.push({ run, glyphs });
  }
  return { runs, em, source: text, text: text.replaceAll(ISOLATE_START, '').replaceAll(ISOLATE_END, '') };
}

// Runs split at the cuts inside them, in visual order (a right-to-left run's last piece first).
function splitRuns(runs: readonly TextRun[], cuts: readonly number[]): TextRun[] {
  const out: TextRun[] = [];
  for (const run of runs) {
    const inside = cuts.filter((c) => c > run.start && c < run.end);
    if (inside.length === 0) {
      out.push(run);
      continue;
    }
    const bounds = [run.start, ...inside, run.end];
    const parts = bounds.slice(1).map((end, i) => ({ ...run, start: bounds[i]!, end }));
    out.push(...(run.rtl ? parts.reverse() : parts));
  }
  return out;
}

/** Largest size (2 decimals) at which the line fits the width, capped by `size`. */
export function fittingSize(line: ShapedLine, width: number, size: number): number {
  if (line.em * size <= width) return size;
  return Math.floor((width / line.em) * 100) / 100;
}

/** A glyph's width as written in the font's /W array (whole thousandths of an em). */
export function pdfWidth(font: TrueTypeFont, gid: number): number {
  return Math.round((font.advance(gid) * 1000) / font.unitsPerEm);
}

export function layoutText(
  box: TextBox,
  line: ShapedLine,
  pageHeight: number,
  sink: GlyphSink,
  tag?: LineTag,
): TextLayout {
  if (line.runs.length === 0) return { ops: '' };
  const size = fittingSize(line, box.width, box.size);
  if (size < box.size && (size <= 0 || (box.minSize !== undefined && size < box.minSize)))
    return { tooLong: true, fittingSize: size };
  const textWidth = line.em * size;
  let x =
    box.align === 'center'
      ? box.x + (box.width - textWidth) / 2
      : box.align === 'right'
        ? box.x + box.width - textWidth
        : box.x;
  const y = num(pageHeight - baselineFromTop(box, size));
  let ops = `BT ${rgb(box.color)} rg\n`;
  let resource = '';
  let group: boolean | undefined; // the runs being marked: the name's (true) or not
  for (const { run, glyphs } of line.runs) {
    if (tag) {
      const own = tag.own !== undefined && run.start >= tag.own[0] && run.end <= tag.own[1];
      if (own !== group) {
        if (group !== undefined) ops += 'EMC\n';
        ops += tag.open(own, run.start);
        group = own;
      }
    }
    const { font } = run.face;
    const perUnit = 1000 / font.unitsPerEm;
    const piece = line.source.slice(run.start, run.end);
    const texts = glyphTexts(glyphs, piece, run.rtl);
    const show = new ShowOps();
    let pen = 0; // thousandths of an em: where the PDF's text position is
    let target = 0; // where HarfBuzz's pen is
    for (const [i, g] of glyphs.entries()) {
      const text = texts[i]!;
      const placed = sink(run.face, g.gid, text);
      if (placed.resource !== resource) {
        resource = placed.resource;
        show.operator(`/${resource} ${num(size)} Tf`);
      }
      // Rounded widths drift by less than half a thousandth of an em per glyph: corrected as soon
      // as the drift reaches that much, so that unkerned text needs no adjustments at all.
      const shift = target + g.dx * perUnit - pen;
      if (Math.abs(shift) >= 0.5) {
        show.adjust(-shift);
        pen += shift;
      }
      if (g.dy !== 0) {
        // A raised or lowered mark: text rise around its own show operation.
        show.operator(`${num((g.dy / font.unitsPerEm) * size)} Ts`);
        show.glyph(placed.cid);
        show.operator('0 Ts');
      } else show.glyph(placed.cid);
      pen += pdfWidth(font, g.gid);
      target += g.advance * perUnit;
    }
    const shown = `1 0 0 1 ${num(x)} ${y} Tm ${show.finish()}`;
    // A Nastaliq run's glyphs sit on many baselines: readers take its text from /ActualText.
    ops += run.face.actualText
      ? `/Span << /ActualText ${hexTextString(piece.replace(isolates, ''))} >> BDC ${shown} EMC\n`
      : `${shown}\n`;
    x += (target / 1000) * size;
  }
  if (group !== undefined) ops += 'EMC\n';
  ops += 'ET\n';
  return { ops };
}

// A byte of a literal string: the delimiters and the backslash escaped, and a carriage return (which
// a reader would take for an end of line).
const stringBytes = Array.from({ length: 256 }, (_, b) =>
  b === 0x28 || b === 0x29 || b === 0x5c
    ? `\\${String.fromCharCode(b)}`
    : b === 0x0d
      ? '\\r'
      : String.fromCharCode(b),
);
const stringByte = (b: number): string => stringBytes[b]!;

const isolates = new RegExp(`[${ISOLATE_START}${ISOLATE_END}]`, 'g');

// Collects glyphs and position adjustments into Tj/TJ operators (Tj when nothing is adjusted). The
// glyphs' two-byte codes go in literal strings as bytes (half the size of hex strings: the
// recipient's text is stored in the content stream, not deflated: document-pages.ts).
class ShowOps {
  private out = '';
  private items = '';
  private codes = '';
  private adjusted = false;

  glyph(cid: number): void {
    this.codes += stringByte(cid >> 8) + stringByte(cid & 0xff);
  }

  adjust(thousandths: number): void {
    this.closeCodes();
    this.items += ` ${num(thousandths)}`;
    this.adjusted = true;
  }

  operator(op: string): void {
    this.flush();
    this.out += `${op} `;
  }

  finish(): string {
    this.flush();
    return this.out.trimEnd();
  }

  private closeCodes(): void {
    if (this.codes) this.items += ` (${this.codes})`;
    this.codes = '';
  }

  private flush(): void {
    this.closeCodes();
    const items = this.items.trim();
    if (items) this.out += this.adjusted ? `[${items}] TJ ` : `${items} Tj `;
    this.items = '';
    this.adjusted = false;
  }
}

// The text each glyph stands for (ToUnicode). Reading a PDF, tools take the glyphs in visual order
// (reversing right-to-left lines), so a cluster's characters are handed out to its glyphs in that
// order, one each, the last glyph taking what is left: "कि", drawn as [ि][क], reads back as "कि".
// Glyphs beyond the characters, and marks without advance, stand for nothing.
function glyphTexts(glyphs: ShapedGlyph[], piece: string, rtl: boolean): string[] {
  // Isolates are never glyphs, but the text of the glyph before one runs up to the next glyph.
  const clean = (t: string): string =>
    t.length > 1 && (t.includes(ISOLATE_START) || t.includes(ISOLATE_END))
      ? t.replace(/[\u2068\u2069]/g, '')
      : t;
  if (!rtl && glyphs.every((g, i) => i === 0 || g.cluster > glyphs[i - 1]!.cluster)) {
    // One glyph per cluster, in order: the common case.
    return glyphs.map((g, i) => clean(piece.slice(g.cluster, glyphs[i + 1]?.cluster ?? piece.length)));
  }
  const ends = clusterEnds(glyphs, piece.length);
  const textOf = (cluster: number): string => clean(piece.slice(cluster, ends.get(cluster)));
  const members = new Map<number, number[]>();
  const order = rtl ? [...glyphs.keys()].reverse() : [...glyphs.keys()];
  for (const i of order) {
    const c = glyphs[i]!.cluster;
    const list = members.get(c);
    if (list) list.push(i);
    else members.set(c, [i]);
  }
  const texts = new Array<string>(glyphs.length).fill('');
  for (const [cluster, all] of members) {
    const chars = [...textOf(cluster)];
    // Marks drawn over another glyph (no advance) would read as stray letters: spacing glyphs first.
    const spacing = all.filter((g) => glyphs[g]!.advance > 0);
    const list = spacing.length > 0 ? spacing : all;
    list.forEach((g, k) => {
      if (k < chars.length) texts[g] = k === list.length - 1 ? chars.slice(k).join('') : chars[k]!;
    });
  }
  return texts;
}

const ascending = (a: number, b: number) => a - b;

// Where each cluster's text ends: at the next cluster start (clusters come in any order when
// the run is right to left or reordered).
function clusterEnds(glyphs: ShapedGlyph[], length: number): Map<number, number> {
  const unique = new Set<number>();
  for (const g of glyphs) unique.add(g.cluster);
  const starts = [...unique].sort(ascending);
  const ends = new Map<number, number>();
  for (let i = 0; i < starts.length; i++) ends.set(starts[i]!, starts[i + 1] ?? length);
  return ends;
}

/** Height of the line box of a text element at its nominal size. */
export function lineHeight(font: TrueTypeFont, size: number): number {
  return ((font.ascender - font.descender) * size) / font.unitsPerEm;
}

// The baseline sits one ascent below the top at the nominal size; a shrunk text keeps the vertical
// centre of the nominal line box, so a long name does not drift upwards.
function baselineFromTop(box: TextBox, size: number): number {
  const font = box.metrics;
  const centre = box.y + lineHeight(font, box.size) / 2;
  return centre + ((font.ascender + font.descender) * size) / (2 * font.unitsPerEm);
}
