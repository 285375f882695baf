import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { SYSTEM } from '../../src/platform/principal.js';
import { formClient, signInWith } from './form-client.js';

// The red-team findings on the dashboard (issue 21): each answered 500, stored what it should not,
// or let a stranger lock a user out.

const PASSWORD = 'correct horse battery staple';
let counter = 0;

describe('dashboard hardening', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t?.close();
  });

  async function user(): Promise<{ tenant: Tenant; email: string }> {
    const tenant = await createTenant(t.deps);
    const email = `hardening-${process.pid}-${Date.now()}-${++counter}@academy.test`;
    await t.deps.services.users.create({ accountId: tenant.accountId, email, password: PASSWORD });
    return { tenant, email };
  }

  const issuedCount = async (accountId: string) =>
    (await t.deps.services.certificates.list(accountId, {})).pagination.total;

  // Other test files sign in on the same database at the same time: count anonymous rows, and the
  // rows of one user.
  const sessionRows = async (email?: string) =>
    (
      await t.deps.db.query<{ n: number }>(
        email === undefined
          ? 'SELECT count(*)::int AS n FROM dashboard_sessions WHERE user_id IS NULL'
          : 'SELECT count(*)::int AS n FROM dashboard_sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1',
        email === undefined ? [] : [email],
      )
    ).rows[0]!.n;

  // A signed-in user of a fresh account, and a way to upload a CSV as the upload page does.
  async function uploader() {
    const { tenant, email } = await user();
    const client = formClient(t);
    await signInWith(client, email, PASSWORD);
    const upload = async (content: string) => {
      await client.get(`/dashboard/certificates/upload?templateId=${tenant.templateId}`);
      return client.upload(
        '/dashboard/certificates/upload',
        { templateId: tenant.templateId },
        { name: 'recipients.csv', content },
      );
    };
    return { tenant, client, upload };
  }

  it('refuses a CSV with a NUL in a row before issuing anything, naming the row and column', async () => {
    const { tenant, upload } = await uploader();
    const res = await upload(
      'name,email,course\nNulRepro Good,good@a.test,Course\nBad\x00Name,bad@a.test,Course\n',
    );
    assert.equal(res.statusCode, 422, res.body.slice(0, 300));
    assert.match(res.body, /Row 3, column name: the value contains a NUL character; nothing was issued/);
    assert.equal(await issuedCount(tenant.accountId), 0, 'the good row was not issued either');

    // A bidi override in a name and a control character in a field value are refused the same way.
    for (const [content, where] of [
      ['name,email,course\nEve \u202Eevil,eve@a.test,Course\n', /Row 2, column name/],
      ['name,email,course\nAda,ada@a.test,Cour\u0007se\n', /Row 2, column course/],
    ] as const) {
      const again = await upload(content);
      assert.equal(again.statusCode, 422);
      assert.match(again.body, where);
    }
    assert.equal(await issuedCount(tenant.accountId), 0);
  });

  it('keeps the results of an upload out of the session, on a page of the account only', async () => {
    const { client, upload } = await uploader();
    const res = await upload(
      'name,email,course\nZoë Ångström,zoe@a.test,Safe Lifting\nBad,not-an-address,X\n',
    );
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    const location = String(res.headers.location);
    assert.match(location, /^\/dashboard\/certificates\/upload\/results\/[0-9a-f-]{36}$/);
    const { rows } = await t.deps.db.query(
      `SELECT 1 FROM dashboard_sessions WHERE data::text LIKE '%zoe@a.test%'`,
    );
    assert.equal(rows.length, 0, 'no recipient text in any session');
    const page = await client.get(location);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /id="created-count">1</);
    const csv = await client.get(`${location}/results.csv`);
    assert.match(csv.body, /Zoë Ångström,zoe@a.test,created/);

    // Another account's user finds nothing there.
    const other = await user();
    const stranger = formClient(t);
    await signInWith(stranger, other.email, PASSWORD);
    assert.equal((await stranger.get(location)).statusCode, 404);
    assert.equal((await stranger.get(`${location}/results.csv`)).statusCode, 404);
  });

  it('answers a send to an address with a NUL with a message, not a 500', async () => {
    const { tenant, email } = await user();
    const client = formClient(t);
    await signInWith(client, email, PASSWORD);
    const issued = await t.deps.services.issue.issueOne(
      await t.deps.services.accounts.actingPrincipal(tenant.accountId, 'test', SYSTEM),
      tenant.templateId,
      { name: 'Ada', email: 'ada@a.test', data: { course: 'Engines' } },
    );
    await client.get(`/dashboard/certificates/${issued.id}`);
    const res = await client.post(`/dashboard/certificates/${issued.id}/send`, {
      recipientEmail: 'a\x00@a.test',
    });
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    const page = await client.get(`/dashboard/certificates/${issued.id}`);
    assert.match(page.body, /Not sent: the address typed is not an email address/);
  });

  it('stores no session for signed-out visitors; the sign-in form still works', async () => {
    const before = await sessionRows();
    for (let i = 0; i < 300; i++) {
      const res = await t.app.inject({ method: 'GET', url: '/dashboard' });
      assert.equal(res.statusCode, 200);
      assert.doesNotMatch(String(res.headers['set-cookie'] ?? ''), /certsvc_session=/, 'no session cookie');
    }
    assert.equal(await sessionRows(), before, '300 anonymous visits stored no session');
    const { email } = await user();
    const client = formClient(t);
    await signInWith(client, email, PASSWORD);
    assert.equal(await sessionRows(email), 1, 'signing in stores one');
    // A sign-in form without its cookie (or with another's token) is refused.
    const bare = formClient(t);
    await bare.get('/dashboard');
    bare.cookies.clear();
    const forged = await bare.post('/dashboard/sign-in', { email, password: PASSWORD });
    assert.equal(forged.statusCode, 403);
  });

  it('shows a new API key in the answer to its POST only, never storing it', async () => {
    const { email } = await user();
    const client = formClient(t);
    await signInWith(client, email, PASSWORD);
    await client.get('/dashboard/settings/api-keys');
    const res = await client.post('/dashboard/settings/api-keys', {
      name: 'CI',
      scopes: ['certificates:read'],
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['cache-control'], 'no-store');
    const key = /svc_live_[A-Za-z0-9]{32}/.exec(res.body)?.[0];
    assert.ok(key, 'the key is in the answer');
    const stored = await t.deps.db.query(`SELECT 1 FROM dashboard_sessions WHERE data::text LIKE $1`, [
      `%${key.slice(9, 20)}%`,
    ]);
    assert.equal(stored.rowCount, 0, 'the key is in no session');
    assert.doesNotMatch((await client.get('/dashboard/settings/api-keys')).body, /svc_live_[A-Za-z0-9]{32}/);
    // A name the API would refuse is refused here too, and by the CLI's service call.
    const bad = await client.post('/dashboard/settings/api-keys', {
      name: 'x\u202Ey',
      scopes: ['certificates:read'],
    });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /The key was not created: The name must not contain control characters/);
  });

  it('answers a NUL in a search or in the sign-in email with 422', async () => {
    const { email } = await user();
    const anonymous = formClient(t);
    await anonymous.get('/dashboard');
    const signIn = await anonymous.post('/dashboard/sign-in', { email: 'a\x00@a.test', password: 'x' });
    assert.equal(signIn.statusCode, 422);
    const client = formClient(t);
    await signInWith(client, email, PASSWORD);
    for (const q of ['%00', 'a%00%40b.test']) {
      const res = await client.get(`/dashboard/certificates?q=${q}`);
      assert.equal(res.statusCode, 422, `q=${q}`);
      assert.match(res.body, /The q contains a NUL character|The recipientEmail contains a NUL character/);
    }
  });

  it('answers malformed multipart with 422, signed out or in', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/dashboard/sign-out',
      headers: { 'content-type': 'multipart/form-data' },
      payload: '--x\r\n\r\n',
    });
    assert.equal(res.statusCode, 422, res.body.slice(0, 300));
    const bounded = await t.app.inject({
      method: 'POST',
      url: '/dashboard/certificates/upload',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated',
    });
    assert.ok([303, 422].includes(bounded.statusCode), String(bounded.statusCode));
  });

  it('locks sign-in per email and address: a stranger cannot lock a colleague out', async () => {
    const { email } = await user();
    const stranger = formClient(t, '203.0.113.7');
    await stranger.get('/dashboard');
    for (let i = 0; i < 5; i++) {
      assert.equal((await stranger.post('/dashboard/sign-in', { email, password: 'wrong' })).statusCode, 401);
    }
    const locked = await stranger.post('/dashboard/sign-in', { email, password: PASSWORD });
    assert.equal(locked.statusCode, 429, 'the guesser is stopped');
    assert.ok(Number(locked.headers['retry-after']) >= 1);
    // The colleague, from their own address, signs in.
    await signInWith(formClient(t, '198.51.100.20'), email, PASSWORD);
  });

  it('bounds guessing one email from many addresses at 100 an hour', async () => {
    const { email } = await user();
    for (let a = 0; a < 20; a++) {
      const guesser = formClient(t, `192.0.2.${a + 1}`);
      await guesser.get('/dashboard');
      for (let i = 0; i < 5; i++) {
        const res = await guesser.post('/dashboard/sign-in', { email, password: `wrong ${a} ${i}` });
        assert.equal(res.statusCode, 401);
      }
    }
    const next = formClient(t, '192.0.2.200');
    await next.get('/dashboard');
    assert.equal((await next.post('/dashboard/sign-in', { email, password: PASSWORD })).statusCode, 429);
  });
});
