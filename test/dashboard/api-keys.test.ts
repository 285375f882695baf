import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason } from '../helpers/browser.js';
import {
  createUser,
  DESKTOP,
  newPage,
  PHONE,
  shot,
  signIn,
  startDashboard,
  type DashboardEnv,
} from './support.js';

const skip = browserSkipReason();

describe('dashboard: sign in and Settings > API keys (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('creates a key shown once, which works on the API until it is revoked', async () => {
    const user = await createUser(env, { name: 'Babbage Academy' });
    const page = await newPage(env);
    await page.goto(`${env.base}/dashboard`);
    await shot(page, 'sign-in-desktop');
    await signIn(env, page, user);
    assert.match((await page.textContent('h1')) ?? '', /Babbage Academy/);
    await shot(page, 'home-desktop');

    await page.goto(`${env.base}/dashboard/settings/api-keys`);
    assert.deepEqual(
      await page.$$eval('input[name=scopes]', (els) =>
        els.map((e) => [(e as HTMLInputElement).value, (e as HTMLInputElement).checked]),
      ),
      [
        ['templates:read', true],
        ['certificates:read', true],
        ['certificates:write', true],
        ['audit:read', false],
      ],
    );
    await page.fill('input[name=name]', 'LMS production');
    await Promise.all([
      page.waitForURL(/api-keys$/),
      page.click('form[action="/dashboard/settings/api-keys"] button[type=submit]'),
    ]);
    const key = (await page.textContent('[data-testid="new-api-key"]'))?.trim() ?? '';
    assert.match(key, /^svc_live_[A-Za-z0-9]{32}$/);
    assert.match((await page.textContent('.newkey')) ?? '', /shown only this once/);
    await shot(page, 'api-keys-new-desktop');

    const usage = await fetch(`${env.base}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(usage.status, 200);

    await page.reload();
    assert.equal(await page.$('[data-testid="new-api-key"]'), null);
    const content = await page.content();
    assert.ok(!content.includes(key), 'the full key is shown again after a reload');
    const row = page.locator('tr', { hasText: 'LMS production' });
    assert.equal(
      (await row.locator('.key-prefix').textContent())?.trim(),
      key.slice(0, 'svc_live_'.length + 8),
    );
    assert.match((await row.textContent()) ?? '', /certificates:write/);
    assert.doesNotMatch((await row.locator('td').nth(4).textContent()) ?? '', /never/);

    await Promise.all([page.waitForURL(/revoke$/), row.getByRole('link', { name: /Revoke/ }).click()]);
    await shot(page, 'api-keys-revoke-desktop');
    await page.setViewportSize(PHONE);
    await shot(page, 'api-keys-revoke-phone');
    await page.setViewportSize(DESKTOP);
    await Promise.all([page.waitForURL(/api-keys$/), page.click('button.danger')]);
    assert.match((await page.textContent('.notice.ok')) ?? '', /revoked/);
    const refused = await fetch(`${env.base}/api/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'invalid_api_key');
    await shot(page, 'api-keys-desktop');
    await page.context().close();
  });

  it('refuses a form post without the CSRF token and creates nothing', async () => {
    const user = await createUser(env);
    const page = await newPage(env);
    await signIn(env, page, user);
    const before = await env.t.deps.services.keys.list(user.tenant.accountId);
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const res = await fetch(`${env.base}/dashboard/settings/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: 'name=sneaky&scopes=certificates%3Awrite',
      redirect: 'manual',
    });
    const status = res.status;
    assert.match(await res.text(), /This form has expired/);
    assert.equal(status, 403);
    assert.deepEqual(await env.t.deps.services.keys.list(user.tenant.accountId), before);
    await page.context().close();
  });

  it('redirects signed-out requests to sign-in, signs out, and throttles repeated wrong passwords', async () => {
    const user = await createUser(env);
    const page = await newPage(env, PHONE);
    for (const path of ['/dashboard/settings/api-keys', '/dashboard/certificates', '/dashboard/nowhere']) {
      const res = await fetch(`${env.base}${path}`, { redirect: 'manual' });
      assert.equal(res.status, 303, path);
      assert.equal(res.headers.get('location'), '/dashboard', path);
    }
    await page.goto(`${env.base}/dashboard/settings/api-keys`);
    assert.equal(new URL(page.url()).pathname, '/dashboard');
    assert.ok(await page.$('input[name=email]'));
    await shot(page, 'sign-in-phone');

    await signIn(env, page, user);
    await shot(page, 'home-phone');
    await page.goto(`${env.base}/dashboard/settings/api-keys`);
    await shot(page, 'api-keys-phone');
    await Promise.all([page.waitForURL(`${env.base}/dashboard`), page.click('text=Sign out')]);
    assert.ok(await page.$('input[name=password]'), 'signed out: the sign-in form again');
    await page.goto(`${env.base}/dashboard/settings/api-keys`);
    assert.equal(new URL(page.url()).pathname, '/dashboard');

    // A fresh address: five attempts per address in 15 minutes, right or wrong.
    const other = await createUser(env);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      await page.goto(`${env.base}/dashboard`);
      await page.fill('input[name=email]', other.email);
      await page.fill('input[name=password]', i < 5 ? 'wrong password!' : other.password);
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/sign-in')),
        page.click('button[type=submit]'),
      ]);
      statuses.push(response.status());
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429]);
    assert.match((await page.textContent('#sign-in-error')) ?? '', /Too many sign-in attempts/);
    await shot(page, 'sign-in-throttled-phone');
    await page.context().close();
  });

  it('labels every input and starts the keyboard tab order with a skip link to the content', async () => {
    const user = await createUser(env);
    const page = await newPage(env);
    await signIn(env, page, user);
    for (const path of [
      '/dashboard',
      '/dashboard/settings/api-keys',
      '/dashboard/certificates',
      `/dashboard/certificates/new?templateId=${user.tenant.templateId}`,
      `/dashboard/certificates/upload?templateId=${user.tenant.templateId}`,
    ]) {
      await page.goto(`${env.base}${path}`);
      const unlabelled = await page.$$eval('input:not([type=hidden]), select, textarea', (els) =>
        els.filter((e) => (e as HTMLInputElement).labels?.length === 0).map((e) => e.outerHTML),
      );
      assert.deepEqual(unlabelled, [], path);
      assert.equal(await page.getAttribute('html', 'lang'), 'en');
      await page.keyboard.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content', path);
      await page.keyboard.press('Enter');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'main', path);
    }
    await page.context().close();
  });
});
