import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDb, type Db } from '../../src/platform/db/db.js';
import { findForVerification } from '../../src/modules/verify/verify.repository.js';
import { issueOne } from '../certificates/support.js';
import { createTenant, startTestApp, testDatabaseUrl, type Tenant, type TestApp } from '../helpers/app.js';

// A verification is counted by the statement that reads it, with an asynchronous commit of its own
// (docs/operations.md): the count stays exact under concurrency, and the setting never leaks into
// the connection.
let t: TestApp;
let tenant: Tenant;
let single: Db;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  tenant = await createTenant(t.deps);
  single = createDb(testDatabaseUrl(), { max: 1 });
});
after(async () => {
  await single.close();
  await t.close();
});

const setting = async (db: Pick<Db, 'query'>) =>
  (await db.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit;

describe('verification counts', () => {
  it('are exact with verifications in parallel, JSON and page, and HEAD counts nothing', async () => {
    const c = await issueOne(t, tenant);
    const calls = Array.from({ length: 60 }, (_, i) =>
      t.app.inject({
        method: i % 6 === 5 ? 'HEAD' : 'GET',
        url: i % 2 === 0 ? `/api/v1/verify/${c.uniqueCode}` : `/verify/${c.uniqueCode.toLowerCase()}`,
        remoteAddress: `198.51.100.${i % 7}`,
      }),
    );
    for (const res of await Promise.all(calls)) assert.equal(res.statusCode, 200);
    const read = await t.app.inject({ url: `/api/v1/certificates/${c.id}`, headers: tenant.auth });
    assert.equal(read.json().data.verificationCount, 50);
  });

  it('commit asynchronously in their own transaction only', async () => {
    const c = await issueOne(t, tenant);
    assert.equal(await setting(single), 'on');
    const row = await findForVerification(single.pool, c.uniqueCode, true);
    assert.equal(row?.unique_code, c.uniqueCode);
    assert.equal(await setting(single), 'on');
    const client = await single.pool.connect();
    try {
      await client.query('BEGIN');
      await findForVerification(client, c.uniqueCode, true);
      assert.equal(await setting(client), 'off');
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    const { rows } = await single.query<{ n: number }>(
      'SELECT verification_count AS n FROM certificates WHERE id = $1',
      [c.id],
    );
    assert.equal(rows[0]!.n, 1);
  });
});
