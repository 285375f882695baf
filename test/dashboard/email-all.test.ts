import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import type { Design } from '../../src/pdf/design.schema.js';
import { browserSkipReason } from '../helpers/browser.js';
import { createUser, newPage, shot, signIn, startDashboard, type DashboardEnv } from './support.js';

const skip = browserSkipReason();

// Issue 19 part 5 in the dashboard: an upload's results page offers "Email all created" for a
// template without emailOnIssue (once); an upload from a template with it says they were emailed.
describe('dashboard: email all created (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  const csv =
    'name,email,course\nAda Lovelace,ada@example.com,Engines\nGrace Hopper,grace@example.com,COBOL\n';

  async function upload(page: Page, templateId: string) {
    await page.goto(`${env.base}/dashboard/certificates/upload?templateId=${templateId}`);
    await page.setInputFiles('input[name=file]', {
      name: 'learners.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    });
    await Promise.all([
      page.waitForURL(/upload\/results\/[0-9a-f-]{36}$/),
      page.click('text=Upload and issue'),
    ]);
    assert.equal(await page.textContent('#created-count'), '2');
  }

  async function emailCounts(accountId: string): Promise<number[]> {
    const list = await env.t.deps.services.certificates.list(accountId, { perPage: 100 });
    return list.data.map((c) => c.emailCount);
  }

  it('queues every created certificate once from the results page', async () => {
    const user = await createUser(env);
    const page = await newPage(env);
    await signIn(env, page, user);
    await upload(page, user.tenant.templateId);
    const resultsUrl = page.url();
    const csrf = await page.inputValue('#email-all input[name=_csrf]');
    await Promise.all([page.waitForNavigation(), page.click('button:has-text("Email all created")')]);
    assert.match((await page.textContent('.notice.ok')) ?? '', /2 certificates queued for email/);
    assert.equal(await page.$('#email-all'), null);
    assert.ok(await page.$('#emailed'));
    await shot(page, 'upload-emailed-desktop');
    assert.deepEqual(await emailCounts(user.tenant.accountId), [1, 1]);

    // A replay of the form (same session and token) queues nothing more.
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const replay = await fetch(`${resultsUrl}/email`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: `_csrf=${encodeURIComponent(csrf)}`,
      redirect: 'manual',
    });
    assert.equal(replay.status, 303);
    await page.goto(resultsUrl);
    assert.match((await page.textContent('.notice.error')) ?? '', /emailed already/);
    assert.deepEqual(await emailCounts(user.tenant.accountId), [1, 1]);
    // Without the token: refused.
    const forged = await fetch(`${resultsUrl}/email`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });
    assert.equal(forged.status, 403);
    await page.context().close();
  });

  it('an upload from a template with emailOnIssue was emailed with the issue: no button', async () => {
    const user = await createUser(env);
    const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
    const template = await env.t.deps.services.templates.create(SYSTEM, user.tenant.accountId, {
      ...design,
      name: 'Emailed on issue',
      emailOnIssue: true,
    });
    const page = await newPage(env);
    await signIn(env, page, user);
    await upload(page, template.id);
    assert.equal(await page.$('#email-all'), null);
    assert.match((await page.textContent('#emailed')) ?? '', /queued for email/);
    assert.deepEqual(await emailCounts(user.tenant.accountId), [1, 1]);
    await page.context().close();
  });
});
