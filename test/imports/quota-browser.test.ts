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

// Issue 29, in real Chromium: an upload with more rows than the period has left asks first; the
// button "Issue the first N" issues exactly N, and the results name why the others failed.

const skip = browserSkipReason();
if (skip) console.log(`# quota browser tests skipped: ${skip}`);

describe('dashboard: the quota before an upload (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('offers "Issue the first 12" for 30 rows with 12 left, and issues exactly 12', async () => {
    const user = await createUser(env, { monthlyLimit: 12 });
    const page = await newPage(env);
    await signIn(env, page, user);
    await page.goto(`${env.base}/dashboard/certificates/upload?templateId=${user.tenant.templateId}`);
    const csv = `name,email,course\n${Array.from({ length: 30 }, (_, i) => `Learner ${i},l${i}@example.com,Course`).join('\n')}\n`;
    await page.setInputFiles('input[name=file]', {
      name: 'class.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    });
    await Promise.all([
      page.waitForURL(/\/dashboard\/certificates\/upload\/held\/[0-9a-f-]{36}$/),
      page.getByRole('button', { name: 'Upload and issue' }).click(),
    ]);
    assert.equal((await page.textContent('#held-rows'))?.trim(), '30');
    assert.equal((await page.textContent('#quota-left'))?.trim(), '12');
    const issue = page.getByRole('button', { name: 'Issue the first 12', exact: true });
    assert.equal(await issue.count(), 1);
    assert.equal(await page.getByRole('button', { name: 'Cancel', exact: true }).count(), 1);
    await shot(page, 'upload-held-desktop');
    const { rows: before } = await env.t.deps.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM certificates WHERE account_id = $1',
      [user.tenant.accountId],
    );
    assert.equal(before[0]!.n, 0, 'nothing is issued before the choice');

    await Promise.all([
      page.waitForURL(/\/dashboard\/certificates\/upload\/results\/[0-9a-f-]{36}$/),
      issue.click(),
    ]);
    assert.equal((await page.textContent('#created-count'))?.trim(), '12');
    assert.equal((await page.textContent('#failed-count'))?.trim(), '18');
    const summary = (await page.textContent('#failure-summary'))?.replace(/\s+/g, ' ');
    assert.match(summary ?? '', /18 rows failed: 18 over the monthly quota/);
    assert.equal(await page.getByRole('button', { name: 'Retry the failed rows' }).count(), 1);
    const { rows } = await env.t.deps.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM certificates WHERE account_id = $1',
      [user.tenant.accountId],
    );
    assert.equal(rows[0]!.n, 12);
  });
});
