import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE_DELAY_MS, MAX_ATTEMPTS, nextAttemptDelayMs } from '../../src/modules/emails/retry-policy.js';

test('at least 5 attempts, doubling from 30 s, spanning about an hour', () => {
  assert.ok(MAX_ATTEMPTS >= 5);
  const delays: number[] = [];
  for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
    const d = nextAttemptDelayMs(attempt, () => 0.5);
    assert.ok(d !== null);
    delays.push(d);
  }
  assert.equal(delays[0], BASE_DELAY_MS);
  assert.equal(delays[0], 30_000);
  for (let i = 1; i < delays.length; i++) assert.equal(delays[i], (delays[i - 1] as number) * 2);
  const total = delays.reduce((a, b) => a + b, 0);
  assert.ok(total >= 45 * 60_000 && total <= 90 * 60_000, `total ${total / 60_000} min`);
  // Even with the shortest jitter on every delay, the retries span more than 45 minutes.
  let shortest = 0;
  for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++)
    shortest += nextAttemptDelayMs(attempt, () => 0) ?? 0;
  assert.ok(shortest >= 45 * 60_000, `shortest ${shortest / 60_000} min`);
});

test('null once attempts are exhausted', () => {
  assert.equal(nextAttemptDelayMs(MAX_ATTEMPTS), null);
  assert.equal(nextAttemptDelayMs(MAX_ATTEMPTS + 3), null);
  assert.notEqual(nextAttemptDelayMs(MAX_ATTEMPTS - 1), null);
});

test('jitter stays within ±20 %', () => {
  for (let attempt = 1; attempt < MAX_ATTEMPTS; attempt++) {
    const base = 30_000 * 2 ** (attempt - 1);
    assert.equal(
      nextAttemptDelayMs(attempt, () => 0),
      Math.round(base * 0.8),
    );
    assert.equal(
      nextAttemptDelayMs(attempt, () => 0.999999999),
      Math.round(base * 1.2 - base * 0.4 * 1e-9),
    );
    for (let i = 0; i < 50; i++) {
      const d = nextAttemptDelayMs(attempt) as number;
      assert.ok(d >= base * 0.8 && d <= base * 1.2, `attempt ${attempt}: ${d}`);
    }
  }
  // A misbehaving random source cannot push the delay outside the bounds.
  assert.equal(
    nextAttemptDelayMs(1, () => 5),
    36_000,
  );
  assert.equal(
    nextAttemptDelayMs(1, () => -1),
    24_000,
  );
});

test('rejects attempt numbers below 1', () => {
  assert.throws(() => nextAttemptDelayMs(0), RangeError);
  assert.throws(() => nextAttemptDelayMs(1.5), RangeError);
});
