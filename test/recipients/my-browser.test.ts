import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, issueCertificate } from '../helpers/app.js';
import { browserSkipReason } from '../helpers/browser.js';
import { newPage, PHONE, shot, signIn, startDashboard, type DashboardEnv } from '../dashboard/support.js';
import { startSmtpServer, type TestSmtpServer } from '../emails/smtp-test-server.js';
import { MAIL_FROM } from '../emails/support.js';
import { mailTo, newAddress, signInLinkOf } from './support.js';

const skip = browserSkipReason();

// "My certificates" in Chromium, as a recipient uses it: the address form, the emailed link, the
// list, and a correction request from it.
describe('My certificates (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  let smtp: TestSmtpServer;
  before(async () => {
    smtp = await startSmtpServer();
    env = await startDashboard({ SMTP_URL: smtp.url, MAIL_FROM, RATE_LIMIT_MAX: '100000' });
  });
  after(async () => {
    await env?.close();
    await smtp?.close();
  });

  it('asks for the link, opens it, sees both accounts’ certificates and requests a correction', async () => {
    const email = newAddress('ada');
    const a = await createTenant(env.t.deps, { name: 'Academy of Engines' });
    const b = await createTenant(env.t.deps, { name: 'School of Looms' });
    const first = await issueCertificate(env.t.app, a, {
      name: 'Ada Lovelce',
      email,
      data: { course: 'Analytical Engines' },
    });
    const second = await issueCertificate(env.t.app, b, {
      name: 'Ada Lovelace',
      email,
      data: { course: 'Looms' },
    });

    const page = await newPage(env, PHONE);
    // Without the link, the list sends the visitor to the form.
    await page.goto(`${env.base}/my/certificates`);
    assert.equal(new URL(page.url()).pathname, '/my');
    await page.getByLabel('Email address').fill(email);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Email me a sign-in link' }).click(),
    ]);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Check your email');

    const link = signInLinkOf(await mailTo(smtp, email, /sign-in link/));
    await page.goto(`${env.base}${link}`);
    assert.equal(new URL(page.url()).pathname, '/my/certificates');
    const cards = page.locator('article[data-code]');
    assert.deepEqual(await cards.evaluateAll((els) => els.map((e) => e.getAttribute('data-code'))), [
      second.uniqueCode,
      first.uniqueCode,
    ]);
    const card = page.locator(`article[data-code="${first.uniqueCode}"]`);
    for (const name of ['Add to your wallet', 'Download badge']) {
      assert.equal(await card.getByRole('button', { name }).count(), 1, name);
    }
    for (const name of ['Download PDF', 'Add to LinkedIn', 'Request a correction']) {
      assert.equal(await card.getByRole('link', { name }).count(), 1, name);
    }
    // The page's styles apply (its CSP allows its one inline style).
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(background, 'rgb(244, 245, 247)');
    await shot(page, 'my-certificates-phone');

    await Promise.all([
      page.waitForNavigation(),
      card.getByRole('link', { name: 'Request a correction' }).click(),
    ]);
    await page.getByLabel('Your name as it should read').fill('Ada Lovelace');
    await page.getByLabel('Note for the issuer').fill('My name is misspelt.');
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Request a correction' }).click(),
    ]);
    assert.match((await page.getByRole('status').textContent()) ?? '', /sent to the issuer/);
    const { rows } = await env.t.deps.db.query(
      'SELECT requested_name, note, via FROM correction_requests WHERE certificate_id = $1',
      [first.id],
    );
    assert.deepEqual(rows, [{ requested_name: 'Ada Lovelace', note: 'My name is misspelt.', via: 'my' }]);

    // The issuer approves it in the dashboard (Certificates > Corrections).
    const owner = {
      email: `owner-${process.pid}-${Date.now()}@academy.test`,
      password: 'correct horse battery staple',
    };
    await env.t.deps.services.users.create({ accountId: a.accountId, ...owner });
    const desk = await newPage(env);
    await signIn(env, desk, owner);
    await desk.goto(`${env.base}/dashboard/certificates`);
    await Promise.all([
      desk.waitForNavigation(),
      desk.getByRole('link', { name: /Correction requests \(1 open\)/ }).click(),
    ]);
    assert.match((await desk.locator('#open-corrections').textContent()) ?? '', /My name is misspelt\./);
    await shot(desk, 'corrections-desktop');
    await Promise.all([desk.waitForNavigation(), desk.getByRole('button', { name: 'Approve' }).click()]);
    assert.match(
      (await desk.locator('.notice.ok').textContent()) ?? '',
      /Approved: the certificate was reissued as [0-9A-Z]{16}/,
    );
    await desk.context().close();
    const corrected = await page.goto(`${env.base}/my/certificates`);
    assert.equal(corrected?.status(), 200);
    assert.equal(await page.locator('article[data-code]').count(), 3);
    assert.match(
      (await page.locator(`article[data-code="${first.uniqueCode}"] .state`).textContent()) ?? '',
      /Replaced/,
    );

    // "Add to your wallet" leads to the claim page of a fresh token.
    await page.goto(`${env.base}/my/certificates`);
    await Promise.all([
      page.waitForURL(/\/claim\/[A-Za-z0-9_-]{43}$/),
      page
        .locator(`article[data-code="${second.uniqueCode}"]`)
        .getByRole('button', { name: 'Add to your wallet' })
        .click(),
    ]);
    await page.context().close();
  });
});
