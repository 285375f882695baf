import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import type { Design } from '../../src/pdf/design.schema.js';
import { createTenant, startTestApp, type TestApp } from '../helpers/app.js';
import { createFreshDatabase, type FreshDatabase } from '../emails/support.js';
import { formClient, signInWith } from '../dashboard/form-client.js';

// Cancelling an import is true (issue 27): a chunk being issued when the import is cancelled rolls
// back whole, so that what the cancel reported stays so: the page, the results CSV, the
// certificates, the quota and the emails agree, and no row that was not issued is emailed.
// The chunk is held mid-issue by a lock this test takes on its rows (the chunk has rendered, signed
// and written its certificates and their emails in its transaction, and waits to record the rows'
// results), so the cancel lands inside the chunk every time.

const PASSWORD = 'correct horse battery staple';

let db: FreshDatabase;
let t: TestApp;
before(async () => {
  // A database of its own: an import worker of another test file (a server it runs) would take
  // chunks of any import on the shared one. The held chunk waits on a lock while the cancel is made:
  // a statement timeout with room for a slow machine.
  db = await createFreshDatabase();
  t = await startTestApp({
    DATABASE_URL: db.url,
    RATE_LIMIT_MAX: '100000',
    DB_STATEMENT_TIMEOUT_MS: '120000',
  });
});
after(async () => {
  await t?.close();
  await db?.drop();
});

function csv(rows: number) {
  return `name,email,course\n${Array.from({ length: rows }, (_, i) => `Learner ${i},l${i}@example.com,Course`).join('\n')}\n`;
}

// Waits (bounded) until a backend waits on a lock running a statement that starts with `start`.
async function waitForLockWait(start: string, timeoutMs = 300_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const { rows } = await t.deps.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`,
      [`${start}%`],
    );
    if (rows[0]!.n > 0) return;
    await sleep(50);
  }
  assert.fail(`no statement "${start}..." waited on a lock within ${timeoutMs} ms`);
}

describe('cancelling an import', () => {
  it('rolls back the chunk in flight: the count the cancel reports is what exists, charged and emailed', async () => {
    const tenant = await createTenant(t.deps);
    const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
    // Email on issue: each certificate is queued for email in its issue's transaction.
    const template = await t.deps.services.templates.create(SYSTEM, tenant.accountId, {
      ...design,
      name: 'Emailed course',
      emailOnIssue: true,
    });
    const email = `cancel-${process.pid}-${Date.now()}@academy.test`;
    await t.deps.services.users.create({ accountId: tenant.accountId, email, password: PASSWORD });
    const client = formClient(t);
    await signInWith(client, email, PASSWORD);
    await client.get(`/dashboard/certificates/upload?templateId=${template.id}`);
    const uploaded = await client.upload(
      '/dashboard/certificates/upload',
      { templateId: template.id },
      { name: 'roster.csv', content: csv(1_500) },
    );
    assert.equal(uploaded.statusCode, 303, uploaded.body.slice(0, 300));
    const id = /^\/dashboard\/imports\/([0-9a-f-]{36})$/.exec(String(uploaded.headers.location))![1]!;

    // Two chunks of 500 issued whole.
    assert.equal(await t.deps.services.imports.runChunk(id), true);
    assert.equal(await t.deps.services.imports.runChunk(id), true);

    // The third chunk's rows locked by another transaction: the chunk issues its 500 certificates
    // (and their emails) in its own transaction, then waits to record the rows' results.
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    let third: Promise<boolean> | undefined;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM import_rows WHERE import_id = $1 AND row_no > 1000 FOR UPDATE', [id]);
      third = t.deps.services.imports.runChunk(id);
      await waitForLockWait('UPDATE import_rows');

      // The cancel does not wait for the chunk, and says how far the import went.
      await client.get(`/dashboard/imports/${id}`);
      const cancelled = await client.post(`/dashboard/imports/${id}/cancel`, {});
      assert.equal(cancelled.statusCode, 303);
      const page = await client.get(`/dashboard/imports/${id}`);
      assert.match(
        page.body,
        /The import is cancelled after 1,000 of 1,500 rows: 1,000 certificates were issued and stay, 0 failed; the other 500 will not be issued\./,
      );
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    // The chunk goes on, finds the import cancelled under the import's lock and rolls back.
    assert.equal(await third, true);
    assert.equal(await t.deps.services.imports.runChunk(id), false, 'nothing left to issue');

    const imp = await t.deps.services.imports.get(tenant.accountId, id);
    assert.deepEqual([imp.state, imp.done, imp.created, imp.failed], ['cancelled', 1_000, 1_000, 0]);
    const { rows } = await t.deps.db.query<{
      certificates: number;
      used: number;
      sends: number;
      stray_sends: number;
      created_rows: number;
    }>(
      `SELECT (SELECT count(*)::int FROM certificates WHERE account_id = $1) AS certificates,
              (SELECT coalesce(sum(used), 0)::int FROM usage_periods WHERE account_id = $1) AS used,
              (SELECT count(*)::int FROM email_sends WHERE account_id = $1) AS sends,
              (SELECT count(*)::int FROM email_sends s WHERE s.account_id = $1 AND NOT EXISTS (
                 SELECT 1 FROM import_rows r WHERE r.import_id = $2 AND r.status = 'created'
                    AND r.certificate_id = s.certificate_id)) AS stray_sends,
              (SELECT count(*)::int FROM import_rows WHERE import_id = $2 AND status = 'created') AS created_rows`,
      [tenant.accountId, id],
    );
    assert.deepEqual(rows[0], {
      certificates: 1_000,
      used: 1_000,
      sends: 1_000,
      stray_sends: 0,
      created_rows: 1_000,
    });

    const results = await client.get(`/dashboard/imports/${id}/results.csv`);
    const statuses = results.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(',')[3]);
    assert.equal(statuses.length, 1_500);
    assert.equal(statuses.filter((s) => s === 'created').length, 1_000);
    assert.equal(statuses.filter((s) => s === 'cancelled').length, 500);
    assert.deepEqual([...new Set(statuses.slice(1_000))], ['cancelled']);
  });
});
