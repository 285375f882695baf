import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason } from '../helpers/browser.js';
import { createUser, startDashboard, type DashboardEnv } from '../dashboard/support.js';
import { tabTo } from './support.js';

const skip = browserSkipReason();

// Issue 32, item 4 (WCAG 2.1.1): the whole issue-one-certificate flow with the keyboard alone, in
// Chromium. After the first address is opened, the test only uses page.keyboard: Tab to move,
// typing, Enter and Space to act. Nothing is clicked, nothing is filled by the test's hand.

describe('accessibility: issuing one certificate with the keyboard alone (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('signs in, reaches the issue form, fills it, issues, and reaches the certificate', async () => {
    const user = await createUser(env);
    const context = await env.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const keys = page.keyboard;
    try {
      await page.goto(`${env.base}/dashboard`);
      // Sign in: the email, the password, Enter.
      await tabTo(page, 'input[name=email]');
      await keys.type(user.email);
      await keys.press('Tab');
      await keys.type(user.password);
      await Promise.all([page.waitForURL(`${env.base}/dashboard`), keys.press('Enter')]);
      await page.waitForSelector('a[href="/dashboard/certificates/new"]');

      // Home: "Issue a certificate".
      await tabTo(page, 'a[href="/dashboard/certificates/new"]');
      await Promise.all([page.waitForURL(/\/dashboard\/certificates\/new$/), keys.press('Enter')]);

      // The template: its list has the account's one template chosen; "Choose" with Space.
      await tabTo(page, 'select[name=templateId]');
      await keys.press('Tab');
      await Promise.all([page.waitForURL(/templateId=/), keys.press('Space')]);

      // The form: name, email, the course; the expiry left empty; Enter on the button.
      await tabTo(page, 'input[name=name]');
      await keys.type('Ada Lovelace');
      await keys.press('Tab');
      await keys.type('ada@example.com');
      await keys.press('Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'data.course');
      await keys.type('Analytical Engines');
      await tabTo(page, 'button[type=submit]:not([form])');
      assert.equal(
        await page.evaluate(() => document.activeElement?.textContent?.trim()),
        'Issue the certificate',
      );
      await Promise.all([page.waitForURL(/\/dashboard\/certificates\/[0-9a-f-]{36}$/), keys.press('Enter')]);

      // The certificate's page, and the certificate itself.
      assert.match((await page.textContent('h1')) ?? '', /Ada Lovelace/);
      const list = await env.t.deps.services.certificates.list(user.tenant.accountId, {});
      assert.equal(list.pagination.total, 1);
      assert.equal(list.data[0]!.recipientName, 'Ada Lovelace');
      assert.ok(page.url().endsWith(`/dashboard/certificates/${list.data[0]!.id}`));
    } finally {
      await context.close();
    }
  });
});
