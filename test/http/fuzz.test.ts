import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// No input yields a 500: arbitrary bodies, query strings, paths and headers against the real app
// always get a 2xx or a 4xx with the error envelope. Runs are bounded in count.

let t: TestApp;
let tenant: Tenant;
let certificateId: string;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '1000000' });
  tenant = await createTenant(t.deps, { monthlyLimit: 1_000_000 });
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/certificates',
    headers: tenant.auth,
    payload: {
      templateId: tenant.templateId,
      recipient: { name: 'Ada', email: 'ada@example.com', data: { course: 'X' } },
    },
  });
  certificateId = res.json().data.id;
});
after(() => t.close());

type Res = { statusCode: number; body: string; headers: Record<string, unknown> };

function checkAnswer(res: Res, what: string) {
  assert.ok(res.statusCode < 500, `${what} gave ${res.statusCode}: ${res.body.slice(0, 300)}`);
  if (res.statusCode >= 400) {
    const body = JSON.parse(res.body) as { error?: { code?: unknown; message?: unknown } };
    assert.equal(typeof body.error?.code, 'string', `${what}: envelope`);
    assert.equal(typeof body.error?.message, 'string', `${what}: envelope`);
  }
}

// Recipient-shaped values, mixed with anything at all, so that deep paths are reached too.
const anyJson = fc.jsonValue({ maxDepth: 4 });
const recipientLike = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 250 }), fc.string({ unit: 'grapheme', maxLength: 40 }), anyJson),
    email: fc.oneof(fc.emailAddress(), fc.string(), anyJson),
    data: fc.oneof(
      fc.dictionary(fc.string({ maxLength: 70 }), fc.oneof(fc.string(), fc.double(), fc.boolean(), anyJson)),
      anyJson,
    ),
    extra: anyJson,
  },
  { requiredKeys: [] },
);

describe('fuzz: no input yields a 500', () => {
  it('POST /certificates with arbitrary bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          anyJson,
          fc.record(
            {
              templateId: fc.oneof(fc.constant(tenant.templateId), fc.uuid(), fc.string(), anyJson),
              recipient: fc.oneof(recipientLike, anyJson),
              recipients: fc.oneof(fc.array(fc.oneof(recipientLike, anyJson), { maxLength: 8 }), anyJson),
              recipientName: anyJson,
            },
            { requiredKeys: [] },
          ),
        ),
        async (body) => {
          const res = await t.app.inject({
            method: 'POST',
            url: '/api/v1/certificates',
            headers: { ...tenant.auth, 'content-type': 'application/json' },
            payload: JSON.stringify(body),
          });
          checkAnswer(res, `body ${JSON.stringify(body).slice(0, 200)}`);
        },
      ),
      { numRuns: 250 },
    );
  });

  it('raw bytes as a body, with various content types', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 300 }),
        fc.constantFrom(
          'application/json',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/json; charset=latin1',
          'multipart/form-data',
        ),
        fc.constantFrom(
          '/api/v1/certificates',
          `/api/v1/certificates/${certificateId}/send`,
          `/api/v1/certificates/${certificateId}/revoke`,
        ),
        async (bytes, type, url) => {
          const res = await t.app.inject({
            method: 'POST',
            url,
            headers: { ...tenant.auth, 'content-type': type },
            payload: Buffer.from(bytes),
          });
          checkAnswer(res, `${url} ${type}`);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('query strings, path segments and codes', async () => {
    const segment = fc.oneof(fc.string({ maxLength: 40 }), fc.uuid(), fc.constant(certificateId));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/api/v1/certificates',
          '/api/v1/templates',
          '/api/v1/certificates/ID',
          '/api/v1/certificates/ID/pdf',
          '/api/v1/certificates/ID/emails',
          '/api/v1/verify/ID',
          '/verify/ID',
          '/api/v1/templates/ID',
        ),
        segment,
        fc.dictionary(fc.constantFrom('page', 'perPage', 'status', 'x'), fc.string({ maxLength: 20 })),
        async (route, id, query) => {
          const url = `${route.replace('ID', encodeURIComponent(id))}?${new URLSearchParams(query).toString()}`;
          const res = await t.app.inject({ method: 'GET', url, headers: tenant.auth });
          assert.ok(res.statusCode < 500, `GET ${url} gave ${res.statusCode}: ${res.body.slice(0, 200)}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('arbitrary Authorization and Idempotency-Key headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 80 }),
        fc.string({ maxLength: 300 }),
        async (authorization, key) => {
          const headers: Record<string, string> = {};
          // Header values must be Latin-1 without CR/LF for the HTTP layer itself to accept them.
          if (/^[\x20-\x7e\t]*$/.test(authorization)) headers.authorization = authorization;
          if (/^[\x20-\x7e\t]*$/.test(key)) headers['idempotency-key'] = key;
          const res = await t.app.inject({
            method: 'POST',
            url: `/api/v1/certificates/${certificateId}/revoke`,
            headers: { ...tenant.auth, ...headers },
          });
          checkAnswer(res, 'headers');
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('text PostgreSQL cannot store', () => {
  it('NUL and lone surrogates in unused data values are a 422, not a 500', async () => {
    for (const value of ['a\u0000b', '\ud800', 'x\udfff']) {
      const single = await t.app.inject({
        method: 'POST',
        url: '/api/v1/certificates',
        headers: tenant.auth,
        payload: {
          templateId: tenant.templateId,
          recipient: { name: 'Ada', email: 'ada@example.com', data: { course: 'X', note: value } },
        },
      });
      assert.equal(single.statusCode, 422, single.body);
      assert.deepEqual(single.json().error.details.issues[0].path, ['recipient', 'data', 'note']);
      const batch = await t.app.inject({
        method: 'POST',
        url: '/api/v1/certificates',
        headers: tenant.auth,
        payload: {
          templateId: tenant.templateId,
          recipients: [
            { name: 'Ada', email: 'ada@example.com', data: { course: 'X', note: value } },
            { name: 'Bob', email: 'bob@example.com', data: { course: 'Y' } },
          ],
        },
      });
      assert.equal(batch.statusCode, 201, batch.body);
      assert.deepEqual([batch.json().data.created, batch.json().data.failed], [1, 1]);
      assert.deepEqual(batch.json().data.results[0].error.details.issues[0].path, [
        'recipients',
        0,
        'data',
        'note',
      ]);
      const revoke = await t.app.inject({
        method: 'POST',
        url: `/api/v1/certificates/${certificateId}/revoke`,
        headers: tenant.auth,
        payload: { reason: value },
      });
      assert.equal(revoke.statusCode, 422, revoke.body);
      assert.deepEqual(revoke.json().error.details.issues[0].path, ['reason']);
    }
  });

  it('a page far past the end is an empty page, not an overflow', async () => {
    for (const url of [
      '/api/v1/certificates?page=1000000000000000',
      '/api/v1/templates?page=9007199254740991&perPage=100',
    ]) {
      const res = await t.app.inject({ url, headers: tenant.auth });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().data, []);
    }
  });
});
