import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTenant, issueCertificate, startTestApp, type TestApp, type Tenant } from '../helpers/app.js';

// docs/api.md, Conventions: query and path parameters refuse what bodies refuse in typed text (NUL,
// which PostgreSQL cannot store or compare, other control characters, bidi overrides), with a 422
// at the parameter's name, never a 500. Checked on every parameter the served description lists.

interface Parameter {
  in: string;
  name: string;
  schema?: { type?: string; anyOf?: unknown[] };
}
type Doc = { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };

let t: TestApp;
let tenant: Tenant;
let code: string;
let certificateId: string;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  tenant = await createTenant(t.deps);
  const issued = await issueCertificate(t.app, tenant);
  code = issued.uniqueCode;
  certificateId = issued.id;
});
after(() => t.close());

const BAD = ['%00', 'a%00b', '%01', '%1B%5B31m', '%C2%85', '%E2%80%AE'];

function assertRefused(
  res: { statusCode: number; body: string; headers: Record<string, unknown> },
  name: string,
) {
  assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode}: ${res.body}`);
  if (String(res.headers['content-type']).startsWith('application/json')) {
    const { error } = JSON.parse(res.body);
    if (res.statusCode === 422) {
      assert.equal(error.code, 'validation_error');
      assert.deepEqual(
        error.details.issues.map((i: { path: unknown[] }) => i.path),
        [[name]],
      );
    }
  }
}

describe('NUL and control characters in query and path parameters', () => {
  test('GET /api/v1/certificates?q= and ?recipientEmail= with NUL: 422 at the parameter', async () => {
    for (const name of ['q', 'recipientEmail']) {
      const res = await t.app.inject({ url: `/api/v1/certificates?${name}=%00`, headers: tenant.auth });
      assert.equal(res.statusCode, 422, res.body);
      const { error } = res.json();
      assert.equal(error.code, 'validation_error');
      assert.equal(error.details.issues.length, 1);
      assert.deepEqual(error.details.issues[0].path, [name]);
      assert.match(error.details.issues[0].message, /control characters/);
    }
    // Ordinary text still searches.
    const ok = await t.app.inject({
      url: '/api/v1/certificates?q=ada&recipientEmail=ada@example.com',
      headers: tenant.auth,
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().data.length, 1);
  });

  test('every string query and path parameter of the served description: 4xx, never 500', async () => {
    const doc: Doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
    const values: Record<string, string> = { id: certificateId, code };
    let checked = 0;
    for (const [pattern, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const params = operation.parameters ?? [];
        const pathOf = (override: Record<string, string> = {}) =>
          pattern.replace(/\{(\w+)\}/g, (_, n: string) => override[n] ?? values[n] ?? 'x');
        for (const p of params) {
          if (p.in !== 'query' && p.in !== 'path') continue;
          if (p.schema?.type !== undefined && p.schema.type !== 'string') continue;
          for (const bad of BAD) {
            const url = p.in === 'query' ? `${pathOf()}?${p.name}=${bad}` : pathOf({ [p.name]: bad });
            const res = await t.app.inject({
              method: method.toUpperCase() as 'GET',
              url,
              headers: tenant.auth,
              ...(method === 'get' ? {} : { payload: {} }),
            });
            assertRefused(res, p.name);
            checked++;
          }
        }
      }
    }
    assert.ok(checked >= 10 * BAD.length, `checked ${checked} parameter values`);
  });
});
