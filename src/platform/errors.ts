// Domain errors raised by services. The HTTP error handler maps `code` to a status and the envelope.

export interface Issue {
  path: (string | number)[];
  message: string;
}

export class AppError extends Error {
  // Headers the answer carries besides the envelope (Retry-After on a 429).
  headers: Record<string, string> = {};

  constructor(
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

// 401: `unauthorized` when no Authorization header came, `invalid_api_key` for anything else.
export class UnauthorizedError extends AppError {
  constructor(code: 'unauthorized' | 'invalid_api_key', message: string) {
    super(code, message);
  }
}

export class InsufficientScopeError extends AppError {
  constructor(scope: string) {
    super('insufficient_scope', `This API key lacks the scope ${scope}`);
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterS: number) {
    super('rate_limited', 'Too many requests; retry after the number of seconds in Retry-After');
    this.headers = { 'Retry-After': String(Math.max(1, retryAfterS)) };
  }
}

export class NotFoundError extends AppError {
  constructor(what = 'Resource') {
    super('not_found', `${what} not found`);
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super('forbidden', message);
  }
}

export class ValidationError extends AppError {
  constructor(
    readonly issues: Issue[],
    message = 'The request is not valid',
  ) {
    super('validation_error', message, { issues });
  }
}

export class QuotaExceededError extends AppError {
  constructor(details: { remaining: number; limit: number; resetAt: string }) {
    super('quota_exceeded', 'The certificate quota of the current period is exhausted', details);
  }
}

// PostgreSQL or Redis cannot answer right now (down, hung past its timeout, out of connections), or
// this instance is shutting down. details.outcome says whether the request changed anything:
// "unchanged" when it failed before anything could commit (it can be retried as it is), "unknown"
// when the database stopped answering at a commit, so the change may have been made (docs/api.md).
export type Outcome = 'unchanged' | 'unknown';

type Unavailable =
  | 'database'
  | 'rate-limit store'
  | 'shutdown'
  | 'time-stamp authority'
  | 'file checker'
  | 'verification queue';

export class ServiceUnavailableError extends AppError {
  constructor(what: Unavailable, retryAfterS = 1, outcome: Outcome = 'unchanged') {
    super('service_unavailable', unavailableMessage(what, outcome), { outcome });
    this.headers = { 'Retry-After': String(Math.max(1, retryAfterS)) };
  }
}

function unavailableMessage(what: Unavailable, outcome: Outcome): string {
  if (what === 'shutdown') {
    return 'This server is shutting down; nothing was changed, retry (another instance will answer)';
  }
  if (what === 'file checker') {
    return 'The checks of uploaded files are all busy; nothing was changed, retry after the number of seconds in Retry-After';
  }
  if (what === 'verification queue') {
    return 'This server has too many verifications waiting; retry after the number of seconds in Retry-After';
  }
  if (outcome === 'unknown') {
    return (
      `The service's ${what} stopped answering while saving this request, which may or may not have taken effect. ` +
      'Retry with the same Idempotency-Key to get its one outcome; without a key, check before retrying'
    );
  }
  return `The service's ${what} is not answering; nothing was changed, retry after the number of seconds in Retry-After`;
}

export const STATUS_BY_CODE: Record<string, number> = {
  unauthorized: 401,
  invalid_api_key: 401,
  quota_exceeded: 402,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  // A single-use link that was real but can no longer be used (users/link-token.ts).
  gone: 410,
  payload_too_large: 413,
  validation_error: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
};
