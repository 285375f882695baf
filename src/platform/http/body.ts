import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError, type Issue } from '../errors.js';

// Request bodies. JSON is the only body type; an empty body is "no body" whatever its content type;
// anything else is a 422 at path []. A route whose contract orders other checks (404, 403) before
// the body's 422 sets `config.deferBodyErrors`: it then receives an InvalidBody and raises it itself.

declare module 'fastify' {
  interface FastifyContextConfig {
    deferBodyErrors?: boolean;
  }
}

export class InvalidBody {
  constructor(readonly issues: Issue[]) {}
}

function refuse(request: FastifyRequest, message: string, done: (err: Error | null, body?: unknown) => void) {
  const issues = [{ path: [], message }];
  if (request.routeOptions.config?.deferBodyErrors) return done(null, new InvalidBody(issues));
  done(new ValidationError(issues));
}

export function installBodyParsers(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return refuse(request, 'The body is not valid JSON', done);
    }
    done(null, parsed);
  });
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request, body, done) => {
    if ((body as Buffer).length === 0) return done(null, undefined);
    refuse(request, 'The body must be JSON sent with Content-Type: application/json', done);
  });
}

// For routes with deferBodyErrors: the 422 of an unparsable body, when the route is ready for it.
export function assertParsedBody(body: unknown): void {
  if (body instanceof InvalidBody) throw new ValidationError(body.issues);
}
