import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { launchBrowser } from '../helpers/browser.js';

export const SHOTS = path.resolve('.tmp/screenshots/dashboard');
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export interface DashboardEnv {
  t: TestApp;
  browser: Browser;
  base: string;
  close(): Promise<void>;
}

export async function startDashboard(env: Record<string, string> = {}): Promise<DashboardEnv> {
  const t = await startTestApp(env);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = t.app.server.address() as AddressInfo;
  const browser = await launchBrowser();
  mkdirSync(SHOTS, { recursive: true });
  return {
    t,
    browser,
    base: `http://127.0.0.1:${port}`,
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

export interface DashboardUser {
  tenant: Tenant;
  email: string;
  password: string;
}

let counter = 0;

// An account with a key and the sample template, and a dashboard user of it.
export async function createUser(env: DashboardEnv, opts: { name?: string; monthlyLimit?: number } = {}) {
  const tenant = await createTenant(env.t.deps, opts);
  const email = `user${process.pid}-${Date.now()}-${++counter}@academy.test`;
  const password = 'correct horse battery staple';
  await env.t.deps.services.users.create({ accountId: tenant.accountId, email, password });
  return { tenant, email, password } satisfies DashboardUser;
}

export async function newPage(env: DashboardEnv, viewport = DESKTOP): Promise<Page> {
  const context = await env.browser.newContext({ viewport });
  const page = await context.newPage();
  page.on('pageerror', (err) => {
    throw err;
  });
  return page;
}

export async function signIn(env: DashboardEnv, page: Page, user: { email: string; password: string }) {
  await page.goto(`${env.base}/dashboard`);
  await page.fill('input[name=email]', user.email);
  await page.fill('input[name=password]', user.password);
  await Promise.all([page.waitForURL(`${env.base}/dashboard`), page.click('button[type=submit]')]);
}

export async function shot(page: Page, name: string) {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}
