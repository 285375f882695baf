import type { Design, LineElement, Signatory, SignatoryElement } from './design.schema.js';
import type { ImageObjects } from './image-objects.js';
import { lineOps } from './lines.js';
import { artifact } from './structure-tree.js';
import { lineHeight, type TextBox } from './text-layout.js';
import type { TrueTypeFont } from './truetype-font.js';

// The `signatory` element: one of the template's signatories as a block, from the bottom up: the
// name, title and organisation lines (title and organisation at 85% of the name's size) at the
// bottom, a thin line above them, and the signature image above the line, at its natural
// proportions, fitted into the room left. All of it is the template's, so it is drawn once per
// template (template-compiler.ts); the design check (design-issues.ts) uses the same layout.

export const SIGNATORY_SIZE = 12;
export const TITLE_SCALE = 0.85;

export interface SignatoryLayout {
  /** The signature image's box at its natural proportions, standing on the line; absent when no room. */
  image?: { x: number; y: number; width: number; height: number };
  rule: LineElement;
  lines: { text: string; box: TextBox }[];
  /** The height the line and the texts need: a block less tall cannot hold them. */
  needed: number;
}

export function signatoryTexts(signatory: Signatory): string[] {
  return [signatory.name, signatory.title ?? '', signatory.organisation ?? '']
    .map((t) => t.normalize('NFC'))
    .filter((t, i) => i === 0 || t.trim() !== '');
}

export function signatoryLayout(
  element: SignatoryElement,
  signatory: Signatory,
  metrics: TrueTypeFont,
  imageSize?: { width: number; height: number },
): SignatoryLayout {
  const size = element.size ?? SIGNATORY_SIZE;
  const align = element.align ?? 'center';
  const color = element.color ?? '#000000';
  const texts = signatoryTexts(signatory).map((text, i) => ({
    text,
    size: i === 0 ? size : size * TITLE_SCALE,
  }));
  const textHeight = texts.reduce((sum, t) => sum + lineHeight(metrics, t.size), 0);
  const weight = Math.max(0.5, size / 16);
  const gap = size * 0.3;
  const needed = weight + gap + textHeight;
  const ruleY = element.y + element.height - needed;
  let top = ruleY + weight + gap;
  const lines = texts.map((t) => {
    const box: TextBox = { x: element.x, y: top, width: element.width, size: t.size, align, color, metrics };
    top += lineHeight(metrics, t.size);
    return { text: t.text, box };
  });
  const rule: LineElement = { type: 'line', x: element.x, y: ruleY, length: element.width, weight, color };
  const layout: SignatoryLayout = { rule, lines, needed };
  const room = ruleY - gap - element.y;
  if (imageSize && room > 0 && imageSize.width > 0 && imageSize.height > 0) {
    const scale = Math.min(element.width / imageSize.width, room / imageSize.height);
    const width = imageSize.width * scale;
    const height = imageSize.height * scale;
    const x =
      align === 'left'
        ? element.x
        : align === 'right'
          ? element.x + element.width - width
          : element.x + (element.width - width) / 2;
    layout.image = { x, y: ruleY - gap - height, width, height };
  }
  return layout;
}

/** The block's operators: the image through the template's images, the texts as its static texts. */
export function signatoryOps(
  element: SignatoryElement,
  design: Pick<Design, 'signatories' | 'page'>,
  metrics: TrueTypeFont,
  draw: {
    images: ImageObjects;
    text: (text: string, box: TextBox) => string;
    /** The signature image, tagged as a figure with its alternative text. */
    figure: (ops: string, alt: string, at: { x: number; y: number }) => string;
  },
): string {
  const signatory = design.signatories?.[element.index - 1];
  if (!signatory) throw new Error(`the design has no signatory ${element.index}`);
  const src = signatory.signatureImage;
  const block = signatoryLayout(element, signatory, metrics, src ? draw.images.size(src) : undefined);
  let ops =
    src && block.image
      ? draw.figure(draw.images.place(src, block.image), `Signature of ${signatory.name}`, block.image)
      : '';
  ops += artifact(lineOps(block.rule, design.page.height));
  for (const { text, box } of block.lines) ops += draw.text(text, box);
  return ops;
}
