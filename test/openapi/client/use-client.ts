// A program written against a client generated from the served OpenAPI description
// (openapi-typescript types, openapi-fetch calls). test/openapi/client.test.ts generates `./api.ts`
// beside a copy of this file, typechecks both with tsc in strict mode and runs the result: it must
// compile and work with no cast, no `any` and no non-null assertion.
import assert from 'node:assert/strict';
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Certificate = components['schemas']['Certificate'];
type BatchResult = components['schemas']['BatchResult'];

// Single and batch answers are told apart by their types alone.
function describeIssue(answer: Certificate | BatchResult): string {
  if ('results' in answer) return `batch: ${answer.created} created, ${answer.failed} failed`;
  return `single: ${answer.uniqueCode} (${answer.status})`;
}

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

const templateId = setting('TEMPLATE_ID');
const client = createClient<paths>({
  baseUrl: setting('BASE_URL'),
  headers: { Authorization: `Bearer ${setting('API_KEY')}` },
});

const single = await client.POST('/api/v1/certificates', {
  params: { header: { 'idempotency-key': `typed-client-${Date.now()}` } },
  body: {
    templateId,
    recipient: { name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'Typed clients' } },
  },
});
assert.equal(single.response.status, 201);
if (!single.data) throw new Error(`issue failed: ${JSON.stringify(single.error)}`);
const issued = single.data.data;
if ('results' in issued) throw new Error('a single issue answered a batch');

const batch = await client.POST('/api/v1/certificates', {
  body: {
    templateId,
    recipients: [
      { name: 'Grace Hopper', email: 'grace@example.com', data: { course: 'Typed clients' } },
      { name: 'Katherine Johnson', email: 'not an address' },
    ],
  },
});
if (!batch.data) throw new Error(`batch failed: ${JSON.stringify(batch.error)}`);

// The PDF, then the same request with its ETag: 304 and no body.
const pdf = await client.GET('/api/v1/certificates/{id}/pdf', {
  params: { path: { id: issued.id } },
  parseAs: 'arrayBuffer',
});
assert.equal(pdf.response.status, 200);
const etag = pdf.response.headers.get('etag');
if (!etag) throw new Error('the PDF came without an ETag');
const again = await client.GET('/api/v1/certificates/{id}/pdf', {
  params: { path: { id: issued.id }, header: { 'if-none-match': etag } },
  parseAs: 'arrayBuffer',
});

// Templates answer with ETags too.
const templates = await client.GET('/api/v1/templates', {});
const templatesEtag = templates.response.headers.get('etag');
if (!templatesEtag) throw new Error('the template list came without an ETag');
const templatesAgain = await client.GET('/api/v1/templates', {
  params: { header: { 'if-none-match': templatesEtag } },
});

// Errors are typed too: the code is one of the documented values (an enum per status), so a plain
// string would not fit this union.
type ReadErrorCode =
  | 'unauthorized'
  | 'invalid_api_key'
  | 'forbidden'
  | 'insufficient_scope'
  | 'not_found'
  | 'validation_error'
  | 'rate_limited'
  | 'internal_error'
  | 'service_unavailable';
const missing = await client.GET('/api/v1/certificates/{id}', {
  params: { path: { id: '01937a2c-9d4b-7c10-9f3e-6b7c8d9e0f1a' } },
});
const notFound: ReadErrorCode | undefined = missing.error?.error.code;

console.log(
  JSON.stringify({
    single: describeIssue(issued),
    batch: describeIssue(batch.data.data),
    pdfBytes: pdf.data?.byteLength,
    pdfAgain: again.response.status,
    templatesAgain: templatesAgain.response.status,
    notFound: [missing.response.status, notFound],
  }),
);
