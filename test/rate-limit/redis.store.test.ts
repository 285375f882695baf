import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { createRedisStore } from '../../src/platform/rate-limit/redis.store.js';
import type { RateLimitStore } from '../../src/platform/rate-limit/rate-limit.store.js';

const url = process.env.REDIS_TEST_URL;
const MINUTE = 60_000;

describe('redis rate-limit store', { skip: url ? false : 'REDIS_TEST_URL is not set' }, () => {
  const prefix = `test:rl:${randomUUID()}:`;
  let a: RateLimitStore;
  let b: RateLimitStore;
  let admin: Redis;

  before(() => {
    a = createRedisStore(url as string, { prefix });
    b = createRedisStore(url as string, { prefix });
    admin = new Redis(url as string);
  });

  after(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await Promise.all([a.close(), b.close(), admin.quit()]);
  });

  test('exact across two instances under 100 parallel consumes: 60 allowed, 40 refused', async () => {
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? a : b).consume('shared', 60, MINUTE)),
    );
    assert.equal(results.filter((r) => r.allowed).length, 60);
    assert.equal(results.filter((r) => !r.allowed).length, 40);
    const remaining = results.filter((r) => r.allowed).map((r) => r.remaining);
    assert.deepEqual(
      [...remaining].sort((x, y) => y - x),
      Array.from({ length: 60 }, (_, i) => 59 - i),
    );
    assert.equal(await admin.zcard(`${prefix}shared`), 60, 'refused requests are not logged');
    for (const r of results.filter((x) => !x.allowed)) {
      assert.equal(r.remaining, 0);
      assert.ok(r.retryAfter >= 59 && r.retryAfter <= 60, `retryAfter ${r.retryAfter}`);
    }
  });

  test('remaining, resetAt and retryAfter use Redis time', async () => {
    const [sec] = await admin.time();
    const now = Number(sec);
    const first = await a.consume('values', 2, MINUTE);
    assert.equal(first.allowed, true);
    assert.equal(first.limit, 2);
    assert.equal(first.remaining, 1);
    assert.equal(first.retryAfter, 0);
    assert.ok(first.resetAt >= now + 60 && first.resetAt <= now + 62, `resetAt ${first.resetAt} vs ${now}`);
    const second = await b.consume('values', 2, MINUTE);
    assert.equal(second.remaining, 0);
    assert.equal(second.resetAt, first.resetAt, 'reset follows the oldest request');
    const refused = await a.consume('values', 2, MINUTE);
    assert.equal(refused.allowed, false);
    assert.equal(refused.remaining, 0);
    assert.equal(refused.resetAt, first.resetAt);
    assert.ok(refused.retryAfter >= 1 && refused.retryAfter <= 60);
  });

  test('sliding window: slots free as the oldest requests leave', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await a.consume('slide', 3, 400)).allowed, true);
    const refused = await b.consume('slide', 3, 400);
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfter, 1, 'sub-second waits round up to 1');
    await sleep(450);
    const again = await b.consume('slide', 3, 400);
    assert.equal(again.allowed, true);
    assert.equal(again.remaining, 2);
  });

  test('buckets are independent', async () => {
    await a.consume('x', 1, MINUTE);
    assert.equal((await a.consume('x', 1, MINUTE)).allowed, false);
    assert.equal((await b.consume('y', 1, MINUTE)).allowed, true);
  });

  test('keys expire with the window', async () => {
    await a.consume('ttl', 5, 300);
    const ttl = await admin.pttl(`${prefix}ttl`);
    assert.ok(ttl > 0 && ttl <= 300, `pttl ${ttl}`);
    await sleep(400);
    assert.equal(await admin.exists(`${prefix}ttl`), 0);
  });

  test('the script survives a script cache flush', async () => {
    await admin.script('FLUSH');
    assert.equal((await a.consume('flush', 1, MINUTE)).allowed, true);
  });
});
