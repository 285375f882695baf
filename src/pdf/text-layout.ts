import { hex4, num, rgb } from './pdf-syntax.js';
import type { TrueTypeFont } from './truetype-font.js';

// One line of text in a box: measured with the font's advance widths (no kerning, as PDF viewers and
// pdftotext measure it), shrunk to fit the box width, aligned, and turned into content-stream operators.

/** Gives the id of an original glyph inside the document's font subset. */
export type GlyphSink = (glyphId: number, char: string) => number;

export interface TextBox {
  x: number;
  y: number; // top of the line box, from the top of the page
  width: number;
  size: number;
  minSize?: number | undefined;
  align: 'left' | 'center' | 'right';
  color: string;
  font: TrueTypeFont;
  resource: string; // font resource name, e.g. F1
}

export type TextLayout = { ops: string } | { tooLong: true; fittingSize: number };

/** Width of `text` in font units. */
export function advanceWidth(font: TrueTypeFont, text: string): number {
  let width = 0;
  for (const char of text) width += font.advance(font.glyphId(char.codePointAt(0) ?? 0));
  return width;
}

/** Largest size (2 decimals) at which `text` fits the box, capped by the box's own size. */
export function fittingSize(box: Pick<TextBox, 'font' | 'width' | 'size'>, text: string): number {
  const units = advanceWidth(box.font, text);
  const natural = (units * box.size) / box.font.unitsPerEm;
  if (natural <= box.width) return box.size;
  return Math.floor(((box.size * box.width) / natural) * 100) / 100;
}

export function layoutText(box: TextBox, text: string, pageHeight: number, glyph: GlyphSink): TextLayout {
  if (text.length === 0) return { ops: '' };
  const { font } = box;
  let units = 0;
  let hex = '';
  for (const char of text) {
    const gid = font.glyphId(char.codePointAt(0) ?? 0);
    units += font.advance(gid);
    hex += hex4(glyph(gid, char));
  }
  let size = box.size;
  if ((units * size) / font.unitsPerEm > box.width) {
    size = Math.floor(((box.width * font.unitsPerEm) / units) * 100) / 100;
    if (size <= 0 || (box.minSize !== undefined && size < box.minSize))
      return { tooLong: true, fittingSize: size };
  }
  const textWidth = (units * size) / font.unitsPerEm;
  const x =
    box.align === 'center'
      ? box.x + (box.width - textWidth) / 2
      : box.align === 'right'
        ? box.x + box.width - textWidth
        : box.x;
  const baseline = baselineFromTop(box, size);
  return {
    ops: `BT /${box.resource} ${num(size)} Tf ${rgb(box.color)} rg 1 0 0 1 ${num(x)} ${num(pageHeight - baseline)} Tm <${hex}> Tj ET\n`,
  };
}

/** Height of the line box of a text element at its nominal size. */
export function lineHeight(font: TrueTypeFont, size: number): number {
  return ((font.ascender - font.descender) * size) / font.unitsPerEm;
}

// The baseline sits one ascent below the top at the nominal size; a shrunk text keeps the vertical
// centre of the nominal line box, so a long name does not drift upwards.
function baselineFromTop(box: TextBox, size: number): number {
  const { font } = box;
  const centre = box.y + lineHeight(font, box.size) / 2;
  return centre + ((font.ascender + font.descender) * size) / (2 * font.unitsPerEm);
}
