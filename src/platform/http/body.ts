import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError, type Issue } from '../errors.js';

// Request bodies. JSON is the only body type; an empty body is "no body" whatever its content type;
// anything else is a 422 at path []. The bytes must be valid UTF-8 (a declared charset other than
// UTF-8 is refused rather than misread) and the nesting depth is bounded, so that no later check
// can run out of stack. A route whose contract orders other checks (404, 403) before the body's
// 422 sets `config.deferBodyErrors`: it then receives an InvalidBody and raises it itself.

declare module 'fastify' {
  interface FastifyContextConfig {
    deferBodyErrors?: boolean;
  }
}

export const MAX_JSON_DEPTH = 32;

export class InvalidBody {
  constructor(readonly issues: Issue[]) {}
}

function refuse(request: FastifyRequest, message: string, done: (err: Error | null, body?: unknown) => void) {
  const issues = [{ path: [], message }];
  if (request.routeOptions.config?.deferBodyErrors) return done(null, new InvalidBody(issues));
  done(new ValidationError(issues));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function declaredCharset(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '');
  return match?.[1]?.toLowerCase();
}

// Deeper than `max` levels of arrays and objects? One pass over the text, outside strings.
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

export function installBodyParsers(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = body as Buffer;
    if (bytes.length === 0) return done(null, undefined);
    const charset = declaredCharset(request.headers['content-type']);
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return refuse(request, 'The body must be JSON encoded as UTF-8 (charset=utf-8)', done);
    }
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return refuse(request, 'The body is not valid UTF-8', done);
    }
    if (text.trim() === '') return done(null, undefined);
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return refuse(request, `The body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`, done);
    }
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

// For routes whose contract orders other checks (404, 403) before the body's 422: the route sets
// `attachValidation: true` and `config.deferBodyErrors`, and calls this first. A path or query
// error is raised at once; the returned function raises the body's error (unparsable or invalid)
// once the route's own checks have passed.
export function deferBodyErrors(request: FastifyRequest): () => void {
  const error = request.validationError as (Error & { validationContext?: string }) | undefined;
  if (error && error.validationContext !== 'body') throw error;
  return () => {
    if (request.body instanceof InvalidBody) throw new ValidationError(request.body.issues);
    if (error) throw error;
  };
}

// A preValidation hook for routes whose body is optional: an absent body is an empty object.
export async function emptyBodyIsObject(request: FastifyRequest) {
  if (request.body === undefined || request.body === null) request.body = {};
}
