import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason } from '../helpers/browser.js';
import {
  createUser,
  newPage,
  shot,
  signIn,
  startDashboard,
  type DashboardEnv,
} from '../dashboard/support.js';
import { linkInMail } from './support.js';

const skip = browserSkipReason();

// Issue 29 in real Chromium: the owner invites a colleague as issuer; the colleague accepts the link
// from the .eml the server wrote, is signed in, issues one certificate, cannot open Settings > Team;
// the owner removes them, and their open session is refused at its next click.
describe('team: invite, accept, issue, remove (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('walks the whole life of a colleague', async () => {
    const owner = await createUser(env);
    const { accountId, templateId } = owner.tenant;
    const ownerPage = await newPage(env);
    await signIn(env, ownerPage, owner);
    await ownerPage.goto(`${env.base}/dashboard/settings/team`);
    const colleague = `colleague-${process.pid}-${Date.now()}@academy.test`;
    const form = ownerPage.locator('#invite-form');
    await form.getByLabel('Email address').fill(colleague);
    await form.getByLabel('Role').selectOption('issuer');
    await Promise.all([
      ownerPage.waitForLoadState('load'),
      form.getByRole('button', { name: 'Invite' }).click(),
    ]);
    await ownerPage.locator(`#team-invitations tr[data-email="${colleague}"]`).waitFor();
    await shot(ownerPage, 'team-invited-desktop');

    // The colleague opens the link of the .eml, chooses a password and is signed in.
    const link = await linkInMail(env.t.deps.config.dataDir, colleague);
    const page = await newPage(env);
    await page.goto(`${env.base}${link}`);
    assert.equal(await page.textContent('#invited-email'), colleague);
    await page.getByLabel('New password').fill('a long enough password');
    await Promise.all([
      page.waitForURL(`${env.base}/dashboard`),
      page.getByRole('button', { name: 'Accept and sign in' }).click(),
    ]);
    assert.match((await page.textContent('.notice.ok')) ?? '', /joined as issuer/);

    // They issue one certificate from the dashboard's form.
    await page.goto(`${env.base}/dashboard/certificates/new?templateId=${templateId}`);
    await page.fill('input[name=name]', 'Ada Lovelace');
    await page.fill('input[name=email]', 'ada@example.com');
    await page.fill('input[name="data.course"]', 'Analytical Engines');
    await Promise.all([
      page.waitForURL(/certificates\/[0-9a-f-]{36}$/),
      page.click('button[type=submit]:has-text("Issue the certificate")'),
    ]);
    const list = await env.t.deps.services.certificates.list(accountId, {});
    assert.equal(list.pagination.total, 1);

    // Settings > Team is not theirs: 403, and nothing changed.
    const users = async () =>
      (await env.t.deps.db.query('SELECT id, role FROM users WHERE account_id = $1 ORDER BY id', [accountId]))
        .rows;
    const before = await users();
    const refused = await page.goto(`${env.base}/dashboard/settings/team`);
    assert.equal(refused?.status(), 403);
    assert.match((await page.textContent('#error-message')) ?? '', /Issuer/);
    assert.deepEqual(await users(), before);
    await page.goto(`${env.base}/dashboard/certificates`);

    // The owner removes them, after confirming.
    await ownerPage.goto(`${env.base}/dashboard/settings/team`);
    const row = ownerPage.locator(`#team-members tr[data-email="${colleague}"]`);
    await Promise.all([ownerPage.waitForURL(/\/remove$/), row.getByRole('link', { name: /Remove/ }).click()]);
    await Promise.all([
      ownerPage.waitForURL(`${env.base}/dashboard/settings/team`),
      ownerPage.getByRole('button', { name: 'Remove' }).click(),
    ]);
    assert.match((await ownerPage.textContent('.notice.ok')) ?? '', /is removed/);
    assert.equal(await ownerPage.locator(`#team-members tr[data-email="${colleague}"]`).count(), 0);

    // Their open page is refused at the next click: back at sign-in.
    await Promise.all([page.waitForLoadState('load'), page.getByRole('link', { name: 'Templates' }).click()]);
    assert.equal(page.url(), `${env.base}/dashboard`);
    assert.ok(await page.$('form[action="/dashboard/sign-in"]'));
  });
});
