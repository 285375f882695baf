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
    // The claim a running first request holds (no lock, no open transaction).
    await t.deps.db.query(
      `INSERT INTO idempotency_keys (account_id, key, fingerprint, locked_until)
       VALUES ($1, 'busy', 'x', now() + interval '10 minutes')`,
      [tenant.accountId],
    );
    const body = { templateId: tenant.templateId, recipient: recipient() };
    const res = await post(tenant, '/api/v1/certificates', body, 'busy');
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().error.code, 'conflict');
    assert.equal(
      await count('SELECT count(*)::int AS n FROM certificates WHERE account_id = $1', [tenant.accountId]),
      0,
    );
    // A claim whose lease ran out (its process crashed before committing anything) is taken over.
    await t.deps.db.query(
      `UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE account_id = $1 AND key = 'busy'`,
      [tenant.accountId],
    );
    assert.equal((await post(tenant, '/api/v1/certificates', body, 'busy')).statusCode, 201);
    assert.equal(
      (await post(tenant, '/api/v1/certificates', body, 'busy')).headers['idempotent-replayed'],
      'true',
    );
  });

  it('an issue that fails after a partial write leaves nothing behind, with and without the key', async () => {
    const tenant = await createTenant(t.deps, { monthlyLimit: 10 });
    const failing = 'Fails After The Quota Is Reserved';
    // A real database failure in the middle of the commit: after the quota reservation, at the
    // certificate insert. Only this name fails, so that other tests are not affected.
    const trigger = `fail_${process.pid}`;
    await t.deps.db.query(
      `CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN RAISE EXCEPTION 'injected failure'; END $$`,
    );
    await t.deps.db.query(
      `CREATE TRIGGER ${trigger} BEFORE INSERT ON certificates FOR EACH ROW
         WHEN (NEW.recipient_name = '${failing}') EXECUTE FUNCTION ${trigger}()`,
    );
    const used = () =>
      count('SELECT coalesce(sum(used), 0)::int AS n FROM usage_periods WHERE account_id = $1', [
        tenant.accountId,
      ]);
    try {
      const body = { templateId: tenant.templateId, recipient: recipient(failing) };
      for (const key of [undefined, 'fails-1', 'fails-1']) {
        const res = await post(tenant, '/api/v1/certificates', body, key);
        assert.equal(res.statusCode, 500, `key ${key}: ${res.body}`);
        assert.equal(await used(), 0, `key ${key}: the quota reservation was rolled back`);
        assert.equal(
          await count('SELECT count(*)::int AS n FROM certificates WHERE account_id = $1', [
            tenant.accountId,
          ]),
          0,
        );
        // Nothing stored: the retry with the same key runs again (a 500 again, not a replay or a 409).
        assert.equal(
          await count('SELECT count(*)::int AS n FROM idempotency_keys WHERE account_id = $1', [
            tenant.accountId,
          ]),
          0,
        );
      }
    } finally {
      await t.deps.db.query(`DROP TRIGGER ${trigger} ON certificates`);
      await t.deps.db.query(`DROP FUNCTION ${trigger}()`);
    }
    const body = { templateId: tenant.templateId, recipient: recipient(failing) };
    assert.equal((await post(tenant, '/api/v1/certificates', body, 'fails-1')).statusCode, 201);
    assert.equal(await used(), 1);
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
