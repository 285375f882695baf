import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { createTenant, startTestApp, testDatabaseUrl, type TestApp, type Tenant } from '../helpers/app.js';

// docs/api.md, Outages: when PostgreSQL stops answering at the COMMIT, the work may have been saved.
// The answer never says "nothing was changed" then: it is the real answer when a fresh connection can
// tell that the work committed, else a 503 whose details.outcome is "unknown"; a retry with the same
// Idempotency-Key then gets the one answer, never a duplicate.

describe('PostgreSQL stops answering at the COMMIT of an issue', () => {
  let proxy: FaultProxy;
  let t: TestApp;

  before(async () => {
    proxy = await startFaultProxy(Number(new URL(testDatabaseUrl()).port));
    const url = new URL(testDatabaseUrl());
    url.port = String(proxy.port);
    t = await startTestApp({
      DATABASE_URL: url.href,
      DB_STATEMENT_TIMEOUT_MS: '500',
      DB_CONNECT_TIMEOUT_MS: '500',
      RATE_LIMIT_MAX: '100000',
    });
  });

  after(async () => {
    proxy.restore();
    await t?.close();
    await proxy?.close();
  });

  const issue = (tenant: Tenant, key?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: { ...tenant.auth, ...(key ? { 'idempotency-key': key } : {}) },
      payload: {
        templateId: tenant.templateId,
        recipient: { name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'Engines' } },
      },
    });

  async function committed(tenant: Tenant): Promise<{ certificates: number; used: number }> {
    const { rows } = await t.deps.db.query<{ certificates: number; used: number }>(
      `SELECT (SELECT count(*)::int FROM certificates WHERE account_id = $1) AS certificates,
              (SELECT coalesce(sum(used), 0)::int FROM usage_periods WHERE account_id = $1) AS used`,
      [tenant.accountId],
    );
    return rows[0]!;
  }

  test('without a key: 503 with details.outcome "unknown", never "nothing was changed"', async () => {
    const tenant = await createTenant(t.deps);
    proxy.freezeAfter('COMMIT', 'connection');
    const res = await issue(tenant);
    proxy.restore();
    assert.equal(res.statusCode, 503, res.body);
    const { error } = res.json();
    assert.equal(error.code, 'service_unavailable');
    assert.equal(error.details.outcome, 'unknown');
    assert.doesNotMatch(error.message, /nothing was changed/i);
    assert.match(error.message, /Idempotency-Key/);
    // It did commit: the answer was right not to deny it.
    assert.deepEqual(await committed(tenant), { certificates: 1, used: 1 });
  });

  test('with a key, the database back at once: a fresh connection finds the commit and the answer is 201', async () => {
    const tenant = await createTenant(t.deps);
    proxy.freezeAfter('COMMIT', 'connection');
    const res = await issue(tenant, 'order-1');
    proxy.restore();
    assert.equal(res.statusCode, 201, res.body);
    const again = await issue(tenant, 'order-1');
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().data.id, res.json().data.id);
    assert.deepEqual(await committed(tenant), { certificates: 1, used: 1 });
  });

  test('with a key, the database gone: 503 "unknown"; the retry with the key returns the one certificate', async () => {
    const tenant = await createTenant(t.deps);
    proxy.freezeAfter('COMMIT', 'everything');
    let res;
    try {
      res = await issue(tenant, 'order-2');
    } finally {
      proxy.restore();
    }
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.json().error.details.outcome, 'unknown');
    assert.doesNotMatch(res.json().error.message, /nothing was changed/i);

    const retry = await issue(tenant, 'order-2');
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    const list = await t.app.inject({ url: '/api/v1/certificates', headers: tenant.auth });
    assert.deepEqual(
      list.json().data.map((c: { id: string }) => c.id),
      [retry.json().data.id],
    );
    assert.deepEqual(await committed(tenant), { certificates: 1, used: 1 });
  });
});
