import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

let t: TestApp;
let tenant: Tenant;

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t.deps);
});
after(() => t.close());

describe('HTTP plumbing', () => {
  it('every response carries X-Request-Id, also errors and non-API paths', async () => {
    for (const url of ['/api/v1/usage', '/api/v1/nope', '/nope', '/api/v1/openapi.json']) {
      const res = await t.app.inject({ url });
      assert.match(String(res.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    }
  });

  it('unknown path under /api/v1: 404 not_found in the envelope', async () => {
    const res = await t.app.inject({ url: '/api/v1/nope', headers: tenant.auth });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, 'not_found');
    assert.match(String(res.headers['content-type']), /^application\/json/);
  });

  it('known path, other method: 405 method_not_allowed with Allow', async () => {
    for (const [method, url, allow] of [
      ['DELETE', '/api/v1/templates', 'GET, HEAD, OPTIONS'],
      ['POST', '/api/v1/usage', 'GET, HEAD, OPTIONS'],
      ['PUT', `/api/v1/templates/${tenant.templateId}`, 'GET, HEAD, OPTIONS'],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: tenant.auth });
      assert.equal(res.statusCode, 405, `${method} ${url}`);
      assert.equal(res.json().error.code, 'method_not_allowed');
      assert.deepEqual(String(res.headers.allow).split(', ').sort(), allow.split(', ').sort());
    }
  });

  it('HEAD works wherever GET does', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/api/v1/usage', headers: tenant.auth });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, '');
    assert.ok(res.headers['x-ratelimit-limit']);
  });

  it('bad paging values: 422 with the parameter as the issue path', async () => {
    for (const [query, param] of [
      ['perPage=abc', 'perPage'],
      ['perPage=0', 'perPage'],
      ['perPage=101', 'perPage'],
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
    ]) {
      const res = await t.app.inject({ url: `/api/v1/templates?${query}`, headers: tenant.auth });
      assert.equal(res.statusCode, 422, query);
      assert.equal(res.json().error.code, 'validation_error');
      assert.deepEqual(res.json().error.details.issues[0].path, [param], query);
    }
  });

  it('unknown query parameters are ignored', async () => {
    const res = await t.app.inject({ url: '/api/v1/templates?foo=bar&page=1', headers: tenant.auth });
    assert.equal(res.statusCode, 200);
  });

  it('a 500 shows no internals and is logged with the request id', async () => {
    const logged: string[] = [];
    const { default: pino } = await import('pino');
    const { createApp } = await import('../../src/app.js');
    const deps = {
      ...t.deps,
      logger: pino({ level: 'error' }, { write: (s: string) => void logged.push(s) }),
    };
    const broken = {
      ...deps,
      services: {
        ...deps.services,
        usage: {
          ...deps.services.usage,
          get: async () => {
            throw new Error('relation "secret_table" does not exist at /srv/app/src/x.ts:1');
          },
        },
      },
    };
    const app = await createApp(broken as typeof t.deps);
    const res = await app.inject({ url: '/api/v1/usage', headers: tenant.auth });
    await app.close();
    assert.equal(res.statusCode, 500);
    assert.equal(res.json().error.code, 'internal_error');
    assert.doesNotMatch(res.body, /secret_table|\/srv\/app|at /);
    const requestId = String(res.headers['x-request-id']);
    assert.ok(logged.some((line) => line.includes(requestId) && line.includes('secret_table')));
  });

  it('logs never contain the API key', async () => {
    const logged: string[] = [];
    const { default: pino } = await import('pino');
    const { createApp } = await import('../../src/app.js');
    const app = await createApp({
      ...t.deps,
      logger: pino({ level: 'trace' }, { write: (s: string) => void logged.push(s) }),
    });
    await app.inject({ url: '/api/v1/usage', headers: tenant.auth });
    await app.inject({ url: '/api/v1/nope', headers: tenant.auth });
    await app.close();
    assert.ok(logged.length > 0);
    assert.ok(!logged.some((line) => line.includes(tenant.key.slice(9))));
  });
});
