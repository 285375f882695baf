import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKey } from '../../src/modules/shared/key-format.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// The one security table, run over every authenticated route that the OpenAPI description lists,
// so that a route added later is covered without touching this file.

interface RouteCase {
  method: 'GET' | 'POST';
  path: string; // OpenAPI form, with {id}
  scope: string;
}

let t: TestApp;
let owner: Tenant;
let other: Tenant;
let routes: RouteCase[];

function scopeFor(method: string, path: string): string {
  if (path.startsWith('/api/v1/templates')) return 'templates:read';
  return method === 'GET' ? 'certificates:read' : 'certificates:write';
}

// An id of the owner's resource for the route, so that "another account's id" is a real row.
let ownerCertificateId: string;
function ownerIdFor(path: string): string {
  return path.startsWith('/api/v1/templates/') ? owner.templateId : ownerCertificateId;
}

function concrete(path: string, id: string) {
  return path.replace('{id}', id);
}

before(async () => {
  // The table makes hundreds of refused calls from one address: lift the per-IP limit here
  // (the limiter has its own tests).
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  owner = await createTenant(t.deps);
  other = await createTenant(t.deps);
  ownerCertificateId = (await issueCertificate(t.app, owner)).id;
  const doc = t.app.swagger() as { paths: Record<string, Record<string, { security?: unknown[] }>> };
  routes = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!op.security || op.security.length === 0) continue;
      routes.push({
        method: method.toUpperCase() as 'GET' | 'POST',
        path,
        scope: scopeFor(method.toUpperCase(), path),
      });
    }
  }
});
after(() => t.close());

async function call(route: RouteCase, headers: Record<string, string>, id = owner.templateId) {
  return t.app.inject({
    method: route.method,
    url: concrete(route.path, id),
    headers: route.method === 'POST' ? { ...headers, 'content-type': 'application/json' } : headers,
    payload: route.method === 'POST' ? '{}' : undefined,
  });
}

function expectError(
  res: { statusCode: number; json(): { error: { code: string; message: string } } },
  status: number,
  code: string,
) {
  assert.equal(res.statusCode, status);
  const body = res.json();
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
}

describe('security table over every authenticated route', () => {
  it('covers the known authenticated routes', () => {
    const names = routes.map((r) => `${r.method} ${r.path}`);
    for (const expected of ['GET /api/v1/templates', 'GET /api/v1/templates/{id}', 'GET /api/v1/usage']) {
      assert.ok(names.includes(expected), `${expected} is in the table`);
    }
  });

  it('no key: 401 unauthorized', async () => {
    for (const r of routes) expectError(await call(r, {}), 401, 'unauthorized');
  });

  it('malformed key, bad checksum, unknown key, other scheme, empty token: 401 invalid_api_key', async () => {
    const good = owner.key;
    const last = good.at(-1) === 'A' ? 'B' : 'A';
    const variants = [
      'Bearer svc_live_short',
      `Bearer ${good.slice(0, -1)}${last}`, // checksum no longer matches
      `Bearer ${generateKey()}`, // well formed, never issued
      `Basic ${Buffer.from('user:pass').toString('base64')}`,
      'Bearer ',
      `Bearer ${good.replace('svc_live_', 'svc_test_')}`,
    ];
    for (const r of routes) {
      for (const authorization of variants)
        expectError(await call(r, { authorization }), 401, 'invalid_api_key');
    }
  });

  it('revoked key: 401 invalid_api_key on the very next request', async () => {
    const tenant = await createTenant(t.deps);
    const ok = await t.app.inject({ url: '/api/v1/usage', headers: tenant.auth });
    assert.equal(ok.statusCode, 200);
    await t.deps.services.keys.revoke(tenant.keyId);
    for (const r of routes) expectError(await call(r, tenant.auth), 401, 'invalid_api_key');
  });

  it('account not entitled (Free, Pro): 403 forbidden, even with a valid key', async () => {
    for (const plan of ['Free', 'Pro']) {
      const tenant = await createTenant(t.deps, { plan });
      for (const r of routes) expectError(await call(r, tenant.auth), 403, 'forbidden');
    }
  });

  it('key without the scope: 403 insufficient_scope', async () => {
    const all = ['templates:read', 'certificates:read', 'certificates:write'];
    for (const r of routes) {
      const tenant = await createTenant(t.deps, { scopes: all.filter((s) => s !== r.scope) });
      expectError(await call(r, tenant.auth), 403, 'insufficient_scope');
    }
  });

  it("another account's id: 404 not_found", async () => {
    for (const r of routes.filter((x) => x.path.includes('{id}'))) {
      const res = await call(r, other.auth, ownerIdFor(r.path));
      expectError(res, 404, 'not_found');
    }
  });

  it('a path id that is not a UUID: 422 with issue path ["id"]', async () => {
    for (const r of routes.filter((x) => x.path.includes('{id}'))) {
      const res = await call(r, owner.auth, 'not-a-uuid');
      expectError(res, 422, 'validation_error');
      assert.deepEqual(res.json().error.details.issues[0].path, ['id']);
    }
  });

  it('updates last_used_at on every authenticated request', async () => {
    const tenant = await createTenant(t.deps);
    const before = (await t.deps.services.keys.list(tenant.accountId))[0]!;
    assert.equal(before.lastUsedAt, null);
    await t.app.inject({ url: '/api/v1/usage', headers: tenant.auth });
    const first = (await t.deps.services.keys.list(tenant.accountId))[0]!.lastUsedAt;
    assert.ok(first);
    await new Promise((r) => setTimeout(r, 5));
    await t.app.inject({ url: '/api/v1/templates', headers: tenant.auth });
    const second = (await t.deps.services.keys.list(tenant.accountId))[0]!.lastUsedAt;
    assert.ok(second! > first!);
  });

  it('entitlement is re-checked per request: plan change and partner contract take effect at once', async () => {
    const tenant = await createTenant(t.deps, { plan: 'Pro' });
    expectError(await t.app.inject({ url: '/api/v1/usage', headers: tenant.auth }), 403, 'forbidden');
    const contract = await t.deps.services.contracts.create({ accountId: tenant.accountId });
    const partner = await t.app.inject({ url: '/api/v1/usage', headers: tenant.auth });
    assert.equal(partner.statusCode, 200);
    assert.equal(partner.json().data.certificates.limit, null);
    await t.deps.services.contracts.end(contract.id);
    expectError(await t.app.inject({ url: '/api/v1/usage', headers: tenant.auth }), 403, 'forbidden');
    await t.deps.services.accounts.setPlan(tenant.accountId, 'Business');
    assert.equal((await t.app.inject({ url: '/api/v1/usage', headers: tenant.auth })).statusCode, 200);
  });

  it('a contract that has not started or has ended grants nothing', async () => {
    const tenant = await createTenant(t.deps, { plan: 'Free' });
    const day = 86_400_000;
    await t.deps.services.contracts.create({
      accountId: tenant.accountId,
      startsAt: new Date(Date.now() + day),
    });
    await t.deps.services.contracts.create({
      accountId: tenant.accountId,
      startsAt: new Date(Date.now() - 3 * day),
      endsAt: new Date(Date.now() - day),
    });
    expectError(await t.app.inject({ url: '/api/v1/usage', headers: tenant.auth }), 403, 'forbidden');
  });
});
