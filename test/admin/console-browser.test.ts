import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant } from '../helpers/app.js';
import { browserSkipReason } from '../helpers/browser.js';
import { shot, startDashboard, type DashboardEnv } from '../dashboard/support.js';
import { codeAt, newOperator, PASSWORD } from './support.js';

const skip = browserSkipReason();

// The operators' console in real Chromium: sign-in, two-factor set-up, suspend and resume.
describe('operators console (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('signs in with two-factor set-up, then suspends and resumes an account by its buttons', async () => {
    const op = await newOperator(env.t);
    const tenant = await createTenant(env.t.deps, { name: 'Browser Suspended Academy' });
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const violations: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') violations.push(msg.text());
    });
    try {
      await page.goto(`${env.base}/admin`);
      await page.getByLabel('Email address').fill(op.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await Promise.all([
        page.waitForURL(`${env.base}/admin/two-factor`),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
      assert.match(
        (await page.getByRole('link', { name: 'Open in an authenticator app' }).getAttribute('href'))!,
        /^otpauth:\/\/totp\//,
      );
      await shot(page, 'admin-two-factor-setup');
      await page.getByLabel('Code').fill(codeAt(secret, new Date()));
      await Promise.all([
        page.waitForURL(`${env.base}/admin`),
        page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click(),
      ]);
      await page.getByRole('link', { name: 'Browser Suspended Academy' }).first().waitFor();
      await shot(page, 'admin-accounts');
      await page.goto(`${env.base}/admin/accounts/${tenant.accountId}`);
      await page.getByRole('button', { name: 'Suspend' }).click();
      await page.getByRole('button', { name: 'Resume' }).waitFor();
      assert.match((await page.getByRole('status').textContent())!, /suspended/);
      await shot(page, 'admin-account-suspended');
      const api = await env.t.app.inject({ method: 'GET', url: '/api/v1/templates', headers: tenant.auth });
      assert.equal(api.statusCode, 403);
      await page.getByRole('button', { name: 'Resume' }).click();
      await page.getByRole('button', { name: 'Suspend' }).waitFor();
      const again = await env.t.app.inject({ method: 'GET', url: '/api/v1/templates', headers: tenant.auth });
      assert.equal(again.statusCode, 200);
      assert.deepEqual(violations, [], 'no console errors (CSP included)');
    } finally {
      await context.close();
    }
  });
});
