import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDb, type Db } from '../../src/platform/db/db.js';
import { issueOne } from '../certificates/support.js';
import { createTenant, startTestApp, testDatabaseUrl, type Tenant, type TestApp } from '../helpers/app.js';

// Verifications are added up in memory and written in one batched statement (verification-counter.ts):
// the counts stay exact under concurrency, and an owner's read shows this instance's counts.
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

  it('are in the database once an owner reads the certificate', async () => {
    const c = await issueOne(t, tenant);
    await t.deps.services.verify.flushCounts();
    const counts = async () =>
      (
        await single.query<{ n: number }>('SELECT verification_count AS n FROM certificates WHERE id = $1', [
          c.id,
        ])
      ).rows[0]!;
    for (let i = 0; i < 20; i++) {
      const res = await t.app.inject({
        url: `/api/v1/verify/${c.uniqueCode}`,
        remoteAddress: '198.51.100.9',
      });
      assert.equal(res.statusCode, 200);
    }
    // The owner's read writes this instance's counts first (the 250 ms timer may have written some).
    const read = await t.app.inject({ url: `/api/v1/certificates/${c.id}`, headers: tenant.auth });
    assert.equal(read.json().data.verificationCount, 20);
    assert.equal((await counts()).n, 20);
  });

  it('a verification answered while the count is written is counted once', async () => {
    const c = await issueOne(t, tenant);
    const verify = t.deps.services.verify;
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      calls.push(verify.verify(c.uniqueCode));
      if (i % 10 === 0) calls.push(verify.flushCounts());
    }
    await Promise.all(calls);
    await verify.flushCounts();
    const { rows } = await single.query<{ n: number }>(
      'SELECT verification_count AS n FROM certificates WHERE id = $1',
      [c.id],
    );
    assert.equal(rows[0]!.n, 200);
    assert.equal(await setting(single), 'on');
  });
});
