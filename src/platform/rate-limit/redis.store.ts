import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
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
export function createRedisStore(url: string, opts: { prefix?: string } = {}): RateLimitStore {
  const prefix = opts.prefix ?? 'certsvc:rl:';
  // Few retries: a request should fail fast rather than wait on a Redis that is down.
  const redis = new Redis(url, { maxRetriesPerRequest: 2 }) as RedisWithConsume;
  redis.defineCommand('certsvcRateLimitConsume', { numberOfKeys: 1, lua: CONSUME_SCRIPT });

  return {
    async consume(bucket: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
      assertLimitArgs(limit, windowMs);
      const [allowed, count, resetAt, retryAfter] = await redis.certsvcRateLimitConsume(
        prefix + bucket,
        limit,
        windowMs,
        randomUUID(),
      );
      return {
        allowed: allowed === 1,
        limit,
        remaining: Math.max(0, limit - count),
        resetAt,
        retryAfter: allowed === 1 ? 0 : retryAfter,
      };
    },

    async close(): Promise<void> {
      try {
        await redis.quit();
      } catch {
        redis.disconnect();
      }
    },
  };
}
