import type { LineElement } from './design.schema.js';
import { num, rgb } from './pdf-syntax.js';

// The `line` element: a horizontal or vertical stroke. Its box is the stroke itself: a horizontal
// line covers x to x + length and y to y + weight (like a thin rect), a vertical one x to x + weight
// and y to y + length.

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function lineBox(line: LineElement): Box {
  const weight = line.weight ?? 1;
  return line.direction === 'vertical'
    ? { x: line.x, y: line.y, width: weight, height: line.length }
    : { x: line.x, y: line.y, width: line.length, height: weight };
}

/**
 * Content-stream operators of a line (y from the top of the page). Dashes are proportional to the
 * weight: dashed 4 on, 2.5 off; dotted round dots one weight wide, two weights apart, inset by half a
 * weight so the first and last dots stay within the line's length.
 */
export function lineOps(line: LineElement, pageHeight: number): string {
  const weight = line.weight ?? 1;
  const dash = line.dash ?? 'solid';
  const inset = dash === 'dotted' ? weight / 2 : 0;
  const vertical = line.direction === 'vertical';
  const across = (vertical ? line.x : line.y) + weight / 2;
  const from = (vertical ? line.y : line.x) + inset;
  const to = (vertical ? line.y : line.x) + line.length - inset;
  const [x1, y1, x2, y2] = vertical
    ? [across, pageHeight - from, across, pageHeight - to]
    : [from, pageHeight - across, to, pageHeight - across];
  const pattern =
    dash === 'dashed'
      ? `[${num(4 * weight)} ${num(2.5 * weight)}] 0 d 0 J `
      : dash === 'dotted'
        ? `[0 ${num(2 * weight)}] 0 d 1 J `
        : '';
  return (
    `q ${rgb(line.color ?? '#000000')} RG ${num(weight)} w ${pattern}` +
    `${num(x1)} ${num(y1)} m ${num(x2)} ${num(y2)} l S Q\n`
  );
}
