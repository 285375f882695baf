import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import { insertDraft, issue, issueOne, randomCode, recipient, recipients } from './support.js';

// List totals come from counters kept by triggers (migration 005), not from counting rows: these
// tests compare them with the rows after every kind of write, and check the plan of the polling call.
let t: TestApp;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
});
after(() => t.close());

const get = (tenant: Tenant, url: string) => t.app.inject({ url, headers: tenant.auth });
const totalOf = async (tenant: Tenant, url: string) => {
  const res = await get(tenant, url);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().pagination.total as number;
};

async function rowCount(accountId: string, status?: string): Promise<number> {
  const { rows } = await t.deps.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM certificates WHERE account_id = $1 AND ($2::text IS NULL OR status = $2)',
    [accountId, status ?? null],
  );
  return rows[0]!.n;
}

describe('list totals', () => {
  it('follow batches, revocations and drafts exactly, per account', async () => {
    const a = await createTenant(t.deps);
    const b = await createTenant(t.deps);
    const batch = await issue(t, a, { templateId: a.templateId, recipients: recipients(7) });
    assert.equal(batch.statusCode, 201);
    const ids = batch.json().data.results.map((r: { certificate: { id: string } }) => r.certificate.id);
    await issueOne(t, b, recipient(1));
    await insertDraft(t, a, randomCode());
    for (const id of ids.slice(0, 3)) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/certificates/${id}/revoke`,
        headers: a.auth,
      });
      assert.equal(res.statusCode, 200);
    }
    // A second revocation of the same certificate is a 409 and moves nothing.
    const again = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${ids[0]}/revoke`,
      headers: a.auth,
    });
    assert.equal(again.statusCode, 409);

    assert.equal(await totalOf(a, '/api/v1/certificates'), 8);
    assert.equal(await totalOf(a, '/api/v1/certificates?status=Issued'), 4);
    assert.equal(await totalOf(a, '/api/v1/certificates?status=Revoked'), 3);
    assert.equal(await totalOf(a, '/api/v1/certificates?status=Draft'), 1);
    for (const status of [undefined, 'Issued', 'Revoked', 'Draft']) {
      const q = status ? `?status=${status}` : '';
      assert.equal(await totalOf(a, `/api/v1/certificates${q}`), await rowCount(a.accountId, status));
      assert.equal(await totalOf(b, `/api/v1/certificates${q}`), await rowCount(b.accountId, status));
    }
  });

  it('a fresh account lists zero, and a failed batch item counts nothing', async () => {
    const a = await createTenant(t.deps, { monthlyLimit: 2 });
    assert.deepEqual((await get(a, '/api/v1/certificates')).json().pagination, {
      page: 1,
      perPage: 20,
      total: 0,
      totalPages: 0,
    });
    const res = await issue(t, a, { templateId: a.templateId, recipients: [...recipients(3), { name: '' }] });
    assert.equal(res.json().data.created, 2);
    assert.equal(await totalOf(a, '/api/v1/certificates?status=Issued'), 2);
  });

  it('templates: archived ones leave the total', async () => {
    const a = await createTenant(t.deps);
    const second = await t.deps.services.templates.create(
      SYSTEM,
      a.accountId,
      await readDesignFile(DEMO_DESIGN.pathname),
    );
    assert.equal(await totalOf(a, '/api/v1/templates'), 2);
    await t.deps.services.templates.archive(SYSTEM, second.id);
    assert.equal(await totalOf(a, '/api/v1/templates'), 1);
  });

  it('emails: the total is the number of accepted sends', async () => {
    const a = await createTenant(t.deps);
    const cert = await issueOne(t, a);
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/v1/certificates/${cert.id}/send`,
        headers: a.auth,
      });
      assert.equal(res.statusCode, 202);
    }
    const res = await get(a, `/api/v1/certificates/${cert.id}/emails?perPage=2`);
    assert.deepEqual(res.json().pagination, { page: 1, perPage: 2, total: 3, totalPages: 2 });
    assert.equal(res.json().data.length, 2);
  });

  it('the plain and status-filtered totals are read from the counters, not counted', async () => {
    const a = await createTenant(t.deps);
    await issueOne(t, a);
    // Moving the counter behind the rows' back shows which one the list reads.
    await t.deps.db.query(
      `UPDATE list_counts SET n = n + 1000 WHERE account_id = $1 AND list = 'certificates:Issued'`,
      [a.accountId],
    );
    assert.equal(await totalOf(a, '/api/v1/certificates?status=Issued'), 1001);
    assert.equal(await totalOf(a, '/api/v1/certificates'), 1001);
    // A filtered search counts its matches.
    assert.equal(await totalOf(a, '/api/v1/certificates?createdAfter=2000-01-01T00:00:00.000Z'), 1);
  });
});

describe('createdAfter', () => {
  it('returns only certificates created strictly after the instant, with their count', async () => {
    const a = await createTenant(t.deps);
    const first = await issueOne(t, a, recipient(1));
    const second = await issueOne(t, a, recipient(2));
    const third = await issueOne(t, a, recipient(3));
    const after1 = await get(a, `/api/v1/certificates?createdAfter=${first.createdAt as string}`);
    assert.equal(after1.statusCode, 200);
    const ids = after1.json().data.map((c: { id: string }) => c.id);
    // Certificates issued in the same millisecond share createdAt; the later ones are strictly after.
    assert.ok(ids.includes(third.id) || third.createdAt === first.createdAt);
    assert.ok(!ids.includes(first.id));
    assert.equal(after1.json().pagination.total, ids.length);
    const none = await get(a, `/api/v1/certificates?status=Issued&createdAfter=${third.createdAt as string}`);
    assert.deepEqual(none.json().data, []);
    assert.equal(none.json().pagination.total, 0);
    const all = await get(a, '/api/v1/certificates?createdAfter=2000-01-01T00:00:00.000Z');
    assert.deepEqual(
      all.json().data.map((c: { id: string }) => c.id),
      [third.id, second.id, first.id],
    );
    assert.equal(all.json().pagination.total, 3);
  });

  it('refuses a value that is not a timestamp with 422 at the parameter', async () => {
    const a = await createTenant(t.deps);
    for (const bad of ['yesterday', '2026-13-01T00:00:00Z', '']) {
      const res = await get(a, `/api/v1/certificates?createdAfter=${encodeURIComponent(bad)}`);
      assert.equal(res.statusCode, 422, bad);
      assert.deepEqual(res.json().error.details.issues[0].path, ['createdAfter']);
    }
  });
});
