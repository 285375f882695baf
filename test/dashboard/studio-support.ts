import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createUser, DESKTOP, signIn, type DashboardEnv } from './support.js';

// What the studio's browser tests share: opening a gallery design in the editor, reading the
// design the editor holds, and waiting for the live preview to be drawn again.

export interface DesignJson {
  page: { width: number; height: number };
  fields: { key: string; label: string; required: boolean }[];
  elements: {
    type: string;
    text?: string;
    x: number;
    y: number;
    width?: number;
    height?: number;
    size?: number;
    color?: string;
    font?: string;
  }[];
}

export async function designOf(page: Page): Promise<DesignJson> {
  return JSON.parse(await page.inputValue('#design-json')) as DesignJson;
}

// Waits until the canvas shows a render newer than the one before `action`. The state is read in
// the same turn as the condition: a later change may start another render at once.
export async function rendered(page: Page, action: () => Promise<unknown>) {
  const before = Number((await page.getAttribute('[data-testid=design-canvas]', 'data-rendered')) ?? 0);
  await action();
  const state = await page.waitForFunction((n) => {
    const area = document.querySelector('[data-testid=design-canvas]') as HTMLElement;
    if (area.dataset.state === 'error') return 'error';
    return area.dataset.state === 'ready' && Number(area.dataset.rendered) > n ? 'ready' : false;
  }, before);
  assert.equal(await state.jsonValue(), 'ready', (await page.textContent('#studio-status')) ?? '');
}

// `viewport` of a phone (narrower than 600 px): a touch screen, as on a phone.
export async function openStudio(env: DashboardEnv, design: string, viewport = DESKTOP) {
  const user = await createUser(env);
  const phone = viewport.width < 600;
  const context = await env.browser.newContext({ viewport, hasTouch: phone, isMobile: phone });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(err.message));
  // Chromium asks for /favicon.ico by itself when a page names no icon; the service serves one
  // (pages-polish.test.ts checks that no page load answers 404), so this filter is only a guard.
  page.on('console', (msg) => {
    const where = msg.location().url;
    if (msg.type() === 'error' && !where.endsWith('/favicon.ico')) problems.push(`${msg.text()} ${where}`);
  });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(`CSP ${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await signIn(env, page, user);
  await page.goto(`${env.base}/dashboard/templates/new`);
  await Promise.all([
    page.waitForURL(/\/dashboard\/templates\/[0-9a-f-]{36}\/edit$/),
    page.getByRole('button', { name: design, exact: true }).click(),
  ]);
  await page.waitForSelector('[data-testid=design-canvas][data-state=ready]');
  return { user, page, problems, close: () => context.close() };
}
