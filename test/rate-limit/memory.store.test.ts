import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemoryStore } from '../../src/platform/rate-limit/memory.store.js';

const MINUTE = 60_000;

function clock(start = 0) {
  const c = { t: start, now: () => c.t };
  return c;
}

test('exact under 100 parallel consumes: 60 allowed, 40 refused', async () => {
  const store = createMemoryStore();
  const results = await Promise.all(Array.from({ length: 100 }, () => store.consume('k', 60, MINUTE)));
  assert.equal(results.filter((r) => r.allowed).length, 60);
  assert.equal(results.filter((r) => !r.allowed).length, 40);
  const remaining = results.filter((r) => r.allowed).map((r) => r.remaining);
  assert.deepEqual(
    [...remaining].sort((a, b) => b - a),
    Array.from({ length: 60 }, (_, i) => 59 - i),
  );
  await store.close();
});

test('remaining, resetAt and retryAfter', async () => {
  const c = clock(1_700_000_000_000);
  const store = createMemoryStore({ now: c.now });
  const first = await store.consume('k', 3, MINUTE);
  assert.deepEqual(first, {
    allowed: true,
    limit: 3,
    remaining: 2,
    resetAt: 1_700_000_060,
    retryAfter: 0,
  });
  c.t += 10_500;
  assert.equal((await store.consume('k', 3, MINUTE)).remaining, 1);
  const third = await store.consume('k', 3, MINUTE);
  assert.equal(third.remaining, 0);
  assert.equal(third.allowed, true);
  assert.equal(third.resetAt, 1_700_000_060, 'reset follows the oldest request, not this one');

  c.t += 20_000; // 30.5 s after the first request
  const refused = await store.consume('k', 3, MINUTE);
  assert.deepEqual(refused, {
    allowed: false,
    limit: 3,
    remaining: 0,
    resetAt: 1_700_000_060,
    retryAfter: 30,
  });

  c.t = 1_700_000_059_999; // 1 ms before the oldest leaves: still refused, retryAfter at least 1
  const almost = await store.consume('k', 3, MINUTE);
  assert.equal(almost.allowed, false);
  assert.equal(almost.retryAfter, 1);

  c.t = 1_700_000_060_000; // t > now - window fails for the first request: it has left
  const freed = await store.consume('k', 3, MINUTE);
  assert.equal(freed.allowed, true);
  assert.equal(freed.remaining, 0);
  assert.equal(freed.resetAt, Math.ceil((1_700_000_010_500 + MINUTE) / 1000));
});

test('sliding window: 30 at t=0, 30 at t=30s, refused at 59s, 30 allowed at 60.001s', async () => {
  const c = clock(0);
  const store = createMemoryStore({ now: c.now });
  const burst = async (n: number) => {
    const rs = [];
    for (let i = 0; i < n; i++) rs.push(await store.consume('k', 60, MINUTE));
    return rs;
  };
  assert.ok((await burst(30)).every((r) => r.allowed));
  c.t = 30_000;
  const second = await burst(30);
  assert.ok(second.every((r) => r.allowed));
  assert.equal(second.at(-1)?.remaining, 0);

  c.t = 59_000;
  const refused = await store.consume('k', 60, MINUTE);
  assert.equal(refused.allowed, false);
  assert.equal(refused.retryAfter, 1);
  assert.equal(refused.resetAt, 60);

  c.t = 60_001;
  const third = await burst(31);
  assert.equal(
    third.filter((r) => r.allowed).length,
    30,
    'the 30 from t=0 have left, the 30 from t=30s remain',
  );
  const last = third.at(-1);
  assert.equal(last?.allowed, false);
  assert.equal(last?.retryAfter, 30); // the t=30s requests leave at t=90s
  assert.equal(last?.resetAt, 90);
});

test('a fixed-window counter would fail this: requests do not reset on window boundaries', async () => {
  const c = clock(59_000);
  const store = createMemoryStore({ now: c.now });
  for (let i = 0; i < 5; i++) assert.equal((await store.consume('k', 5, MINUTE)).allowed, true);
  c.t = 61_000;
  assert.equal((await store.consume('k', 5, MINUTE)).allowed, false);
});

test('buckets are independent', async () => {
  const store = createMemoryStore();
  for (let i = 0; i < 2; i++) await store.consume('a', 2, MINUTE);
  assert.equal((await store.consume('a', 2, MINUTE)).allowed, false);
  const b = await store.consume('b', 2, MINUTE);
  assert.equal(b.allowed, true);
  assert.equal(b.remaining, 1);
});

test('refused requests are not logged', async () => {
  const c = clock(0);
  const store = createMemoryStore({ now: c.now });
  await store.consume('k', 1, MINUTE);
  c.t = 50_000;
  assert.equal((await store.consume('k', 1, MINUTE)).allowed, false);
  c.t = 60_000;
  assert.equal((await store.consume('k', 1, MINUTE)).allowed, true);
});

test('empty buckets are evicted, so memory stays bounded', async () => {
  const c = clock(0);
  const store = createMemoryStore({ now: c.now, sweepIntervalMs: 60_000 });
  for (let i = 0; i < 1000; i++) await store.consume(`ip-${i}`, 60, MINUTE);
  assert.equal(store.bucketCount(), 1000);
  c.t = 120_000;
  await store.consume('other', 60, MINUTE);
  assert.equal(store.bucketCount(), 1);
});

test('rejects invalid limits and windows', async () => {
  const store = createMemoryStore();
  await assert.rejects(store.consume('k', -1, MINUTE), RangeError);
  await assert.rejects(store.consume('k', 1, 0), RangeError);
  await assert.rejects(store.consume('k', 1.5, MINUTE), RangeError);
});

// Expired entries are dropped in bulk (see prune): the answers must be those of a log that drops
// each entry the moment it leaves the window, compared here call by call with a plain reference.
test('a sliding window crossed many times answers exactly like a plain log', async () => {
  const c = clock(1_700_000_000_000);
  const store = createMemoryStore({ now: c.now });
  const limit = 7;
  const windowMs = 1_000;
  let reference: number[] = [];
  for (let i = 0; i < 2_000; i++) {
    c.t += [13, 97, 250, 1, 0, 400][i % 6]!;
    reference = reference.filter((at) => at > c.t - windowMs);
    const allowed = reference.length < limit;
    if (allowed) reference.push(c.t);
    const expected = allowed
      ? {
          allowed,
          limit,
          remaining: limit - reference.length,
          resetAt: Math.ceil((reference[0]! + windowMs) / 1000),
          retryAfter: 0,
        }
      : {
          allowed,
          limit,
          remaining: 0,
          resetAt: Math.ceil((reference[0]! + windowMs) / 1000),
          retryAfter: Math.max(1, Math.ceil((reference[reference.length - limit]! + windowMs - c.t) / 1000)),
        };
    assert.deepEqual(await store.consume('k', limit, windowMs), expected, `call ${i}`);
  }
  await store.close();
});
