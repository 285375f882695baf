import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitDecision, RateLimitStore } from '../rate-limit/rate-limit.store.js';
import type { Authenticator, Principal } from '../principal.js';
import { ForbiddenError, InsufficientScopeError, RateLimitedError, UnauthorizedError } from '../errors.js';
import { isUnderApi } from './path.js';

// Who may call a route, and which limiter bucket the call uses (docs/api.md, Authentication and limits).
export type Access =
  | { kind: 'key'; scope: string } // Authorization: Bearer key; key bucket
  | { kind: 'verify' } // public; per-IP verify bucket
  | { kind: 'anonymous' } // public; per-IP anonymous bucket
  | { kind: 'none' }; // preflight: no limiter

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    principal?: Principal;
  }
}

export interface Limits {
  max: number;
  windowS: number;
}

function setRateHeaders(reply: FastifyReply, d: RateLimitDecision) {
  reply.header('X-RateLimit-Limit', d.limit);
  reply.header('X-RateLimit-Remaining', d.remaining);
  reply.header('X-RateLimit-Reset', d.resetAt);
}

function authorizationCount(request: FastifyRequest): number {
  const raw = request.raw.rawHeaders;
  let n = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') n++;
  return n;
}

export function installAccessControl(
  app: FastifyInstance,
  deps: {
    keys: Authenticator;
    store: RateLimitStore;
    limits: Limits;
    /** Told the limiter (key, verify, anon) of each 429 (metrics). */
    onRefused?: (limiter: string) => void;
  },
) {
  const windowMs = deps.limits.windowS * 1000;

  // Counts the request in a bucket and sets the headers; a refusal is a 429 for the error handler.
  async function count(reply: FastifyReply, bucket: string): Promise<void> {
    const decision = await deps.store.consume(bucket, deps.limits.max, windowMs);
    setRateHeaders(reply, decision);
    if (!decision.allowed) {
      deps.onRefused?.(bucket.slice(0, bucket.indexOf(':')));
      throw new RateLimitedError(decision.retryAfter);
    }
  }

  // Node keeps only the first of several Authorization headers; a request that sends more than one
  // is ambiguous and gets no token at all (401 invalid_api_key).
  function bearer(request: FastifyRequest): string | undefined {
    if (authorizationCount(request) > 1) return undefined;
    const header = request.headers.authorization ?? '';
    const match = /^Bearer +(\S+) *$/i.exec(header);
    return match?.[1];
  }

  app.addHook('onRequest', async (request, reply) => {
    const configured = request.routeOptions.config?.access;
    const underApi = isUnderApi(request.url);
    if (!configured && !underApi) return;
    if (request.method === 'OPTIONS' && underApi) return; // preflight, never limited
    const access: Access | { kind: 'unknown-route' } = configured ?? { kind: 'unknown-route' };

    switch (access.kind) {
      case 'none':
        return;
      case 'verify':
        await count(reply, `verify:${request.ip}`);
        return;
      case 'anonymous':
        await count(reply, `anon:${request.ip}`);
        return;
      case 'unknown-route': {
        // 404/405 answers: counted on the key when a valid one is given, else on the caller's IP.
        const token = bearer(request);
        const principal = token ? await deps.keys.authenticate(token) : undefined;
        const bucket = principal ? `key:${principal.keyId}` : `anon:${request.ip}`;
        await count(reply, bucket);
        return;
      }
      case 'key': {
        if (request.headers.authorization === undefined) {
          await count(reply, `anon:${request.ip}`);
          throw new UnauthorizedError(
            'unauthorized',
            'The Authorization header is missing; send Authorization: Bearer <API key>',
          );
        }
        const token = bearer(request);
        const principal = token ? await deps.keys.authenticate(token) : undefined;
        if (!principal) {
          await count(reply, `anon:${request.ip}`);
          throw new UnauthorizedError('invalid_api_key', 'The API key is malformed, unknown or revoked');
        }
        await count(reply, `key:${principal.keyId}`);
        if (principal.suspended) {
          throw new ForbiddenError(
            "This account is suspended by the service's operators; its API keys work again once it is resumed",
          );
        }
        if (!principal.entitled) {
          throw new ForbiddenError('API access needs the Business plan or an active partner contract');
        }
        if (!principal.scopes.includes(access.scope)) {
          throw new InsufficientScopeError(access.scope);
        }
        principal.origin = { ip: request.ip, requestId: request.id };
        request.principal = principal;
        return;
      }
    }
  });
}
