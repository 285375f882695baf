import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason } from '../helpers/browser.js';
import {
  createUser,
  signIn,
  startDashboard,
  type DashboardEnv,
  type DashboardUser,
} from '../dashboard/support.js';
import { certificatesInEveryState, type Codes } from './fixtures.js';
import { focusSeen, SIZES, type SizeName } from './support.js';

const skip = browserSkipReason();

// Issue 32, item 4 (WCAG 2.4.7 and 2.4.11): the focus is always visible and never hidden behind a
// sticky or fixed element. The test tabs through long pages (the studio, with its sticky columns on
// a wide window and its fixed "Preview" button on a phone; the certificates list; the verification
// page) and checks, for every element the focus reaches, that its box is inside the window, that
// document.elementFromPoint at its centre is the element (or inside it), and that it has an outline.

interface TabbedPage {
  name: string;
  path: (c: Codes, user: DashboardUser) => string;
  signedIn: boolean;
  ready?: (page: Page) => Promise<void>;
}

const PAGES: TabbedPage[] = [
  {
    name: 'studio',
    path: (_c, u) => `/dashboard/templates/${u.tenant.templateId}/edit`,
    signedIn: true,
    ready: async (page) => {
      await page.waitForSelector('[data-testid=design-canvas][data-state=ready]');
    },
  },
  { name: 'certificates', path: () => '/dashboard/certificates', signedIn: true },
  { name: 'a certificate', path: (c) => `/verify/${c.valid}`, signedIn: false },
];

// Tabs from the top of the page until the focus comes back to where it started (or `max` presses),
// and returns what was wrong with each element on the way.
async function tabThrough(page: Page, max = 250): Promise<{ seen: number; problems: string[] }> {
  const problems: string[] = [];
  let first: string | undefined;
  let seen = 0;
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const focus = await focusSeen(page);
    if (!focus) continue;
    if (focus.what === first) break;
    first ??= focus.what;
    seen++;
    if (!focus.inView) problems.push(`${focus.what}: outside the window ${focus.where}`);
    if (!focus.uncovered) problems.push(`${focus.what}: covered by another element ${focus.where}`);
    if (focus.outline === 'none') problems.push(`${focus.what}: no focus outline`);
  }
  return { seen, problems };
}

describe('accessibility: the focus is visible and never hidden (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  let user: DashboardUser;
  let codes: Codes;
  before(async () => {
    env = await startDashboard({ RATE_LIMIT_MAX: '100000' });
    user = await createUser(env);
    codes = await certificatesInEveryState(env, user);
  });
  after(async () => {
    await env?.close();
  });

  for (const size of Object.keys(SIZES) as SizeName[]) {
    it(`tabbing through long pages, ${size}: every focused element in view, uncovered, outlined`, async () => {
      const phone = size === 'phone';
      const context = await env.browser.newContext({
        viewport: SIZES[size],
        hasTouch: phone,
        isMobile: phone,
      });
      const page = await context.newPage();
      const problems: string[] = [];
      try {
        await signIn(env, page, user);
        for (const p of PAGES) {
          await page.goto(`${env.base}${p.path(codes, user)}`, { waitUntil: 'load' });
          await p.ready?.(page);
          const tabbed = await tabThrough(page);
          assert.ok(tabbed.seen >= 5, `${p.name}: the focus reached ${tabbed.seen} elements`);
          problems.push(...tabbed.problems.map((line) => `${p.name}: ${line}`));
        }
      } finally {
        await context.close();
      }
      assert.deepEqual(problems, []);
    });
  }
});
