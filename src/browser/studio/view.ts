import type { Studio } from './context.js';

// The canvas stays in view (issue 30, item 7). On a wide window both studio columns stick to the
// top and scroll on their own (studio-view.css); here the canvas is narrowed so that the whole page
// fits in the window under the toolbar. In one column (a phone) it takes the column's width.

/** Room kept under the canvas for the status line (px). */
const UNDER = 48;
/** The canvas is never narrowed below this (px). */
const MIN_WIDTH = 320;

/** Fits the canvas to the window's height (in the two-column layout), or lets it fill its column. */
export function fitCanvas(studio: Studio): void {
  const { area, state } = studio;
  const stage = area.closest<HTMLElement>('.studio-stage');
  if (!stage || getComputedStyle(stage).position !== 'sticky') {
    area.style.maxWidth = '';
    return;
  }
  const above = area.getBoundingClientRect().top - stage.getBoundingClientRect().top + stage.scrollTop;
  // The stage is at most the window's height less 1rem (studio-view.css).
  const room = window.innerHeight - 16 - above - UNDER;
  const { width, height } = state.design.page;
  const widest = Math.max(MIN_WIDTH, Math.floor((room * width) / height));
  const next = `${widest}px`;
  if (area.style.maxWidth !== next) area.style.maxWidth = next;
}

/**
 * Keeps the canvas fitted when the window changes size; and when a panel's input, or an element's
 * box reached with the keyboard, is focused while the canvas is not wholly on screen (the page's
 * heading above it on a short window), scrolls the page to the studio's top, where both columns
 * stick: the canvas and the focused element are then wholly in view (WCAG 2.4.11).
 */
export function wireView(studio: Studio): void {
  const { root, area } = studio;
  // A box only when the keyboard focused it (:focus-visible): a pointer that grabs a box to drag it
  // must not move the page under it.
  root.addEventListener('focusin', (ev) => {
    const target = ev.target as HTMLElement;
    const box = target.closest('.design-layer') && target.matches(':focus-visible');
    if (!box && !target.closest('.studio-side')) return;
    const stage = area.closest<HTMLElement>('.studio-stage');
    if (!stage || getComputedStyle(stage).position !== 'sticky') return;
    const canvas = area.getBoundingClientRect();
    if (canvas.top >= 0 && canvas.bottom <= window.innerHeight) return;
    window.scrollBy(0, root.getBoundingClientRect().top);
    (ev.target as HTMLElement).scrollIntoView({ block: 'nearest' });
  });
  let frame = 0;
  window.addEventListener('resize', () => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => fitCanvas(studio));
  });
  fitCanvas(studio);
}
