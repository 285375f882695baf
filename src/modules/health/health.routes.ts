import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../platform/db/db.js';
import { AppError, UnauthorizedError } from '../../platform/errors.js';
import type { Metrics } from '../../platform/metrics.js';
import type { RateLimitStore } from '../../platform/rate-limit/rate-limit.store.js';

// Probes for load balancers and process managers, and the Prometheus metrics. Outside /api/v1: no
// key, no rate limit, not in the API description (docs/operations.md, Health and metrics).

const PROBE_TIMEOUT_MS = 1_000;

type Check = 'ok' | 'down' | 'not configured';

async function probe(check: () => Promise<unknown>): Promise<Check> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('probe timed out')), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return 'ok';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

class NotReadyError extends AppError {
  constructor(checks: Record<string, Check>) {
    const down = Object.keys(checks).filter((k) => checks[k] === 'down');
    super('service_unavailable', `Not ready: ${down.join(' and ')} not answering`, { checks });
    this.headers = { 'Retry-After': '1' };
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export function healthRoutes(
  app: FastifyInstance,
  deps: { db: Db; store: RateLimitStore; redisConfigured: boolean; metrics: Metrics; metricsToken?: string },
) {
  const noStore = { 'Cache-Control': 'no-store' };

  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    reply.headers(noStore);
    return { status: 'ok' };
  });

  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    reply.headers(noStore);
    const [database, redis] = await Promise.all([
      probe(() => deps.db.query('SELECT 1')),
      deps.redisConfigured ? probe(() => deps.store.ping()) : Promise.resolve<Check>('not configured'),
    ]);
    const checks = { database, redis };
    if (database === 'down' || redis === 'down') throw new NotReadyError(checks);
    return { status: 'ready', checks };
  });

  const token = deps.metricsToken;
  if (token === undefined) return;
  const expected = digest(token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
    if (!match)
      throw new UnauthorizedError('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    if (!timingSafeEqual(digest(match[1]!), expected)) {
      throw new UnauthorizedError('invalid_api_key', 'The metrics token is not the configured METRICS_TOKEN');
    }
    reply.headers(noStore).type(deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });
}

// Counts and times every answer by its route pattern (never the raw URL, which would make a series
// per certificate id).
export function installRequestMetrics(app: FastifyInstance, metrics: Metrics) {
  app.addHook('onResponse', (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
}
