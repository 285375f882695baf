import { BODY_LIMIT_TEXT } from '../limits.js';
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
            outcome: Type.Optional(
              Type.Union([Type.Literal('unchanged'), Type.Literal('unknown')], {
                description:
                  'On a 503: "unchanged" (nothing was changed; retry as it is) or "unknown" (the database stopped ' +
                  'answering while saving; retry with the same Idempotency-Key)',
              }),
            ),
          },
          { additionalProperties: true },
        ),
      ),
    }),
  },
  { $id: 'ErrorEnvelope', title: 'ErrorEnvelope' },
);

// An example value shown by API viewers as the sample request or answer; test/openapi checks that
// every body and answer has one, that it fits its schema, and that the sample requests are accepted.
export function example<T extends TSchema>(schema: T, value: unknown): T {
  return Object.assign(schema, { examples: [value] });
}

// Ids shared by the examples, so that the sample answers refer to one another.
export const EXAMPLE = {
  templateId: '01936f0e-5c3a-7b21-8e4f-2a1b3c4d5e6f',
  certificateId: '01937a2c-9d4b-7c10-9f3e-6b7c8d9e0f1a',
  secondCertificateId: '01937a2c-9d4b-7c10-9f3e-6b7c8d9e0f1b',
  sendId: '01937a31-0a2b-7d4c-8e5f-7a8b9c0d1e2f',
  uniqueCode: '7KQ2M9XW4HT8R3CV',
  verificationUrl: 'https://certs.example.org/verify/7KQ2M9XW4HT8R3CV',
  issuedAt: '2026-11-20T09:30:00.000Z',
};

export function pageExample(items: unknown[]) {
  return { data: items, pagination: { page: 1, perPage: 20, total: items.length, totalPages: 1 } };
}

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
  413: `Body over ${BODY_LIMIT_TEXT} (\`payload_too_large\`)`,
  422: 'Validation failed (`validation_error`); details.issues lists the paths',
  429: 'Rate limit exceeded (`rate_limited`); see Retry-After',
  500: 'Server fault (`internal_error`); safe to retry with backoff',
  503:
    'The database or the rate-limit store is not answering (`service_unavailable`); retry after Retry-After. ' +
    '`details.outcome` is "unchanged" when nothing was changed, or "unknown" when the database stopped answering ' +
    'while saving: the request may have taken effect, so retry it with the same Idempotency-Key (or check first)',
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
  // The example goes on the media type, where viewers look for it.
  const { examples, ...bare } = schema as TSchema & { examples?: unknown[] };
  const media = examples ? { schema: bare, example: examples[0] } : { schema };
  return { description, headers, content: { [mediaType]: media } };
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
const ERROR_EXAMPLES: Record<number, { code: string; message: string; details?: Record<string, unknown> }> = {
  401: { code: 'invalid_api_key', message: 'The API key is malformed, unknown or revoked' },
  402: {
    code: 'quota_exceeded',
    message: 'The certificate quota of the current period is exhausted',
    details: { remaining: 0, limit: 2000, resetAt: '2026-12-01T00:00:00.000Z' },
  },
  403: { code: 'insufficient_scope', message: 'This API key lacks the scope certificates:write' },
  404: { code: 'not_found', message: 'Certificate not found' },
  409: { code: 'conflict', message: 'Only an Issued certificate can be revoked; this one is Revoked' },
  413: { code: 'payload_too_large', message: `The request body is larger than ${BODY_LIMIT_TEXT}` },
  422: {
    code: 'validation_error',
    message: 'The request is not valid',
    details: { issues: [{ path: ['recipient', 'email'], message: 'must be an email address' }] },
  },
  429: {
    code: 'rate_limited',
    message: 'Too many requests; retry after the number of seconds in Retry-After',
  },
  500: { code: 'internal_error', message: 'An internal error occurred; it is safe to retry with backoff' },
  503: {
    code: 'service_unavailable',
    message:
      "The service's database is not answering; nothing was changed, retry after the number of seconds in Retry-After",
    details: { outcome: 'unchanged' },
  },
};

function errorEnvelopeFor(status: number): TSchema {
  const codes = Object.keys(STATUS_BY_CODE).filter((code) => STATUS_BY_CODE[code] === status);
  const { error } = ErrorEnvelope.properties;
  const sample = ERROR_EXAMPLES[status];
  return Type.Object(
    {
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
    },
    sample ? { examples: [{ error: sample }] } : {},
  );
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
