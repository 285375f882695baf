import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isAllowedOrigin } from '../../src/platform/http/cors.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// The test app allows the partner apexes partner.example and academy.test.
let t: TestApp;
let tenant: Tenant;
before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t.deps);
});
after(() => t.close());

const ALLOWED = [
  'https://partner.example',
  'https://www.partner.example',
  'https://a.b.partner.example',
  'https://partner.example:8443',
  'https://academy.test',
  'https://learn.academy.test',
  'http://localhost:3000',
  'http://localhost:5173',
];
const REFUSED = [
  'https://evilpartner.example',
  'https://partner.example.evil.test',
  'http://partner.example',
  'http://www.partner.example',
  'null',
  'https://localhost:3000',
  'http://localhost',
  'http://localhost.evil.test:3000',
  'https://partner.examples',
  'https://xpartner.example',
  'https://user@partner.example',
  'https://partner.example/path',
  'https://evil.test#.partner.example',
  'file://',
  '',
];

describe('CORS', () => {
  it('allows exactly the partner families and localhost (unit)', () => {
    const domains = ['partner.example', 'academy.test'];
    for (const o of ALLOWED) assert.equal(isAllowedOrigin(o, domains), true, o);
    for (const o of REFUSED) assert.equal(isAllowedOrigin(o, domains), false, o);
  });

  it('echoes an allowed origin with Vary and the exposed headers', async () => {
    for (const origin of ALLOWED) {
      const res = await t.app.inject({ url: '/api/v1/usage', headers: { ...tenant.auth, origin } });
      assert.equal(res.headers['access-control-allow-origin'], origin, origin);
      assert.match(String(res.headers.vary), /Origin/);
      const exposed = String(res.headers['access-control-expose-headers']);
      for (const h of [
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'Retry-After',
        'X-Request-Id',
        'Content-Disposition',
      ]) {
        assert.ok(exposed.includes(h), h);
      }
    }
  });

  it('gives look-alike and other origins no Access-Control-Allow-Origin', async () => {
    for (const origin of REFUSED.filter(Boolean)) {
      const res = await t.app.inject({ url: '/api/v1/usage', headers: { ...tenant.auth, origin } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['access-control-allow-origin'], undefined, origin);
    }
  });

  it('answers preflight on any /api/v1 path with 204, no key, not counted', async () => {
    for (const url of ['/api/v1/certificates', '/api/v1/templates/abc', '/api/v1/anything/at/all']) {
      const res = await t.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://app.partner.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(res.statusCode, 204, url);
      assert.equal(res.headers['access-control-allow-origin'], 'https://app.partner.example');
      assert.equal(res.headers['access-control-allow-methods'], 'GET, POST, OPTIONS');
      assert.equal(
        res.headers['access-control-allow-headers'],
        'Authorization, Content-Type, Idempotency-Key',
      );
      assert.ok(Number(res.headers['access-control-max-age']) > 0);
      assert.equal(res.headers['x-ratelimit-limit'], undefined);
    }
    const evil = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/usage',
      headers: { origin: 'https://evilpartner.example' },
    });
    assert.equal(evil.statusCode, 204);
    assert.equal(evil.headers['access-control-allow-origin'], undefined);
  });
});
