import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, type TestApp } from '../helpers/app.js';

const PASSWORD = 'correct horse battery staple';

function cookiesOf(setCookie: string | string[] | undefined): string[] {
  return setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
}

// Signs in through the form, as a browser would: the sign-in page's session and CSRF token first.
async function signIn(t: TestApp, email: string, headers: Record<string, string> = {}) {
  const form = await t.app.inject({ method: 'GET', url: '/dashboard', headers });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)![1]!;
  const cookie = cookiesOf(form.headers['set-cookie'])[0]!.split(';')[0]!;
  const res = await t.app.inject({
    method: 'POST',
    url: '/dashboard/sign-in',
    headers: { ...headers, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: csrf, email, password: PASSWORD }).toString(),
  });
  assert.equal(res.statusCode, 303, res.body);
  const setCookie = cookiesOf(res.headers['set-cookie'])[0]!;
  return { setCookie, cookie: setCookie.split(';')[0]! };
}

describe('dashboard sessions', () => {
  let t: TestApp;
  let proxied: TestApp;
  let email: string;
  before(async () => {
    t = await startTestApp();
    proxied = await startTestApp({ TRUST_PROXY: 'loopback' });
    const tenant = await createTenant(t.deps);
    email = `sessions-${process.pid}-${Date.now()}@academy.test`;
    await t.deps.services.users.create({ accountId: tenant.accountId, email, password: PASSWORD });
  });
  after(async () => {
    await proxied?.close();
    await t?.close();
  });

  it('sets an HttpOnly, SameSite=Lax cookie, Secure only when the request came over HTTPS', async () => {
    const plain = await signIn(t, email);
    assert.match(plain.setCookie, /; HttpOnly/i);
    assert.match(plain.setCookie, /; SameSite=Lax/i);
    assert.match(plain.setCookie, /; Path=\/dashboard/i);
    assert.doesNotMatch(plain.setCookie, /; Secure/i);

    // Without TRUST_PROXY, a client's X-Forwarded-Proto is not believed.
    const spoofed = await signIn(t, email, { 'x-forwarded-proto': 'https' });
    assert.doesNotMatch(spoofed.setCookie, /; Secure/i);
    // Behind a trusted proxy that terminated TLS, the cookie is Secure.
    const https = await signIn(proxied, email, { 'x-forwarded-proto': 'https' });
    assert.match(https.setCookie, /; Secure/i);
  });

  it('keeps only a digest of the session id, and a session past its expiry is signed out', async () => {
    const { cookie } = await signIn(t, email);
    const home = await t.app.inject({ method: 'GET', url: '/dashboard/templates', headers: { cookie } });
    assert.equal(home.statusCode, 200);

    const signed = decodeURIComponent(cookie.split('=')[1]!);
    const id = signed.slice(0, signed.lastIndexOf('.'));
    const digest = createHash('sha256').update(id).digest();
    const { rows } = await t.deps.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM dashboard_sessions WHERE id_hash = $1',
      [digest],
    );
    assert.equal(rows[0]!.n, 1, 'the row is keyed by the SHA-256 of the id');
    const raw = await t.deps.db.query('SELECT 1 FROM dashboard_sessions WHERE data::text LIKE $1', [
      `%${id}%`,
    ]);
    assert.equal(raw.rowCount, 0, 'the id itself is stored nowhere');

    await t.deps.db.query(
      `UPDATE dashboard_sessions SET expires_at = now() - interval '1 second' WHERE id_hash = $1`,
      [digest],
    );
    const expired = await t.app.inject({ method: 'GET', url: '/dashboard/templates', headers: { cookie } });
    assert.equal(expired.statusCode, 303);
    assert.equal(expired.headers.location, '/dashboard');
  });

  it('answers pages with a strict CSP and keeps them out of openapi.json', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/dashboard' });
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /style-src 'self'(;|$)/);
    assert.doesNotMatch(res.body, /<style|<script>| style=/, 'nothing inline');
    const doc = (await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
      paths: Record<string, unknown>;
    };
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => p.startsWith('/dashboard')),
      [],
    );
  });
});
