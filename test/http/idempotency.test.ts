import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { purgeExpiredIdempotencyKeys } from '../../src/platform/http/idempotency.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
});
after(() => t.close());

const recipient = (name = 'Ada Lovelace') => ({
  name,
  email: 'ada@example.com',
  data: { course: 'Engines' },
});

function post(tenant: Tenant, url: string, payload: unknown, key?: string) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { ...tenant.auth, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload: payload as object,
  });
}

async function count(sql: string, params: unknown[]): Promise<number> {
  const { rows } = await t.deps.db.query<{ n: number }>(sql, params);
  return rows[0]!.n;
}

describe('Idempotency-Key', () => {
  it('a retry of an issue gets the stored answer and issues nothing more', async () => {
    const tenant = await createTenant(t.deps);
    const body = { templateId: tenant.templateId, recipient: recipient() };
    const first = await post(tenant, '/api/v1/certificates', body, 'order-1');
    assert.equal(first.statusCode, 201);
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await post(tenant, '/api/v1/certificates', body, 'order-1');
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json());
    assert.equal(
      await count('SELECT count(*)::int AS n FROM certificates WHERE account_id = $1', [tenant.accountId]),
      1,
    );
    const usage = await t.app.inject({ url: '/api/v1/usage', headers: tenant.auth });
    assert.equal(usage.json().data.certificates.used, 1);
    // Without a key, the same body issues again.
    assert.equal((await post(tenant, '/api/v1/certificates', body)).statusCode, 201);
    assert.equal(
      await count('SELECT count(*)::int AS n FROM certificates WHERE account_id = $1', [tenant.accountId]),
      2,
    );
  });

  it('keys are scoped to the account', async () => {
    const a = await createTenant(t.deps);
    const b = await createTenant(t.deps);
    assert.equal(
      (await post(a, '/api/v1/certificates', { templateId: a.templateId, recipient: recipient() }, 'k'))
        .statusCode,
      201,
    );
    const other = await post(
      b,
      '/api/v1/certificates',
      { templateId: b.templateId, recipient: recipient() },
      'k',
    );
    assert.equal(other.statusCode, 201);
    assert.equal(other.headers['idempotent-replayed'], undefined);
  });

  it('the same key on another body or path: 422 at ["Idempotency-Key"]', async () => {
    const tenant = await createTenant(t.deps);
    const first = await post(
      tenant,
      '/api/v1/certificates',
      { templateId: tenant.templateId, recipient: recipient() },
      'same',
    );
    assert.equal(first.statusCode, 201);
    const otherBody = await post(
      tenant,
      '/api/v1/certificates',
      { templateId: tenant.templateId, recipient: recipient('Grace') },
      'same',
    );
    assert.equal(otherBody.statusCode, 422);
    assert.deepEqual(otherBody.json().error.details.issues[0].path, ['Idempotency-Key']);
    const otherPath = await post(tenant, `/api/v1/certificates/${first.json().data.id}/revoke`, {}, 'same');
    assert.equal(otherPath.statusCode, 422);
    assert.deepEqual(otherPath.json().error.details.issues[0].path, ['Idempotency-Key']);
    assert.equal(
      await count('SELECT count(*)::int AS n FROM certificates WHERE account_id = $1 AND status = $2', [
        tenant.accountId,
        'Issued',
      ]),
      1,
    );
  });

  it('the same key while the first request still runs: 409 conflict', async () => {
    const tenant = await createTenant(t.deps);
    // Hold the key's lock as a running first request would.
    const holder = await t.deps.db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `${tenant.accountId}:busy`,
      ]);
      const res = await post(
        tenant,
        '/api/v1/certificates',
        { templateId: tenant.templateId, recipient: recipient() },
        'busy',
      );
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().error.code, 'conflict');
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    assert.equal(
      await count('SELECT count(*)::int AS n FROM certificates WHERE account_id = $1', [tenant.accountId]),
      0,
    );
    assert.equal(
      (
        await post(
          tenant,
          '/api/v1/certificates',
          { templateId: tenant.templateId, recipient: recipient() },
          'busy',
        )
      ).statusCode,
      201,
    );
  });

  it('a malformed key: 422 at ["Idempotency-Key"], nothing issued', async () => {
    const tenant = await createTenant(t.deps);
    for (const key of ['a'.repeat(256), 'tab\there', '']) {
      const res = await post(
        tenant,
        '/api/v1/certificates',
        { templateId: tenant.templateId, recipient: recipient() },
        key,
      );
      assert.equal(res.statusCode, 422, JSON.stringify(key));
      assert.deepEqual(res.json().error.details.issues[0].path, ['Idempotency-Key']);
    }
    assert.equal(
      await count('SELECT count(*)::int AS n FROM certificates WHERE account_id = $1', [tenant.accountId]),
      0,
    );
  });

  it('a request refused before it runs (422) is not stored: the key stays free', async () => {
    const tenant = await createTenant(t.deps);
    const bad = await post(
      tenant,
      '/api/v1/certificates',
      { templateId: tenant.templateId, recipient: { ...recipient(), email: 'nope' } },
      'retry-me',
    );
    assert.equal(bad.statusCode, 422);
    const good = await post(
      tenant,
      '/api/v1/certificates',
      { templateId: tenant.templateId, recipient: recipient() },
      'retry-me',
    );
    assert.equal(good.statusCode, 201);
  });

  it('a 402 is stored and replayed', async () => {
    const tenant = await createTenant(t.deps, { monthlyLimit: 0 });
    const body = { templateId: tenant.templateId, recipient: recipient() };
    const first = await post(tenant, '/api/v1/certificates', body, 'q');
    assert.equal(first.statusCode, 402);
    const again = await post(tenant, '/api/v1/certificates', body, 'q');
    assert.equal(again.statusCode, 402);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.json(), first.json());
  });

  it('send and revoke: a retry has no new effect', async () => {
    const tenant = await createTenant(t.deps);
    const cert = (
      await post(tenant, '/api/v1/certificates', { templateId: tenant.templateId, recipient: recipient() })
    ).json().data;
    const s1 = await post(tenant, `/api/v1/certificates/${cert.id}/send`, {}, 'send-1');
    const s2 = await post(tenant, `/api/v1/certificates/${cert.id}/send`, {}, 'send-1');
    assert.equal(s1.statusCode, 202);
    assert.equal(s2.statusCode, 202);
    assert.equal(s2.headers['idempotent-replayed'], 'true');
    assert.equal(s2.json().data.id, s1.json().data.id);
    assert.equal(
      await count('SELECT count(*)::int AS n FROM email_sends WHERE certificate_id = $1', [cert.id]),
      1,
    );
    assert.equal(await count('SELECT email_count AS n FROM certificates WHERE id = $1', [cert.id]), 1);

    const r1 = await post(
      tenant,
      `/api/v1/certificates/${cert.id}/revoke`,
      { reason: 'Issued in error' },
      'rev-1',
    );
    const r2 = await post(
      tenant,
      `/api/v1/certificates/${cert.id}/revoke`,
      { reason: 'Issued in error' },
      'rev-1',
    );
    assert.equal(r1.statusCode, 200);
    assert.equal(r2.statusCode, 200, 'a replay, not a 409');
    assert.equal(r2.headers['idempotent-replayed'], 'true');
    const r3 = await post(
      tenant,
      `/api/v1/certificates/${cert.id}/revoke`,
      { reason: 'Issued in error' },
      'rev-2',
    );
    assert.equal(r3.statusCode, 409);
  });

  it('answers older than 24 hours are purged; newer ones stay', async () => {
    const tenant = await createTenant(t.deps);
    const body = { templateId: tenant.templateId, recipient: recipient() };
    assert.equal((await post(tenant, '/api/v1/certificates', body, 'old')).statusCode, 201);
    assert.equal((await post(tenant, '/api/v1/certificates', body, 'new')).statusCode, 201);
    await t.deps.db.query(
      `UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE account_id = $1 AND key = 'old'`,
      [tenant.accountId],
    );
    assert.ok((await purgeExpiredIdempotencyKeys(t.deps.db)) >= 1);
    const keys = await t.deps.db.query<{ key: string }>(
      'SELECT key FROM idempotency_keys WHERE account_id = $1',
      [tenant.accountId],
    );
    assert.deepEqual(
      keys.rows.map((r) => r.key),
      ['new'],
    );
  });
});
