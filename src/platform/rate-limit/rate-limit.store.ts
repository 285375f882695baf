/**
 * A rate-limit store decides, atomically, whether one more request fits in a bucket's sliding window.
 * A request made at time t counts while t > now - window (an exact sliding log, not fixed windows).
 */
export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Unix seconds at which the oldest request in the window leaves it; now + window if it was empty. */
  resetAt: number;
  /** Whole seconds until a slot frees, at least 1 when refused; 0 when allowed. */
  retryAfter: number;
}

export interface RateLimitStore {
  /** Counts the request when it is allowed; refused requests are not logged. */
  consume(bucket: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
  /** Resolves when the store answers (readiness); rejects with ServiceUnavailableError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export function assertLimitArgs(limit: number, windowMs: number): void {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`invalid rate limit: ${limit}`);
  if (!Number.isSafeInteger(windowMs) || windowMs <= 0) throw new RangeError(`invalid window: ${windowMs}`);
}
