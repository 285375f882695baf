import { BODY_LIMIT_TEXT } from '../limits.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { CommitOutcomeUnknownError, isDatabaseUnavailable } from '../db/db.js';
import { AppError, ServiceUnavailableError, STATUS_BY_CODE, type Issue } from '../errors.js';
import { routedPath } from './path.js';
import { toIssues } from '../validation.js';

// Paths whose answers are pages for people (the public verification page): their errors are pages too.
export interface HtmlErrors {
  prefix: string;
  render(status: number, message: string): string;
  headers: Record<string, string>;
}

declare module 'fastify' {
  interface FastifyInstance {
    htmlErrors?: HtmlErrors;
  }
}

export function htmlErrorsFor(app: FastifyInstance, target: string): HtmlErrors | undefined {
  const html = app.htmlErrors;
  return html && routedPath(target).startsWith(html.prefix) ? html : undefined;
}

export function sendError(
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
  details?: Record<string, unknown>,
) {
  reply.code(status);
  const html = htmlErrorsFor(reply.server, reply.request.url);
  if (html) {
    return reply.headers(html.headers).type('text/html; charset=utf-8').send(html.render(status, message));
  }
  // Serialized here, not by the route's response schema: an error can end a route whose schema for
  // that status is not the envelope.
  return reply
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error: details ? { code, message, details } : { code, message } }));
}

function validationReply(reply: FastifyReply, issues: Issue[]) {
  return sendError(reply, 422, 'validation_error', 'The request is not valid', { issues });
}

const PARSE_ERRORS = new Set([
  'FST_ERR_CTP_INVALID_MEDIA_TYPE',
  'FST_ERR_CTP_INVALID_CONTENT_LENGTH',
  'FST_ERR_CTP_EMPTY_JSON_BODY',
  'FST_ERR_CTP_INVALID_JSON_BODY',
]);

// The client closed its connection while its body was still being read: Node fails the body stream
// with `aborted` (code ECONNRESET, the same code a broken database connection has), so this is told
// apart first, by the request stream itself, and is never taken for a database outage.
function clientAborted(error: FastifyError, request: FastifyRequest): boolean {
  return request.raw.readableAborted || (error.code === 'ECONNRESET' && error.message === 'aborted');
}

export function installErrorHandling(app: FastifyInstance) {
  // Every (method, path) pair the app serves, to answer 405 with Allow for a known path.
  const known = FindMyWay();
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (route.url.includes('*')) return; // the catch-all preflight route is not a resource
    let set = methodsByPath.get(route.url);
    if (!set) {
      set = new Set();
      methodsByPath.set(route.url, set);
      known.on('GET', route.url, () => undefined, { path: route.url });
    }
    for (const m of methods) set.add(m);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const match = known.find('GET', path);
    const pattern = (match?.store as { path?: string } | undefined)?.path;
    const methods = pattern ? methodsByPath.get(pattern) : undefined;
    if (methods && !methods.has(request.method)) {
      const allow = pattern?.startsWith('/api/v1/') ? [...methods, 'OPTIONS'] : [...methods];
      reply.header('Allow', allow.join(', '));
      return sendError(reply, 405, 'method_not_allowed', `${request.method} is not allowed on this path`);
    }
    return sendError(reply, 404, 'not_found', 'No such endpoint');
  });

  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const domain: unknown = error;
    if (domain instanceof AppError) {
      reply.headers(domain.headers);
      return sendError(
        reply,
        STATUS_BY_CODE[domain.code] ?? 500,
        domain.code,
        domain.message,
        domain.details,
      );
    }
    if (error.validation) {
      return validationReply(reply, toIssues(error.validation as never));
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      return sendError(reply, 413, 'payload_too_large', `The request body is larger than ${BODY_LIMIT_TEXT}`);
    }
    if (error.code && PARSE_ERRORS.has(error.code)) {
      const message =
        error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? 'The body must be JSON sent with Content-Type: application/json'
          : 'The body is not valid JSON';
      return validationReply(reply, [{ path: [], message }]);
    }
    if (clientAborted(error, request)) {
      // The client's doing, and nobody reads the answer: worth an info line, not an alert.
      request.log.info(
        { err: error.message, code: error.code },
        'client aborted the request during its body',
      );
      return sendError(reply, 400, 'bad_request', 'The connection closed before the body arrived');
    }
    if (isDatabaseUnavailable(error)) {
      request.log.error({ err: error.message }, 'database not answering: 503');
      // Whether the request may have changed something decides what the answer can promise.
      const outcome = domain instanceof CommitOutcomeUnknownError ? 'unknown' : 'unchanged';
      const unavailable = new ServiceUnavailableError('database', 2, outcome);
      reply.headers(unavailable.headers);
      return sendError(reply, 503, unavailable.code, unavailable.message, unavailable.details);
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendError(
      reply,
      500,
      'internal_error',
      'An internal error occurred; it is safe to retry with backoff',
    );
  });
}
