import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { png } from '../helpers/hostile-files.js';
import { createUser, newPage, signIn, startDashboard, type DashboardEnv } from '../dashboard/support.js';

// Settings > Organisation in real Chromium: rename the organisation and give it a logo, shown back.

let env: DashboardEnv;
before(async () => {
  env = await startDashboard();
});
after(async () => {
  await env.close();
});

describe('Settings > Organisation in a browser', () => {
  it('renames the organisation and uploads a logo the page shows back', async () => {
    const user = await createUser(env, { name: 'Demo Academy' });
    const page = await newPage(env);
    await signIn(env, page, user);
    await page.goto(`${env.base}/dashboard/settings/organisation`);
    assert.equal(await page.getByLabel('Display name').inputValue(), 'Demo Academy');
    await page.getByLabel('Display name').fill('Northwind Academy');
    await page.getByLabel('Website').fill('https://northwind.example');
    await page.getByLabel('Contact email').fill('office@northwind.example');
    await page.getByLabel('Default language').selectOption('de');
    await page.getByLabel('Logo').setInputFiles({
      name: 'logo.png',
      mimeType: 'image/png',
      buffer: png({ width: 40, height: 20 }),
    });
    await Promise.all([
      page.waitForURL(/\/settings\/organisation$/),
      page.getByRole('button', { name: 'Save' }).click(),
    ]);
    await page.getByText('Organisation saved.').waitFor();
    assert.equal(await page.getByLabel('Display name').inputValue(), 'Northwind Academy');
    // The header names the organisation by its new name at once.
    assert.ok((await page.locator('header').innerText()).includes('Northwind Academy'));
    const logo = page.getByAltText('Current logo');
    await logo.waitFor();
    assert.equal(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), 40);
    const account = await env.t.deps.services.accounts.get(user.tenant.accountId);
    assert.equal(account.name, 'Northwind Academy');
    assert.equal(account.defaultLanguage, 'de');
    assert.equal(account.logo?.type, 'image/png');
  });
});
