import type { ImageElement } from '../../pdf/design.schema.js';
import type { StudioState } from './state.js';

// What the studio's panels share: the page's parts, the state, and the few actions one panel asks
// of another (main.ts wires them).
export interface Studio {
  root: HTMLElement;
  /** The design canvas (data-testid="design-canvas"): the preview, with the boxes layer over it. */
  area: HTMLElement;
  layer: HTMLElement;
  textarea: HTMLTextAreaElement;
  status: HTMLElement;
  csrf: string;
  /** The font names a text may use: the bundled ones, then the design's own. */
  fonts: string[];
  state: StudioState;
  /** Selects element i (-1: none) and redraws what shows the selection. */
  select(i: number): void;
  /** Redraws the boxes layer (while dragging). */
  drawBoxes(): void;
  /** Asks for a new preview (soon). */
  schedule(): void;
  /** Screen pixels per point. */
  scale(): number;
  /** Uploads an image and puts it in the image element. */
  replaceImage(e: ImageElement, file: File): Promise<void>;
}

export const $ = <T extends Element>(root: ParentNode, selector: string) => root.querySelector(selector) as T;

/** The element's box in the boxes layer, if drawn. */
export function focusBox(studio: Studio, i: number): void {
  (studio.layer.children[i] as HTMLElement | undefined)?.focus();
}
