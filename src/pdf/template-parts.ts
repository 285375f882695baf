import type { Design, RectElement, TextElement } from './design.schema.js';
import type { ImageObjects } from './image-objects.js';
import { num, rgb } from './pdf-syntax.js';
import type { TextBox } from './text-layout.js';

// Small pieces of a compiled template: the operators of rectangles and the background, a text's box,
// and which text is the design's title.

export function rectOps(element: RectElement, pageHeight: number): string {
  const y = pageHeight - element.y - element.height;
  const rect = `${num(element.x)} ${num(y)} ${num(element.width)} ${num(element.height)} re`;
  const fill = element.fill ? `${rgb(element.fill)} rg ` : '';
  const stroke = element.stroke ? `${rgb(element.stroke)} RG ${num(element.strokeWidth ?? 1)} w ` : '';
  const paint = element.fill && element.stroke ? 'B' : element.fill ? 'f' : element.stroke ? 'S' : 'n';
  return `q ${fill}${stroke}${rect} ${paint} Q\n`;
}

export function backgroundOps(design: Design, images: ImageObjects): string {
  const { width, height } = design.page;
  let ops = '';
  if (design.background?.color) {
    ops += `q ${rgb(design.background.color)} rg 0 0 ${num(width)} ${num(height)} re f Q\n`;
  }
  if (design.background?.image) {
    ops += images.place(design.background.image, { x: 0, y: 0, width, height });
  }
  return ops;
}

export function textBox(element: TextElement, metrics: TextBox['metrics']): TextBox {
  return {
    x: element.x,
    y: element.y,
    width: element.width,
    size: element.size ?? 14,
    minSize: element.minSize,
    align: element.align ?? 'left',
    color: element.color ?? '#000000',
    metrics,
  };
}

// The design's title, its H1: the largest text on the first page that is not the recipient's name
// (the first of the largest).
export function titleIndex(design: Design): number {
  let best = -1;
  let size = 0;
  design.elements.forEach((e, i) => {
    if (e.type !== 'text' || (e.page ?? 1) !== 1 || /\{\{\s*recipient\.name\s*\}\}/.test(e.text)) return;
    if ((e.size ?? 14) > size) {
      size = e.size ?? 14;
      best = i;
    }
  });
  return best;
}
