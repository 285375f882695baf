import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ImportWorker } from '../../src/modules/imports/import.worker.js';
import { browserSkipReason } from '../helpers/browser.js';
import {
  createUser,
  newPage,
  shot,
  signIn,
  startDashboard,
  type DashboardEnv,
} from '../dashboard/support.js';

// Decisions section 20, in real Chromium: a 5,000-row CSV uploaded in the dashboard becomes an
// import whose progress bar moves without a reload; its results CSV has a line per row and the
// counts match the database.

const skip = browserSkipReason();
if (skip) console.log(`# import browser tests skipped: ${skip}`);

describe('dashboard: a 5,000-row import (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  let worker: ImportWorker | undefined;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await worker?.stop();
    await env?.close();
  });

  it('shows the progress bar moving, then the results', async () => {
    const user = await createUser(env, { monthlyLimit: 100_000 });
    const page = await newPage(env);
    await signIn(env, page, user);
    await page.goto(`${env.base}/dashboard/certificates/upload?templateId=${user.tenant.templateId}`);
    const csv = `name,email,course\n${Array.from({ length: 5_000 }, (_, i) => `Learner ${i},l${i}@example.com,Course`).join('\n')}\n`;
    await page.setInputFiles('input[name=file]', {
      name: 'mooc.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv),
    });
    await Promise.all([
      page.waitForURL(/\/dashboard\/imports\/[0-9a-f-]{36}$/),
      page.click('text=Upload and issue'),
    ]);
    const bar = page.locator('[role=progressbar]');
    assert.equal(await bar.getAttribute('aria-valuemax'), '5000');
    assert.equal(await bar.getAttribute('aria-valuenow'), '0');
    const url = page.url();

    // The worker starts after the page is open: the bar must move on this same page.
    worker = env.t.deps.services.startImportWorker();
    const seen = new Set<number>();
    const started = Date.now();
    while (Date.now() - started < 240_000) {
      if (page.url() !== url) break;
      const now = Number(await bar.getAttribute('aria-valuenow').catch(() => null));
      if (Number.isFinite(now)) seen.add(now);
      if (
        (
          await page
            .locator('#import-state')
            .textContent()
            .catch(() => '')
        )?.trim() === 'done'
      )
        break;
      await page.waitForTimeout(100);
    }
    const moving = [...seen].filter((n) => n > 0 && n < 5000);
    assert.ok(moving.length >= 1, `the bar showed rows in between: ${[...seen].join(', ')}`);
    await page.waitForFunction(
      () => document.querySelector('#import-state')?.textContent?.trim() === 'done',
      null,
      {
        timeout: 240_000,
      },
    );
    await page.waitForSelector('#download-zip');
    assert.equal(await bar.getAttribute('aria-valuenow'), '5000');
    assert.equal((await page.textContent('#import-created'))?.trim(), '5,000');
    await shot(page, 'import-done-desktop');

    const results = await page.evaluate(async (href) => (await fetch(href)).text(), `${url}/results.csv`);
    const lines = results
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n');
    assert.equal(lines.length, 1 + 5000);
    assert.equal(lines.filter((l) => l.includes(',created,')).length, 5000);
    const { rows } = await env.t.deps.db.query<{ certificates: number; used: number }>(
      `SELECT (SELECT count(*)::int FROM certificates WHERE account_id = $1) AS certificates,
              (SELECT coalesce(sum(used), 0)::int FROM usage_periods WHERE account_id = $1) AS used`,
      [user.tenant.accountId],
    );
    assert.deepEqual(rows[0], { certificates: 5000, used: 5000 });
    await page.goto(`${env.base}/dashboard/imports`);
    assert.match((await page.textContent('#imports')) ?? '', /mooc\.csv\s*done\s*5,000 \/ 5,000\s*5,000\s*0/);
  });
});
