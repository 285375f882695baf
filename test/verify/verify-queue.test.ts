import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { VERIFY_TURN } from '../../src/platform/http/verify-queue.js';
import { issueOne } from '../certificates/support.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// Public verifications take turns with the rest of the main thread (platform/http/verify-queue.ts,
// docs/operations.md "A verification flood"): at most VERIFY_TURN start per turn of the event loop,
// the others wait in a bounded queue, and one more than VERIFY_QUEUE_MAX waiting is a 503.
const QUEUE_MAX = 3;
let t: TestApp;
let tenant: Tenant;
let code: string;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000', VERIFY_QUEUE_MAX: String(QUEUE_MAX) });
  tenant = await createTenant(t.deps);
  code = (await issueOne(t, tenant)).uniqueCode;
  // In the cache: from now on a verification needs no I/O at all.
  assert.equal((await t.app.inject({ url: `/api/v1/verify/${code}` })).statusCode, 200);
});
after(async () => {
  await t.close();
});
// Each test starts on a turn of its own (the last one's queue served, the turn's count back to 0).
beforeEach(() => new Promise((resolve) => setImmediate(resolve)));

const verifyAt = (url: string, i: number) => t.app.inject({ url, remoteAddress: `198.51.100.${i % 200}` });

describe('the verification queue', () => {
  it('lets the event loop turn between every VERIFY_TURN verifications', async () => {
    const order: string[] = [];
    const calls = Array.from({ length: VERIFY_TURN + QUEUE_MAX }, (_, i) =>
      verifyAt(`/api/v1/verify/${code}`, i).then((res) => {
        order.push('verification');
        return res;
      }),
    );
    // Without turns, every verification of the cache would be answered before this callback.
    setImmediate(() => order.push('turn of the event loop'));
    for (const res of await Promise.all(calls)) assert.equal(res.statusCode, 200);
    assert.equal(order.indexOf('turn of the event loop'), VERIFY_TURN);
  });

  it('answers 503 with Retry-After and the error envelope when the queue is full', async () => {
    const extra = 4;
    const calls = Array.from({ length: VERIFY_TURN + QUEUE_MAX + extra }, (_, i) =>
      verifyAt(`/api/v1/verify/${code}`, i),
    );
    const answers = await Promise.all(calls);
    const refused = answers.filter((res) => res.statusCode === 503);
    assert.equal(answers.filter((res) => res.statusCode === 200).length, VERIFY_TURN + QUEUE_MAX);
    assert.equal(refused.length, extra);
    for (const res of refused) {
      assert.equal(res.headers['retry-after'], '1');
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(res.json().error.code, 'service_unavailable');
      assert.ok(res.headers['x-request-id']);
      assert.ok(res.headers['x-ratelimit-remaining'] !== undefined);
    }
  });

  it('answers the page with its 503 page when the queue is full', async () => {
    const calls = Array.from({ length: VERIFY_TURN + QUEUE_MAX + 1 }, (_, i) =>
      verifyAt(`/verify/${code}`, i),
    );
    const refused = (await Promise.all(calls)).filter((res) => res.statusCode === 503);
    assert.equal(refused.length, 1);
    assert.equal(refused[0]!.headers['retry-after'], '1');
    assert.match(String(refused[0]!.headers['content-type']), /^text\/html/);
  });

  it('queues verifications only: another request is answered before the waiting verifications', async () => {
    const order: string[] = [];
    const calls = Array.from({ length: VERIFY_TURN + QUEUE_MAX }, (_, i) =>
      verifyAt(`/api/v1/verify/${code}`, i).then(() => order.push('verification')),
    );
    const health = t.app.inject({ url: '/healthz' }).then((res) => order.push(`healthz ${res.statusCode}`));
    await Promise.all([...calls, health]);
    assert.ok(order.indexOf('healthz 200') <= VERIFY_TURN, order.join(', '));
  });
});
