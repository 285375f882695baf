import { assertLimitArgs, type RateLimitDecision, type RateLimitStore } from './rate-limit.store.js';

interface Bucket {
  /** Timestamps (ms) of the allowed requests still in the window, oldest first. */
  log: number[];
  windowMs: number;
}

/**
 * In-process exact sliding log, for a single instance (the embedded default). Memory stays bounded:
 * a bucket holds at most `limit` timestamps, and buckets whose window has emptied are dropped by a
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

  function prune(bucket: Bucket, t: number): void {
    const cutoff = t - bucket.windowMs;
    let expired = 0;
    while (expired < bucket.log.length && (bucket.log[expired] as number) <= cutoff) expired++;
    if (expired > 0) bucket.log.splice(0, expired);
  }

  function sweep(t: number): void {
    for (const [key, bucket] of buckets) {
      prune(bucket, t);
      if (bucket.log.length === 0) buckets.delete(key);
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
        bucket = { log: [], windowMs };
        buckets.set(key, bucket);
      }
      bucket.windowMs = windowMs;
      prune(bucket, t);
      const { log } = bucket;

      if (log.length < limit) {
        log.push(t);
        return {
          allowed: true,
          limit,
          remaining: limit - log.length,
          resetAt: Math.ceil(((log[0] as number) + windowMs) / 1000),
          retryAfter: 0,
        };
      }

      // A slot frees when the entry at index (count - limit) leaves; with a constant limit, the oldest.
      const freesAt = (log[log.length - limit] ?? t) + windowMs;
      const resetAt = Math.ceil(((log[0] ?? t) + windowMs) / 1000);
      if (log.length === 0) buckets.delete(key);
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
