import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createTenant, type TestApp } from '../helpers/app.js';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { DESKTOP, shot, SHOTS } from './support.js';
import { codeAt, PASSWORD, startClockedApp, STEP_MS, type Clock } from './two-factor-support.js';

const skip = browserSkipReason();

describe('two-factor sign-in in Chromium', { skip }, () => {
  let t: TestApp & { clock: Clock };
  let browser: Browser;
  let base: string;
  before(async () => {
    t = await startClockedApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: DESKTOP });
    const page = await context.newPage();
    page.on('pageerror', (err) => {
      throw err;
    });
    return page;
  }
  async function password(page: Page, email: string, next: string | RegExp) {
    await page.goto(`${base}/dashboard`);
    await page.getByLabel('Email address').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await Promise.all([page.waitForURL(next), page.getByRole('button', { name: 'Sign in' }).click()]);
  }
  async function code(page: Page, value: string, next: string | RegExp) {
    await page.getByLabel('Code').fill(value);
    await Promise.all([page.waitForURL(next), page.getByRole('button', { name: 'Sign in' }).click()]);
  }

  it('sets up two-factor on the profile, then signs in with a code of the app and with a recovery code', async () => {
    const tenant = await createTenant(t.deps, { name: 'Lovelace Academy' });
    const email = `tf-browser-${process.pid}-${Date.now()}@academy.test`;
    await t.deps.services.users.create({ accountId: tenant.accountId, email, password: PASSWORD });

    const page = await newPage();
    await password(page, email, `${base}/dashboard`);
    await page.goto(`${base}/dashboard/settings/profile`);
    await Promise.all([
      page.waitForURL(`${base}/dashboard/settings/profile`),
      page.getByRole('button', { name: 'Set up two-factor sign-in' }).click(),
    ]);
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const link = await page.getByTestId('totp-uri').getAttribute('href');
    assert.match(link!, /^otpauth:\/\/totp\/certsvc:.*secret=[A-Z2-7]{32}/);
    await page.getByLabel('Code').fill(codeAt(secret, t.clock.now));
    await Promise.all([
      page.waitForURL(/two-factor\/confirm$/),
      page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click(),
    ]);
    const codes = (await page.getByTestId('recovery-code').allTextContents()).map((c) => c.trim());
    assert.equal(codes.length, 10);
    for (const c of codes) assert.match(c, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
    await shot(page, 'profile-recovery-codes-desktop');
    // A reload shows them no more (and sets nothing up again).
    await page.reload();
    assert.equal(page.url(), `${base}/dashboard/settings/profile`);
    assert.equal(await page.getByTestId('recovery-code').count(), 0);
    assert.match((await page.textContent('#two-factor-state')) ?? '', /Recovery codes left: 10/);
    await page.getByRole('button', { name: 'Sign out' }).click();

    // Password, then the code of the app; the half-way state opens nothing.
    t.clock.move(STEP_MS);
    const second = await newPage();
    await password(second, email, `${base}/dashboard/sign-in/code`);
    await shot(second, 'sign-in-code-desktop');
    await second.goto(`${base}/dashboard/templates`);
    assert.equal(second.url(), `${base}/dashboard`);
    assert.equal(await second.getByRole('heading', { name: 'Sign in to the dashboard' }).count(), 1);
    await second.goto(`${base}/dashboard/sign-in/code`);
    await code(second, '000000', `${base}/dashboard/sign-in/code`);
    assert.match((await second.textContent('#sign-in-error')) ?? '', /The code is not right/);
    await code(second, codeAt(secret, t.clock.now), `${base}/dashboard`);
    assert.match((await second.textContent('h1')) ?? '', /Lovelace Academy/);

    // A recovery code signs in once.
    const third = await newPage();
    await password(third, email, `${base}/dashboard/sign-in/code`);
    await code(third, codes[0]!, `${base}/dashboard`);
    assert.match((await third.textContent('h1')) ?? '', /Lovelace Academy/);
    const fourth = await newPage();
    await password(fourth, email, `${base}/dashboard/sign-in/code`);
    await code(fourth, codes[0]!, `${base}/dashboard/sign-in/code`);
    assert.match((await fourth.textContent('#sign-in-error')) ?? '', /used already/);
  });

  it('offers "Forgot password?" on the sign-in page, answering the same whatever the address', async () => {
    const page = await newPage();
    await page.goto(`${base}/dashboard`);
    await Promise.all([
      page.waitForURL(`${base}/dashboard/forgot-password`),
      page.getByRole('link', { name: 'Forgot password?' }).click(),
    ]);
    await page.getByLabel('Email address').fill(`nobody-${Date.now()}@academy.test`);
    await Promise.all([
      page.waitForURL(`${base}/dashboard/forgot-password`),
      page.getByRole('button', { name: 'Send me a link' }).click(),
    ]);
    assert.match(
      (await page.getByRole('status').textContent()) ?? '',
      /If an account exists for that address, we have sent a link/,
    );
    await shot(page, 'forgot-password-desktop');
  });
});
