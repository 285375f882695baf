import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createVerifyService, type VerifyService } from '../../src/modules/verify/verify.service.js';
import { LISTENER_APPLICATION_NAME } from '../../src/modules/verify/verify-listener.js';
import { issueOne, recipient } from '../certificates/support.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// Verification from a per-instance cache (issue 34): two app instances on one database. What can
// change (status, revocation, supersession, the account's name) is never served stale beyond 1 s on
// any instance: NOTIFY on commit, and a 750 ms TTL when the listening connection is gone.

let a: TestApp;
let b: TestApp;
let tenant: Tenant;
const extra: VerifyService[] = [];

before(async () => {
  a = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  b = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  tenant = await createTenant(a.deps);
});
after(async () => {
  for (const service of extra) await service.close();
  await a.close();
  await b.close();
});

const verifyOn = async (t: TestApp, code: string) => {
  const res = await t.app.inject({ url: `/api/v1/verify/${code}`, remoteAddress: '198.51.100.20' });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as {
    status: string;
    valid: boolean;
    supersededBy: string | null;
    issuerCurrentName: string;
  };
};

// Asks `read` until `done` holds, for at most `ms` (no fixed sleep beyond that bound).
async function within<T>(ms: number, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const start = performance.now();
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    assert.ok(performance.now() - start < ms, `not seen within ${ms} ms: ${JSON.stringify(value)}`);
    await sleep(20);
  }
}

const revoke = (t: TestApp, id: string) =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/certificates/${id}/revoke`,
    headers: tenant.auth,
    payload: {},
  });

// A verify service of a third instance with the given cache options, on the same database.
function service(cache: Parameters<typeof createVerifyService>[0]['cache']): VerifyService {
  const s = createVerifyService({
    db: a.deps.db,
    publicBaseUrl: 'http://certs.test',
    now: () => new Date(),
    cache,
  });
  extra.push(s);
  return s;
}

// The listening connections of all instances that have sent LISTEN.
async function listeners() {
  const { rows } = await a.deps.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE application_name = $1 AND state = 'idle' AND (query LIKE 'LISTEN%' OR query = 'SELECT 1')`,
    [LISTENER_APPLICATION_NAME],
  );
  return rows[0]!.n;
}

async function terminateListeners() {
  const { rows } = await a.deps.db.query<{ n: number }>(
    `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1`,
    [LISTENER_APPLICATION_NAME],
  );
  return rows[0]!.n;
}

describe('verification from a cache', () => {
  it('a revocation through instance A is seen on instance B within 1 s', async () => {
    const c = await issueOne(a, tenant);
    // B has the certificate cached (and keeps answering from its cache meanwhile).
    for (let i = 0; i < 3; i++) assert.equal((await verifyOn(b, c.uniqueCode)).status, 'Issued');
    assert.equal((await revoke(a, c.id)).statusCode, 200);
    const seen = await within(
      1_000,
      () => verifyOn(b, c.uniqueCode),
      (v) => v.status === 'Revoked',
    );
    assert.equal(seen.valid, false);
  });

  it('a correction (reissue) and a rename through A are seen on B within 1 s', async () => {
    const c = await issueOne(a, tenant);
    assert.equal((await verifyOn(b, c.uniqueCode)).supersededBy, null);
    const res = await a.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${c.id}/reissue`,
      headers: tenant.auth,
      payload: { recipient: recipient(1, { name: 'Corrected Name' }) },
    });
    assert.equal(res.statusCode, 201, res.body);
    const seen = await within(
      1_000,
      () => verifyOn(b, c.uniqueCode),
      (v) => v.supersededBy !== null,
    );
    assert.equal(seen.status, 'Revoked');

    const other = await issueOne(a, tenant);
    assert.equal((await verifyOn(b, other.uniqueCode)).issuerCurrentName, 'Test Academy');
    await a.deps.db.query(`UPDATE accounts SET name = 'Renamed Academy' WHERE id = $1`, [tenant.accountId]);
    await within(
      1_000,
      () => verifyOn(b, other.uniqueCode),
      (v) => v.issuerCurrentName === 'Renamed Academy',
    );
    await a.deps.db.query(`UPDATE accounts SET name = 'Test Academy' WHERE id = $1`, [tenant.accountId]);
  });

  it('the NOTIFY alone refreshes a cache whose TTL is a minute', async () => {
    const long = service({ ttlMs: 60_000 });
    const c = await issueOne(a, tenant);
    const before = await listeners();
    assert.equal((await long.verify(c.uniqueCode, { count: false })).status, 'Issued');
    // Its listener connects on the first verification: revoke once it listens.
    await within(2_000, listeners, (n) => n > before);
    assert.equal((await revoke(a, c.id)).statusCode, 200);
    await within(
      1_000,
      async () => (await long.verify(c.uniqueCode, { count: false })).status,
      (s) => s === 'Revoked',
    );
  });

  it('with the listening connection dropped, a change is still seen within the TTL', async () => {
    const s = service({ heartbeatMs: 100 });
    const c = await issueOne(a, tenant);
    // The listener connects on the first verification; wait until it is there, then drop it.
    assert.equal((await s.verify(c.uniqueCode, { count: false })).status, 'Issued');
    await within(2_000, terminateListeners, (n) => n > 0);
    assert.equal((await revoke(a, c.id)).statusCode, 200);
    await within(
      1_000,
      async () => (await s.verify(c.uniqueCode, { count: false })).status,
      (status) => status === 'Revoked',
    );
  });

  it('expiry is compared when answering: a cached certificate turns expired on time', async () => {
    let now = new Date();
    const s = createVerifyService({ db: a.deps.db, publicBaseUrl: 'http://certs.test', now: () => now });
    extra.push(s);
    const c = await issueOne(a, tenant);
    const expiresAt = new Date(Date.now() + 60_000);
    await a.deps.db.query('UPDATE certificates SET expires_at = $2 WHERE id = $1', [c.id, expiresAt]);
    await within(
      1_000,
      () => s.verify(c.uniqueCode, { count: false }),
      (v) => v.expiresAt !== null,
    );
    assert.equal((await s.verify(c.uniqueCode, { count: false })).valid, true);
    now = new Date(expiresAt.getTime() + 1);
    const later = await s.verify(c.uniqueCode, { count: false });
    assert.deepEqual([later.expired, later.valid, later.status], [true, false, 'Issued']);
  });

  it('the cache is bounded: the least recently used entries go', async () => {
    const small = service({ maxEntries: 2 });
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await issueOne(a, tenant)).uniqueCode);
    for (const code of codes) await small.verify(code, { count: false });
    assert.equal(small.cacheSize().entries, 2);
    // Answers stay right for the entry that was pushed out.
    assert.equal((await small.verify(codes[0]!, { count: false })).uniqueCode, codes[0]);
  });
});
