import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import {
  certificateCount,
  issue,
  issueOne,
  recipient,
  recipients,
  usedInDb,
  type BatchItem,
} from './support.js';

// Quota and counters must hold under concurrency, also across instances: the database settles it.
let a: TestApp;
let b: TestApp;

before(async () => {
  // Two instances on the same database, as two servers behind a load balancer would be. Hundreds of
  // requests queue on one quota row here, on a loaded machine: the timeouts that turn a stuck
  // database into a 503 are raised so that only the quota decides the answers.
  a = await startTestApp({
    RATE_LIMIT_MAX: '100000',
    DB_CONNECT_TIMEOUT_MS: '120000',
    DB_STATEMENT_TIMEOUT_MS: '120000',
  });
  b = await startTestApp({
    RATE_LIMIT_MAX: '100000',
    DB_CONNECT_TIMEOUT_MS: '120000',
    DB_STATEMENT_TIMEOUT_MS: '120000',
  });
});
after(async () => {
  await a.close();
  await b.close();
});

async function assertConsistent(tenant: Tenant, expected: number) {
  assert.equal(await certificateCount(a, tenant.accountId), expected, 'certificates in the database');
  assert.equal(await usedInDb(a, tenant.accountId), expected, 'usage used');
  const { rows } = await a.deps.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM certificates c JOIN certificate_pdfs p ON p.certificate_id = c.id WHERE c.account_id = $1`,
    [tenant.accountId],
  );
  assert.equal(rows[0]!.n, expected, 'every certificate has its PDF');
}

function statusTally(statuses: number[]) {
  const tally: Record<number, number> = {};
  for (const s of statuses) tally[s] = (tally[s] ?? 0) + 1;
  return tally;
}

describe('quota under concurrency', () => {
  it('300 concurrent single issues against a quota of 100: exactly 100 created, 200 refused with 402', async () => {
    const tenant = await createTenant(a.deps, { monthlyLimit: 100 });
    const responses = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        issue(a, tenant, { templateId: tenant.templateId, recipient: recipient(i) }),
      ),
    );
    assert.deepEqual(statusTally(responses.map((r) => r.statusCode)), { 201: 100, 402: 200 });
    for (const r of responses.filter((x) => x.statusCode === 402)) {
      assert.equal(r.json().error.code, 'quota_exceeded');
      assert.equal(r.json().error.details.limit, 100);
      assert.equal(r.json().error.details.remaining, 0);
    }
    const codes = new Set(responses.filter((r) => r.statusCode === 201).map((r) => r.json().data.uniqueCode));
    assert.equal(codes.size, 100);
    await assertConsistent(tenant, 100);
  });

  it('4 concurrent batches of 60 against a quota of 100: exactly 100 created in total', async () => {
    const tenant = await createTenant(a.deps, { monthlyLimit: 100 });
    const responses = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        issue(a, tenant, { templateId: tenant.templateId, recipients: recipients(60, i * 60) }),
      ),
    );
    for (const r of responses) assert.equal(r.statusCode, 201, r.body);
    const created = responses.reduce((n, r) => n + r.json().data.created, 0);
    const failed = responses.reduce((n, r) => n + r.json().data.failed, 0);
    assert.equal(created, 100);
    assert.equal(failed, 140);
    for (const r of responses) {
      const results = r.json().data.results;
      assert.deepEqual(
        results.map((x: BatchItem) => x.index),
        Array.from({ length: 60 }, (_, i) => i),
      );
      // Valid recipients use quota in input order: within a batch, the created ones come first.
      const firstFailed = results.findIndex((x: BatchItem) => x.status === 'failed');
      if (firstFailed >= 0) {
        assert.ok(
          results
            .slice(firstFailed)
            .every((x: BatchItem) => x.status === 'failed' && x.error?.code === 'quota_exceeded'),
        );
      }
    }
    await assertConsistent(tenant, 100);
  });

  it('two instances on one database: singles and batches together never exceed the quota', async () => {
    const tenant = await createTenant(a.deps, { monthlyLimit: 100 });
    const requests = [];
    for (const app of [a, b]) {
      for (let i = 0; i < 100; i++)
        requests.push(issue(app, tenant, { templateId: tenant.templateId, recipient: recipient(i) }));
      for (let i = 0; i < 2; i++)
        requests.push(
          issue(app, tenant, { templateId: tenant.templateId, recipients: recipients(40, 1000 + i * 40) }),
        );
    }
    const responses = await Promise.all(requests);
    let created = 0;
    for (const r of responses) {
      if (r.statusCode === 201) created += 'results' in r.json().data ? r.json().data.created : 1;
      else assert.equal(r.statusCode, 402, r.body);
    }
    assert.equal(created, 100);
    await assertConsistent(tenant, 100);
    const byInstance = await Promise.all(
      [a, b].map((app) => app.app.inject({ url: '/api/v1/usage', headers: tenant.auth })),
    );
    for (const u of byInstance)
      assert.deepEqual([u.json().data.certificates.used, u.json().data.certificates.remaining], [100, 0]);
  });

  it('two instances, batches only: exactly the quota', async () => {
    const tenant = await createTenant(a.deps, { monthlyLimit: 100 });
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        issue(i % 2 ? b : a, tenant, { templateId: tenant.templateId, recipients: recipients(50, i * 50) }),
      ),
    );
    assert.equal(
      responses.reduce((n, r) => n + r.json().data.created, 0),
      100,
    );
    await assertConsistent(tenant, 100);
  });
});

describe('counters under concurrency', () => {
  it('50 concurrent downloads and 50 concurrent verifications over two instances count exactly 50 each', async () => {
    const tenant = await createTenant(a.deps);
    const c = await issueOne(a, tenant);
    const downloads = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? b : a).app.inject({ url: `/api/v1/certificates/${c.id}/pdf`, headers: tenant.auth }),
      ),
    );
    assert.ok(downloads.every((r) => r.statusCode === 200));
    const verifications = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        (i % 2 ? b : a).app.inject({
          url: i % 5 ? `/api/v1/verify/${c.uniqueCode}` : `/verify/${c.uniqueCode}`,
          remoteAddress: '192.0.2.50',
        }),
      ),
    );
    assert.ok(verifications.every((r) => r.statusCode === 200));
    // A's read writes A's own sums first; B's are written by B's timer within 250 ms
    // (docs/operations.md, "Verification counts"): written here at once rather than waited for.
    await b.deps.services.verify.flushCounts();
    const read = await a.app.inject({ url: `/api/v1/certificates/${c.id}`, headers: tenant.auth });
    assert.equal(read.json().data.downloadCount, 50);
    assert.equal(read.json().data.verificationCount, 50);
    assert.equal(read.json().data.emailCount, 0);
  });
});
