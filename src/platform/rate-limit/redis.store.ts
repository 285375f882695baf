import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ServiceUnavailableError } from '../errors.js';
import { assertLimitArgs, type RateLimitDecision, type RateLimitStore } from './rate-limit.store.js';

/**
 * One atomic step of the sliding log, in a sorted set scored by Redis server time in microseconds.
 * Using Redis TIME (never the callers' clocks) keeps the log exact across app instances whose clocks
 * disagree. Only allowed requests are added, so refused requests do not extend a lock-out.
 *
 * KEYS[1] bucket key; ARGV[1] limit; ARGV[2] window (ms); ARGV[3] unique member.
 * Returns { allowed (0|1), count after this request, resetAt (unix s), retryAfter (s) }.
 */
const CONSUME_SCRIPT = `
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local windowUs = tonumber(ARGV[2]) * 1000
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

redis.call('ZREMRANGEBYSCORE', key, '-inf', now - windowUs)
local count = redis.call('ZCARD', key)

if count < limit then
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('PEXPIRE', key, ARGV[2])
  count = count + 1
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return { 1, count, math.ceil((tonumber(oldest[2]) + windowUs) / 1000000), 0 }
end

local resetAt = math.ceil((now + windowUs) / 1000000)
local retryAfter = math.ceil(windowUs / 1000000)
if count > 0 then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  resetAt = math.ceil((tonumber(oldest[2]) + windowUs) / 1000000)
  -- a slot frees when the entry at index (count - limit) leaves; with a constant limit, the oldest
  local idx = count - limit
  if idx >= count then idx = count - 1 end
  local frees = redis.call('ZRANGE', key, idx, idx, 'WITHSCORES')
  retryAfter = math.ceil((tonumber(frees[2]) + windowUs - now) / 1000000)
end
if retryAfter < 1 then retryAfter = 1 end
return { 0, count, resetAt, retryAfter }
`;

type ConsumeReply = [number, number, number, number];

interface RedisWithConsume extends Redis {
  certsvcRateLimitConsume(
    key: string,
    limit: number,
    windowMs: number,
    member: string,
  ): Promise<ConsumeReply>;
}

/**
 * Redis-backed exact sliding log, shared by every instance that points at the same Redis.
 * ioredis sends the script by EVALSHA and falls back to EVAL once after a script cache flush.
 */
export const DEFAULT_REDIS_TIMEOUT_MS = 1_000;

export function createRedisStore(
  url: string,
  opts: { prefix?: string; timeoutMs?: number; onError?: (err: Error) => void } = {},
): RateLimitStore {
  const prefix = opts.prefix ?? 'certsvc:rl:';
  const timeoutMs = opts.timeoutMs ?? DEFAULT_REDIS_TIMEOUT_MS;
  // Fail fast, never queue: with Redis down a command fails at once (no offline queue, no retry of
  // the request), a hung Redis fails after timeoutMs, and the connection is retried every 200 ms at
  // most, so that service resumes within a fraction of a second of Redis coming back.
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: timeoutMs,
    connectTimeout: Math.max(1_000, timeoutMs),
    retryStrategy: (attempt) => Math.min(50 * attempt, 200),
  }) as RedisWithConsume;
  redis.defineCommand('certsvcRateLimitConsume', { numberOfKeys: 1, lua: CONSUME_SCRIPT });
  // Connection errors surface on the requests (503); the event only feeds the log, once per outage.
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) opts.onError?.(err);
    down = true;
  });
  redis.on('ready', () => (down = false));

  let everReady = false;
  redis.once('ready', () => (everReady = true));
  // Right after start the first connection may still be opening: wait for it, briefly. Once it has
  // been up, a lost connection fails requests at once (they must not queue behind a dead Redis).
  async function ensureReady(): Promise<void> {
    if (redis.status === 'ready') return;
    if (everReady || redis.status === 'end') throw new ServiceUnavailableError('rate-limit store');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        redis.off('ready', onReady);
        reject(new ServiceUnavailableError('rate-limit store'));
      }, timeoutMs);
      function onReady() {
        clearTimeout(timer);
        resolve();
      }
      redis.once('ready', onReady);
    });
  }

  async function call<T>(command: () => Promise<T>): Promise<T> {
    await ensureReady();
    try {
      return await command();
    } catch (err) {
      if (err instanceof RangeError) throw err;
      throw new ServiceUnavailableError('rate-limit store');
    }
  }

  return {
    async consume(bucket: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
      assertLimitArgs(limit, windowMs);
      const [allowed, count, resetAt, retryAfter] = await call(() =>
        redis.certsvcRateLimitConsume(prefix + bucket, limit, windowMs, randomUUID()),
      );
      return {
        allowed: allowed === 1,
        limit,
        remaining: Math.max(0, limit - count),
        resetAt,
        retryAfter: allowed === 1 ? 0 : retryAfter,
      };
    },

    async ping(): Promise<void> {
      await call(() => redis.ping());
    },

    async close(): Promise<void> {
      if (redis.status === 'ready') {
        await redis.quit().catch(() => redis.disconnect());
      } else {
        redis.disconnect();
      }
    },
  };
}
