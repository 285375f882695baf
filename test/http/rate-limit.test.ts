import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, type TestApp } from '../helpers/app.js';

type Res = { statusCode: number; headers: Record<string, unknown>; json(): { error: { code: string } } };

function tally(responses: Res[]) {
  return {
    ok: responses.filter((r) => r.statusCode === 200).length,
    limited: responses.filter((r) => r.statusCode === 429).length,
  };
}

function checkHeaders(responses: Res[], windowS: number) {
  const now = Math.floor(Date.now() / 1000);
  const remaining = responses
    .filter((r) => r.statusCode === 200)
    .map((r) => Number(r.headers['x-ratelimit-remaining']))
    .sort((a, b) => a - b);
  // Each allowed request saw a distinct remaining count: 0..59.
  assert.deepEqual(
    remaining,
    Array.from({ length: 60 }, (_, i) => i),
  );
  for (const r of responses) {
    assert.equal(r.headers['x-ratelimit-limit'], '60');
    const reset = Number(r.headers['x-ratelimit-reset']);
    assert.ok(reset >= now && reset <= now + windowS + 1, `reset ${reset} near now+window`);
    if (r.statusCode === 429) {
      assert.equal(r.headers['x-ratelimit-remaining'], '0');
      const retry = Number(r.headers['retry-after']);
      assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= windowS, `Retry-After ${retry}`);
      assert.equal(r.json().error.code, 'rate_limited');
      assert.match(String(r.headers['content-type']), /^application\/json/);
    }
  }
}

describe('rate limits, in-process store', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('100 parallel requests on one key: exactly 60 successes and 40 429s', async () => {
    const tenant = await createTenant(t.deps);
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => t.app.inject({ url: '/api/v1/usage', headers: tenant.auth })),
    );
    assert.deepEqual(tally(responses), { ok: 60, limited: 40 });
    checkHeaders(responses, 60);
  });

  it('counts every outcome with a valid key (403, 404, 405, 422) in the key bucket', async () => {
    const tenant = await createTenant(t.deps, { scopes: ['templates:read'] });
    const calls = [
      { url: '/api/v1/usage' }, // 403 insufficient_scope
      { url: '/api/v1/nope' }, // 404
      { url: '/api/v1/templates', method: 'DELETE' as const }, // 405
      { url: '/api/v1/templates?perPage=0' }, // 422
    ];
    const remaining: number[] = [];
    for (const c of calls) {
      const res = await t.app.inject({ ...c, headers: tenant.auth });
      remaining.push(Number(res.headers['x-ratelimit-remaining']));
    }
    assert.deepEqual(remaining, [59, 58, 57, 56]);
  });

  it('keys have separate buckets; a 401 uses the per-IP anonymous bucket', async () => {
    const a = await createTenant(t.deps);
    const b = await createTenant(t.deps);
    await Promise.all(
      Array.from({ length: 60 }, () => t.app.inject({ url: '/api/v1/usage', headers: a.auth })),
    );
    assert.equal((await t.app.inject({ url: '/api/v1/usage', headers: a.auth })).statusCode, 429);
    const other = await t.app.inject({ url: '/api/v1/usage', headers: b.auth });
    assert.equal(other.statusCode, 200);
    assert.equal(other.headers['x-ratelimit-remaining'], '59');
    const anon = await t.app.inject({ url: '/api/v1/usage', remoteAddress: '10.9.9.9' });
    assert.equal(anon.statusCode, 401);
    assert.equal(anon.headers['x-ratelimit-remaining'], '59');
  });

  it('bounds key guessing: the 61st refused 401 from one IP is a 429', async () => {
    const ip = '10.1.2.3';
    const responses = [];
    for (let i = 0; i < 61; i++) {
      responses.push(
        await t.app.inject({
          url: '/api/v1/templates',
          remoteAddress: ip,
          headers: { authorization: 'Bearer svc_live_guess' },
        }),
      );
    }
    assert.equal(responses.filter((r) => r.statusCode === 401).length, 60);
    assert.equal(responses[60]!.statusCode, 429);
    assert.ok(Number(responses[60]!.headers['retry-after']) >= 1);
  });

  it('openapi.json uses the anonymous bucket', async () => {
    const res = await t.app.inject({ url: '/api/v1/openapi.json', remoteAddress: '10.7.7.7' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['x-ratelimit-remaining'], '59');
  });

  it('RATE_LIMIT_MAX and RATE_LIMIT_WINDOW_S change the numbers', async () => {
    const small = await startTestApp({ RATE_LIMIT_MAX: '3', RATE_LIMIT_WINDOW_S: '1' });
    try {
      const tenant = await createTenant(small.deps);
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await small.app.inject({ url: '/api/v1/usage', headers: tenant.auth })).statusCode);
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal((await small.app.inject({ url: '/api/v1/usage', headers: tenant.auth })).statusCode, 200);
    } finally {
      await small.close();
    }
  });
});

describe(
  'rate limits, Redis store shared by two instances',
  { skip: !process.env.REDIS_TEST_URL && 'REDIS_TEST_URL not set' },
  () => {
    let a: TestApp;
    let b: TestApp;
    before(async () => {
      const env = { REDIS_URL: process.env.REDIS_TEST_URL! };
      a = await startTestApp(env);
      b = await startTestApp(env);
    });
    after(async () => {
      await a.close();
      await b.close();
    });

    it('100 parallel requests on one key over two instances: exactly 60 and 40', async () => {
      const tenant = await createTenant(a.deps);
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          (i % 2 === 0 ? a : b).app.inject({ url: '/api/v1/usage', headers: tenant.auth }),
        ),
      );
      assert.deepEqual(tally(responses), { ok: 60, limited: 40 });
      checkHeaders(responses, 60);
    });

    it('a revoked key fails on the other instance at once', async () => {
      const tenant = await createTenant(a.deps);
      assert.equal((await b.app.inject({ url: '/api/v1/usage', headers: tenant.auth })).statusCode, 200);
      await a.deps.services.keys.revoke(tenant.keyId);
      assert.equal((await b.app.inject({ url: '/api/v1/usage', headers: tenant.auth })).statusCode, 401);
    });
  },
);
