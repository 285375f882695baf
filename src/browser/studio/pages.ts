import type { Design, DesignElement } from '../../pdf/design.schema.js';
import type { Studio } from './context.js';

// A second page (issue 30, item 10): "Add page", "Remove page 2" and the page switcher. The page
// shown is the studio's, not the design's: the canvas draws that page of the preview and the boxes
// of its elements; an element added while page 2 is shown goes on page 2.

let shown = 1;

/** The page an element is drawn on. */
export const pageOf = (e: DesignElement): number => e.page ?? 1;

/** The page the canvas shows (1 or 2). */
export const shownPage = (): number => shown;

/** Puts a new element on the page shown. */
export function onShownPage<T extends DesignElement>(e: T): T {
  if (shown === 2 && e.type !== 'table') e.page = 2;
  return e;
}

/** Shows page `n` on the canvas. */
export function showPage(studio: Studio, n: number): void {
  shown = n;
  drawPages(studio);
  studio.drawBoxes();
  studio.schedule();
}

/** The design with its second page removed, with the elements on it. */
export function withoutPage2(design: Design): void {
  delete design.pages;
  design.elements = design.elements.filter((e) => pageOf(e) !== 2);
}

// Reads the toolbar's page buttons.
const part = <T extends HTMLElement>(studio: Studio, selector: string) =>
  studio.root.querySelector<T>(selector);

/** The page buttons follow the design: "Add page" while it has one, the switcher when two. */
export function drawPages(studio: Studio): void {
  const two = (studio.state.design.pages ?? 1) === 2;
  if (!two) shown = 1;
  const add = part<HTMLButtonElement>(studio, '[data-action=add-page]');
  if (add) add.disabled = two;
  const remove = part<HTMLButtonElement>(studio, '[data-action=remove-page]');
  if (remove) remove.hidden = !two;
  const switcher = part<HTMLElement>(studio, '.studio-pages');
  if (switcher) switcher.hidden = !two;
  studio.root.querySelectorAll<HTMLButtonElement>('[data-show-page]').forEach((b) => {
    b.setAttribute('aria-pressed', String(Number(b.dataset.showPage) === shown));
  });
}

export function wirePages(studio: Studio): void {
  const { root, state } = studio;
  root.addEventListener('click', (ev) => {
    const target = (ev.target as HTMLElement).closest<HTMLElement>('[data-action], [data-show-page]');
    if (!target) return;
    if (target.dataset.showPage) showPage(studio, Number(target.dataset.showPage));
    else if (target.dataset.action === 'add-page') {
      state.commit(() => (state.design.pages = 2));
      showPage(studio, 2);
    } else if (target.dataset.action === 'remove-page') removePage2(studio);
  });
}

// Asks first when page 2 holds elements: they go with it (one undo step).
function removePage2(studio: Studio): void {
  const { state } = studio;
  const count = state.design.elements.filter((e) => pageOf(e) === 2).length;
  const question =
    count === 0
      ? 'Remove page 2?'
      : `Remove page 2 and the ${count === 1 ? 'element' : `${count} elements`} on it? Undo brings them back.`;
  if (!window.confirm(question)) return;
  state.commit(() => withoutPage2(state.design));
  studio.select(-1);
  showPage(studio, 1);
}
