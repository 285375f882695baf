import { Type, type TSchema } from 'typebox';
import { STATUS_BY_CODE } from '../errors.js';
import { UUID_PATTERN } from '../ids.js';

// Shared pieces of every route schema: envelopes, pagination, ids, error responses, rate headers.

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Stable machine-readable code; switch on this.' }),
      message: Type.String({ description: 'Human-readable; do not switch on this.' }),
      details: Type.Optional(
        Type.Object(
          {
            issues: Type.Optional(
              Type.Array(
                Type.Object({
                  path: Type.Array(Type.Union([Type.String(), Type.Integer()])),
                  message: Type.String(),
                }),
              ),
            ),
            remaining: Type.Optional(Type.Integer()),
            limit: Type.Optional(Type.Integer()),
            resetAt: Type.Optional(Type.String({ format: 'date-time' })),
          },
          { additionalProperties: true },
        ),
      ),
    }),
  },
  { $id: 'ErrorEnvelope', title: 'ErrorEnvelope' },
);

export const Timestamp = Type.String({ format: 'date-time', description: 'UTC ISO 8601 with milliseconds' });
export const Uuid = Type.String({ pattern: UUID_PATTERN, description: 'UUID' });

export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false });

export const PageQuery = {
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 1,
      description: 'Page number, from 1',
    }),
  ),
  perPage: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page, 1 to 100' }),
  ),
};

export const Pagination = Type.Object({
  page: Type.Integer(),
  perPage: Type.Integer(),
  total: Type.Integer(),
  totalPages: Type.Integer(),
});

export function dataOf<T extends TSchema>(schema: T) {
  return Type.Object({ data: schema });
}

export function pageOf<T extends TSchema>(schema: T) {
  return Type.Object({ data: Type.Array(schema), pagination: Pagination });
}

export const rateHeaders = {
  'X-RateLimit-Limit': Type.Integer({ description: 'Requests allowed in the rolling window' }),
  'X-RateLimit-Remaining': Type.Integer({ description: 'Requests left in the window after this one' }),
  'X-RateLimit-Reset': Type.Integer({
    description: 'Unix seconds at which the oldest request in the window leaves it',
  }),
  'X-Request-Id': Type.String({ description: 'Identifies the request in the server logs' }),
};

const ERROR_TEXT: Record<number, string> = {
  401: 'Missing (`unauthorized`) or invalid, malformed or revoked key (`invalid_api_key`)',
  402: 'Period quota exhausted (`quota_exceeded`); details carry remaining, limit, resetAt',
  403: 'Account not entitled (`forbidden`) or key lacks the scope (`insufficient_scope`)',
  404: 'Not found, or belongs to another account (`not_found`)',
  409: 'The certificate state blocks the operation (`conflict`)',
  413: 'Body over 2 MiB (`payload_too_large`)',
  422: 'Validation failed (`validation_error`); details.issues lists the paths',
  429: 'Rate limit exceeded (`rate_limited`); see Retry-After',
  500: 'Server fault (`internal_error`); safe to retry with backoff',
  503: 'The database or the rate-limit store is not answering (`service_unavailable`); nothing was changed, retry after Retry-After',
};

// A response entry carrying the rate-limit headers, for OpenAPI and serialisation.
// A non-JSON response (PDF, HTML): its media type named in the OpenAPI description, while the
// route's error responses stay JSON.
export function nonJson(
  mediaType: string,
  schema: TSchema,
  description: string,
  headers: Record<string, TSchema> = {},
) {
  return { description, headers, content: { [mediaType]: { schema } } };
}

export function withRateHeaders<T extends TSchema>(
  schema: T,
  description: string,
  extra: Record<string, TSchema> = {},
) {
  return Object.assign(schema, { description, headers: { ...rateHeaders, ...extra } });
}

// The error envelope of one status, with the codes that status can carry as an enum, so that a
// generated client can switch on them (one source: the code-to-status map of platform/errors.ts).
function errorEnvelopeFor(status: number): TSchema {
  const codes = Object.keys(STATUS_BY_CODE).filter((code) => STATUS_BY_CODE[code] === status);
  const { error } = ErrorEnvelope.properties;
  return Type.Object({
    error: Type.Object({
      ...error.properties,
      code:
        codes.length > 0
          ? Type.Unsafe<string>({
              type: 'string',
              enum: codes,
              description: 'Stable machine-readable code; switch on this.',
            })
          : error.properties.code,
    }),
  });
}

export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  // Every route can meet a server fault or an unavailable database or Redis.
  for (const status of [...statuses, 500, 503]) {
    const headers: Record<string, TSchema> =
      status === 429
        ? {
            ...rateHeaders,
            'Retry-After': Type.Integer({ description: 'Seconds until a request is allowed' }),
          }
        : status === 503
          ? // No bucket decided this answer: the rate-limit headers are absent when Redis is down.
            { 'Retry-After': Type.Integer({ description: 'Seconds to wait before retrying' }) }
          : rateHeaders;
    out[status] = {
      ...errorEnvelopeFor(status),
      description: ERROR_TEXT[status] ?? 'Error',
      headers,
    } as TSchema;
  }
  return out;
}

export const AUTH_ERRORS = [401, 403, 429];
