import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDb, type Db } from '../../src/platform/db/db.js';
import { authenticateKey } from '../../src/modules/api-keys/api-keys.repository.js';
import { hashKey } from '../../src/modules/shared/key-format.js';
import { createTenant, startTestApp, testDatabaseUrl, type TestApp } from '../helpers/app.js';

// last_used_at is stamped on every request with an asynchronous commit of its own (docs/operations.md):
// the setting must hold for the stamp's transaction and never leak into the connection or a caller's
// transaction.
let t: TestApp;
let single: Db; // one connection, so that what the stamp leaves on it can be read back

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  single = createDb(testDatabaseUrl(), { max: 1 });
});
after(async () => {
  await single.close();
  await t.close();
});

const setting = async (db: Pick<Db, 'query'>) =>
  (await db.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit;

describe('the last-use stamp', () => {
  it('turns synchronous_commit off for its own transaction only', async () => {
    const tenant = await createTenant(t.deps);
    const at = new Date('2030-01-02T03:04:05.678Z');
    assert.equal(await setting(single), 'on');
    const row = await authenticateKey(single.pool, hashKey(tenant.key), at);
    assert.equal(row?.key_id, tenant.keyId);
    // The statement's implicit transaction has ended: the connection is back to the default.
    assert.equal(await setting(single), 'on');
    const { rows } = await single.query<{ last_used_at: Date }>(
      'SELECT last_used_at FROM api_keys WHERE id = $1',
      [tenant.keyId],
    );
    assert.equal(rows[0]!.last_used_at.toISOString(), at.toISOString());

    // Inside a transaction the same statement sets it for that transaction: the reason why the
    // service runs it on the pool, outside any request transaction.
    const client = await single.pool.connect();
    try {
      await client.query('BEGIN');
      await authenticateKey(client, hashKey(tenant.key), at);
      assert.equal(await setting(client), 'off');
      await client.query('ROLLBACK');
      assert.equal(await setting(client), 'on');
    } finally {
      client.release();
    }
  });

  it('is written by every request, over many keys at once, and read back by the key list', async () => {
    const tenants = await Promise.all(Array.from({ length: 4 }, () => createTenant(t.deps)));
    const stamps = async () =>
      Promise.all(tenants.map(async (x) => (await t.deps.services.keys.list(x.accountId))[0]!.lastUsedAt));
    for (let round = 0; round < 3; round++) {
      const before = await stamps();
      await new Promise((r) => setTimeout(r, 5));
      const answers = await Promise.all(
        tenants.flatMap((x) => [
          t.app.inject({ url: '/api/v1/usage', headers: x.auth }),
          t.app.inject({ url: '/api/v1/templates', headers: x.auth }),
        ]),
      );
      for (const a of answers) assert.equal(a.statusCode, 200);
      const afterRound = await stamps();
      afterRound.forEach((stamp, i) => assert.ok(stamp && (before[i] === null || stamp > before[i]!)));
    }
    // A request does not run in the stamp's transaction: the session keeps synchronous commits.
    assert.equal(await setting(t.deps.db), 'on');
  });
});
