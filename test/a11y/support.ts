import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

// What the accessibility tests share (issue 32, item 4; docs/accessibility.md): the WCAG 2.2 A and
// AA rules of axe-core, the two window sizes, and a report of the violations a page has.

/** The tags of the rules axe runs: WCAG 2.0, 2.1 and 2.2, levels A and AA (target-size is wcag22aa). */
export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

export const SIZES = {
  phone: { width: 375, height: 812 },
  desktop: { width: 1440, height: 900 },
} as const;
export type SizeName = keyof typeof SIZES;

export interface AxeResult {
  /** One line per violation and element: rule, impact, target, what axe says. */
  violations: string[];
  /** The ids of the rules that ran (so a test can show that target-size did). */
  ran: string[];
}

/**
 * Runs axe over the page. `targetSizeExempt` names elements checked by every rule but target-size:
 * the studio's element boxes, drawn at the size of the design's elements (a thin line, small text,
 * overlapping one another as the design does), which WCAG 2.5.8 exempts twice over: their size is
 * essential to what they show, and the Elements list beside them selects the same elements with
 * buttons that pass (its buttons are checked with everything else).
 */
export async function axeCheck(page: Page, opts: { targetSizeExempt?: string } = {}): Promise<AxeResult> {
  const exempt = opts.targetSizeExempt;
  const whole = new AxeBuilder({ page }).withTags(WCAG_TAGS);
  if (exempt) whole.exclude(exempt);
  const results = await whole.analyze();
  if (exempt && (await page.locator(exempt).count()) > 0) {
    const rest = await new AxeBuilder({ page })
      .withTags(WCAG_TAGS)
      .include(exempt)
      .disableRules(['target-size'])
      .analyze();
    results.violations.push(...rest.violations);
  }
  const violations = results.violations.flatMap((v) =>
    v.nodes.map(
      (n) => `${v.id} (${v.impact ?? '?'}) ${n.target.join(' ')}: ${n.failureSummary?.replace(/\s+/g, ' ')}`,
    ),
  );
  const ran = [...results.passes, ...results.violations, ...results.incomplete, ...results.inapplicable].map(
    (r) => r.id,
  );
  return { violations, ran };
}

/**
 * The violations found, one line per page, rule and element, with the languages (or sizes) they
 * were found in: `found` maps "where: violation" to the list of variants.
 */
export function report(found: Map<string, string[]>): string[] {
  return [...found].map(([line, variants]) => `${line} [${variants.join(' ')}]`);
}

export function note(found: Map<string, string[]>, where: string, variant: string, violations: string[]) {
  for (const v of violations) {
    const key = `${where}: ${v}`;
    found.set(key, [...(found.get(key) ?? []), variant]);
  }
}

/** What the focused element is: its tag, id or name, text, and whether it shows a focus outline. */
export interface FocusSeen {
  what: string;
  /** Its box and what is at its centre, to say what went wrong. */
  where: string;
  /** Its box is inside the window. */
  inView: boolean;
  /** document.elementFromPoint at its centre is the element or inside it (nothing sticky covers it). */
  uncovered: boolean;
  /** The outline drawn around it (style and width), or 'none'. */
  outline: string;
}

// Where the focus is now, as the tests of item 2 check it.
export function focusSeen(page: Page): Promise<FocusSeen | undefined> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body || el === document.documentElement) return undefined;
    const r = el.getBoundingClientRect();
    const w = window.innerWidth;
    const h = window.innerHeight;
    const inView = r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= h && r.right <= w;
    // A box taller or wider than the window cannot be inside it: its centre must be.
    // A link that wraps onto two lines: the centre of its first line's box.
    const c = el.getClientRects().length > 1 ? el.getClientRects()[0]! : r;
    const cx = Math.min(Math.max(c.left + c.width / 2, 0), w - 1);
    const cy = Math.min(Math.max(c.top + c.height / 2, 0), h - 1);
    const hit = document.elementFromPoint(cx, cy);
    // A label's text is the input's own target (a file input drawn inside its label).
    const uncovered =
      !!hit && (hit === el || el.contains(hit) || (hit as HTMLElement).closest?.('label')?.control === el);
    const style = getComputedStyle(el);
    const outline = style.outlineStyle === 'none' ? 'none' : `${style.outlineStyle} ${style.outlineWidth}`;
    const label =
      el.id ||
      el.getAttribute('name') ||
      el.getAttribute('aria-label') ||
      el.textContent?.trim().slice(0, 40) ||
      '';
    const big = r.height > h || r.width > w;
    const where = `[${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}x${Math.round(r.height)} in ${w}x${h}; at its centre: ${hit?.tagName.toLowerCase()}.${hit?.className}]`;
    return { what: `${el.tagName.toLowerCase()} ${label}`, where, inView: inView || big, uncovered, outline };
  });
}

/** Presses Tab until the focused element matches `selector` (at most `max` presses). */
export async function tabTo(page: Page, selector: string, max = 80): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
  }
  throw new Error(`Tab never reached ${selector} in ${max} presses (on ${page.url()})`);
}
