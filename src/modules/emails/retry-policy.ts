/**
 * Backoff for transient delivery failures: 30 s doubling (30 s, 1 min, 2 min ... 32 min), each delay
 * jittered by ±20 % so that sends failing together do not retry together. With 8 attempts the last
 * one happens about an hour after the first (30 s × 127 ≈ 63.5 min of waiting, ±20 %).
 */
export const MAX_ATTEMPTS = 8;
export const BASE_DELAY_MS = 30_000;
export const JITTER_RATIO = 0.2;

/**
 * Delay before the next attempt, given how many attempts have been made so far (1 after the first
 * failure); null when no attempt is left and the send should be marked failed.
 */
export function nextAttemptDelayMs(attempt: number, random: () => number = Math.random): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`invalid attempt number: ${attempt}`);
  if (attempt >= MAX_ATTEMPTS) return null;
  const base = BASE_DELAY_MS * 2 ** (attempt - 1);
  const jitter = 1 - JITTER_RATIO + 2 * JITTER_RATIO * Math.min(Math.max(random(), 0), 1);
  return Math.round(base * jitter);
}
