import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, STATUS_BY_CODE } from '../../platform/errors.js';
import type { RateLimitStore } from '../../platform/rate-limit/rate-limit.store.js';
import { messagePage, RECIPIENT_PAGE_HEADERS } from './recipient-page.js';

// What the recipient's pages share: forms read as urlencoded bodies, kept out of the API
// description, their headers (CSP), and every refusal answered as a page with its status.

export async function installRecipientPages(app: FastifyInstance): Promise<void> {
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true };
  });
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(RECIPIENT_PAGE_HEADERS);
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const domain: unknown = error;
    if (domain instanceof AppError) {
      const status = STATUS_BY_CODE[domain.code] ?? 500;
      const message =
        domain.code === 'not_found'
          ? 'There is nothing here: the link or page does not exist.'
          : domain.message;
      reply.headers(domain.headers);
      return page(reply, messagePage(status, message), status);
    }
    if (error.validation || error.code?.startsWith('FST_ERR_CTP_') || (error.statusCode ?? 500) < 500) {
      return page(reply, messagePage(422, 'The form could not be read. Go back and send it again.'), 422);
    }
    request.log.error({ err: error }, 'unhandled recipient page error');
    return page(reply, messagePage(500, 'Something went wrong on our side. Try again in a moment.'), 500);
  });
  await app.register(formbody, { bodyLimit: 64 * 1024 });
}

export function page(reply: FastifyReply, body: string, status = 200) {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

// The string fields of a form (a repeated field: its first value).
export function fieldsOf(request: FastifyRequest): Record<string, string> {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) {
    const one = Array.isArray(v) ? v[0] : v;
    if (typeof one === 'string') out[k] = one;
  }
  return out;
}

/** The correction form's fields: the name, `data.<key>` values and the note. */
export function correctionInput(fields: Record<string, string>) {
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(fields)) if (k.startsWith('data.')) data[k.slice(5)] = v;
  return { name: fields.name, data, note: fields.note };
}

// Seconds to wait when a bucket is full, or undefined when the request may go on.
export async function overLimit(
  store: RateLimitStore,
  buckets: readonly (readonly [string, { max: number; windowMs: number }])[],
): Promise<number | undefined> {
  for (const [bucket, limit] of buckets) {
    const result = await store.consume(bucket, limit.max, limit.windowMs);
    if (!result.allowed) return Math.max(result.retryAfter, 1);
  }
  return undefined;
}
