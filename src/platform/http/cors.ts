import type { FastifyInstance } from 'fastify';
import { isUnderApi } from './path.js';

// docs/api.md, CORS: https://<apex> or https://<sub>.<apex> (any port) for each partner apex, and
// http://localhost:<port>. Parsed with URL so that look-alikes (evil<apex>, <apex>.evil.test) fail.
export function isAllowedOrigin(origin: string | undefined, partnerDomains: string[]): boolean {
  if (!origin || origin === 'null') return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // A browser sends a serialised origin; anything else (paths, credentials, default ports) is refused.
  if (url.origin !== origin) return false;
  if (url.protocol === 'http:' && url.hostname === 'localhost') return url.port !== '';
  if (url.protocol !== 'https:') return false;
  const host = url.hostname;
  return partnerDomains.some((apex) => host === apex || host.endsWith(`.${apex}`));
}

const EXPOSED = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-Request-Id',
  'Content-Disposition',
].join(', ');

export function installCors(app: FastifyInstance, partnerDomains: string[]) {
  app.addHook('onRequest', (request, reply, done) => {
    if (isUnderApi(request.url)) {
      reply.header('Vary', 'Origin');
      const origin = request.headers.origin;
      if (isAllowedOrigin(origin, partnerDomains)) {
        reply.header('Access-Control-Allow-Origin', origin);
        reply.header('Access-Control-Expose-Headers', EXPOSED);
      }
    }
    done();
  });

  // Preflight on any /api/v1 path: no key, no limiter.
  app.options(
    '/api/v1/*',
    { schema: { hide: true } as Record<string, unknown>, config: { access: { kind: 'none' } } },
    async (_request, reply) => {
      reply.header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      reply.header('Access-Control-Allow-Headers', 'Authorization, Content-Type, Idempotency-Key');
      reply.header('Access-Control-Max-Age', '600');
      return reply.code(204).send();
    },
  );
}
