import { assertLimitArgs, type RateLimitDecision, type RateLimitStore } from './rate-limit.store.js';

interface Bucket {
  /** Timestamps (ms) of the allowed requests, oldest first; those before `head` have expired. */
  log: number[];
  /** Index of the oldest entry still in the window. */
  head: number;
  windowMs: number;
}

const live = (bucket: Bucket) => bucket.log.length - bucket.head;

/**
 * In-process exact sliding log, for a single instance (the embedded default). Memory stays bounded:
 * a bucket holds at most `limit` live timestamps (and as many expired ones awaiting removal), and buckets whose window has emptied are dropped by a
 * sweep that runs at most once per sweep interval, amortised over the calls.
 */
export interface MemoryRateLimitStore extends RateLimitStore {
  /** Buckets currently held (for tests and metrics). */
  bucketCount(): number;
}

export function createMemoryStore(
  opts: { now?: () => number; sweepIntervalMs?: number } = {},
): MemoryRateLimitStore {
  const now = opts.now ?? Date.now;
  const sweepIntervalMs = opts.sweepIntervalMs ?? 60_000;
  const buckets = new Map<string, Bucket>();
  let lastSweep = now();

  // Expired entries are skipped by moving `head`, and dropped only once they are half the array:
  // removing them from the front on every call moved the whole log each time (about 80 µs per
  // request for one address at 3,000 requests a second with a raised limit).
  function prune(bucket: Bucket, t: number): void {
    const cutoff = t - bucket.windowMs;
    const { log } = bucket;
    while (bucket.head < log.length && (log[bucket.head] as number) <= cutoff) bucket.head++;
    if (bucket.head > 0 && bucket.head * 2 >= log.length) {
      log.splice(0, bucket.head);
      bucket.head = 0;
    }
  }

  function sweep(t: number): void {
    for (const [key, bucket] of buckets) {
      prune(bucket, t);
      if (live(bucket) === 0) buckets.delete(key);
    }
    lastSweep = t;
  }

  return {
    async consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
      assertLimitArgs(limit, windowMs);
      const t = now();
      if (t - lastSweep >= sweepIntervalMs) sweep(t);

      let bucket = buckets.get(key);
      if (!bucket) {
        bucket = { log: [], head: 0, windowMs };
        buckets.set(key, bucket);
      }
      bucket.windowMs = windowMs;
      prune(bucket, t);
      const { log, head } = bucket;
      const count = live(bucket);

      if (count < limit) {
        log.push(t);
        return {
          allowed: true,
          limit,
          remaining: limit - count - 1,
          resetAt: Math.ceil(((log[head] as number) + windowMs) / 1000),
          retryAfter: 0,
        };
      }

      // A slot frees when the entry at index (count - limit) leaves; with a constant limit, the oldest.
      const freesAt = (log[head + count - limit] ?? t) + windowMs;
      const resetAt = Math.ceil(((log[head] ?? t) + windowMs) / 1000);
      if (count === 0) buckets.delete(key);
      return {
        allowed: false,
        limit,
        remaining: 0,
        resetAt,
        retryAfter: Math.max(1, Math.ceil((freesAt - t) / 1000)),
      };
    },

    bucketCount(): number {
      return buckets.size;
    },

    async ping(): Promise<void> {},

    async close(): Promise<void> {
      buckets.clear();
    },
  };
}
