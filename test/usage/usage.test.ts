import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/app.js';
import { createDeps, createLogger, type Deps } from '../../src/deps.js';
import { createTenant, testConfig, type Tenant } from '../helpers/app.js';

// GET /api/v1/usage (docs/api.md, Certificates: quota), with a controllable clock so that the period is known.

let clock = new Date('2026-02-14T10:30:00.000Z');
let deps: Deps;
let app: FastifyInstance;

before(async () => {
  const config = testConfig();
  deps = await createDeps(config, { logger: createLogger(config), now: () => clock });
  app = await createApp(deps);
});
after(async () => {
  await app.close();
  await deps.close();
});
beforeEach(() => {
  clock = new Date('2026-02-14T10:30:00.000Z');
});

async function usage(tenant: Tenant) {
  const res = await app.inject({ method: 'GET', url: '/api/v1/usage', headers: tenant.auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

async function setUsed(accountId: string, periodStart: string, used: number) {
  await deps.db.query(
    `INSERT INTO usage_periods (account_id, period_start, used) VALUES ($1, $2, $3)
     ON CONFLICT (account_id, period_start) DO UPDATE SET used = EXCLUDED.used`,
    [accountId, periodStart, used],
  );
}

describe('GET /api/v1/usage', () => {
  it('Business account: tier, limit 2000, nothing used, resetAt the first instant of next month (UTC)', async () => {
    const tenant = await createTenant(deps);
    const body = await usage(tenant);
    assert.deepEqual(body, {
      data: {
        tier: 'Business',
        certificates: { limit: 2000, used: 0, remaining: 2000, resetAt: '2026-03-01T00:00:00.000Z' },
      },
    });
  });

  it('resetAt follows the UTC calendar month, across the year end and at month edges', async () => {
    const tenant = await createTenant(deps);
    for (const [now, reset] of [
      ['2026-12-31T23:59:59.999Z', '2027-01-01T00:00:00.000Z'],
      ['2027-01-01T00:00:00.000Z', '2027-02-01T00:00:00.000Z'],
      ['2028-02-29T12:00:00.000Z', '2028-03-01T00:00:00.000Z'],
    ]) {
      clock = new Date(now!);
      assert.equal((await usage(tenant)).data.certificates.resetAt, reset, now);
    }
  });

  it('used counts the current month only', async () => {
    const tenant = await createTenant(deps);
    await setUsed(tenant.accountId, '2026-01-01', 100); // previous month: not counted
    await setUsed(tenant.accountId, '2026-02-01', 7);
    await setUsed(tenant.accountId, '2026-03-01', 50); // next month: not counted
    assert.deepEqual((await usage(tenant)).data.certificates, {
      limit: 2000,
      used: 7,
      remaining: 1993,
      resetAt: '2026-03-01T00:00:00.000Z',
    });
    clock = new Date('2026-03-02T00:00:00.000Z');
    assert.deepEqual((await usage(tenant)).data.certificates, {
      limit: 2000,
      used: 50,
      remaining: 1950,
      resetAt: '2026-04-01T00:00:00.000Z',
    });
  });

  it('a custom monthly limit overrides the plan’s; remaining never goes below 0', async () => {
    const tenant = await createTenant(deps, { monthlyLimit: 10 });
    assert.deepEqual((await usage(tenant)).data, {
      tier: 'Business',
      certificates: { limit: 10, used: 0, remaining: 10, resetAt: '2026-03-01T00:00:00.000Z' },
    });
    await setUsed(tenant.accountId, '2026-02-01', 4);
    assert.equal((await usage(tenant)).data.certificates.remaining, 6);
    // e.g. the limit was lowered after certificates were issued
    await setUsed(tenant.accountId, '2026-02-01', 12);
    assert.deepEqual((await usage(tenant)).data.certificates, {
      limit: 10,
      used: 12,
      remaining: 0,
      resetAt: '2026-03-01T00:00:00.000Z',
    });
  });

  it('partner account (Free plan + active contract): tier Free, limit and remaining null, used counted', async () => {
    const tenant = await createTenant(deps, { plan: 'Free' });
    const denied = await app.inject({ method: 'GET', url: '/api/v1/usage', headers: tenant.auth });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error.code, 'forbidden');

    await deps.services.contracts.create({
      accountId: tenant.accountId,
      startsAt: new Date('2026-01-01T00:00:00Z'),
    });
    await setUsed(tenant.accountId, '2026-02-01', 3);
    assert.deepEqual(await usage(tenant), {
      data: {
        tier: 'Free',
        certificates: { limit: null, used: 3, remaining: null, resetAt: '2026-03-01T00:00:00.000Z' },
      },
    });
  });

  it('Pro with a custom limit is still not entitled: 403 forbidden', async () => {
    const tenant = await createTenant(deps, { plan: 'Pro', monthlyLimit: 5000 });
    const res = await app.inject({ method: 'GET', url: '/api/v1/usage', headers: tenant.auth });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'forbidden');
  });

  it('needs certificates:read', async () => {
    const tenant = await createTenant(deps, { scopes: ['templates:read'] });
    const res = await app.inject({ method: 'GET', url: '/api/v1/usage', headers: tenant.auth });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'insufficient_scope');
  });

  it('the response is JSON with the rate-limit headers', async () => {
    const tenant = await createTenant(deps);
    const res = await app.inject({ method: 'GET', url: '/api/v1/usage', headers: tenant.auth });
    assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8/);
    assert.equal(res.headers['x-ratelimit-limit'], '60');
    assert.ok(res.headers['x-ratelimit-remaining']);
  });
});
