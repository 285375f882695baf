import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createKeyVault } from '../../src/platform/proof/key-vault.js';
import { createTenant } from '../helpers/app.js';
import { formClient, signInWith } from '../dashboard/form-client.js';
import { codeAt, newOperator, operatorSignIn, PASSWORD, secretOf, startClockedApp } from './support.js';

// The instance's operators at /admin (decisions 21): own sign-in and session, two-factor required.

type Clocked = Awaited<ReturnType<typeof startClockedApp>>;
let t: Clocked;
let addresses = 0;
// Each client its own address, so that the per-address sign-in buckets of one test leave the others be.
const client = () => formClient(t, `10.9.0.${++addresses}`);

before(async () => {
  t = await startClockedApp();
});
after(async () => {
  await t?.close();
});

async function operatorRow(id: string) {
  const { rows } = await t.deps.db.query<{ totp_secret: Buffer | null; totp_enabled_at: Date | null }>(
    'SELECT totp_secret, totp_enabled_at FROM operators WHERE id = $1',
    [id],
  );
  return rows[0]!;
}

describe('operator sign-in', () => {
  it('asks a new operator to set up two-factor before anything else, then asks every sign-in for a code', async () => {
    const op = await newOperator(t);
    const c = client();
    const signInForm = await c.get('/admin');
    assert.equal(signInForm.statusCode, 200);
    assert.match(signInForm.body, /Sign in to the operators' console/);
    const res = await c.post('/admin/sign-in', { email: op.email, password: PASSWORD });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/admin/two-factor');

    // Half signed in: the console, an account's page and its forms all lead to the set-up.
    const tenant = await createTenant(t.deps);
    for (const url of ['/admin', `/admin/accounts/${tenant.accountId}`, '/admin/nothing-here']) {
      const r = await c.get(url);
      assert.equal(r.statusCode, 303, url);
      assert.equal(r.headers.location, '/admin/two-factor', url);
    }
    const half = await c.post(`/admin/accounts/${tenant.accountId}/suspend`, {});
    assert.equal(half.statusCode, 303);
    assert.equal(half.headers.location, '/admin/two-factor');
    assert.equal((await t.deps.services.accounts.get(tenant.accountId)).suspendedAt, null);

    const setup = await c.get('/admin/two-factor');
    assert.equal(setup.statusCode, 200);
    const secret = secretOf(setup.body);
    const link = /href="(otpauth:\/\/totp\/[^"]+)"/.exec(setup.body)?.[1];
    assert.ok(link, 'an otpauth:// link');
    assert.match(link.replace(/&amp;/g, '&'), new RegExp(`secret=${secret}`));
    assert.equal(
      secretOf((await c.get('/admin/two-factor')).body),
      secret,
      'the same secret until confirmed',
    );
    const row = await operatorRow(op.id);
    assert.ok(row.totp_secret && !row.totp_secret.toString('latin1').includes(secret), 'stored sealed');
    assert.equal(row.totp_enabled_at, null);

    const wrong = await c.post('/admin/two-factor', {
      code: '000000' === codeAt(secret, t.clock.now) ? '111111' : '000000',
    });
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /The code is not right/);
    assert.equal((await c.get('/admin')).headers.location, '/admin/two-factor', 'still half signed in');

    const ok = await c.post('/admin/two-factor', { code: codeAt(secret, t.clock.now) });
    assert.equal(ok.statusCode, 303);
    assert.equal(ok.headers.location, '/admin');
    assert.ok((await operatorRow(op.id)).totp_enabled_at, 'two-factor is on');
    const console = await c.get('/admin');
    assert.equal(console.statusCode, 200);
    assert.match(console.body, /<table id="accounts"/);
    assert.match(console.body, new RegExp(`data-account-id="${tenant.accountId}"`));

    // Sign out, then in again: a code, no set-up; the code of the step already used is refused.
    assert.equal((await c.post('/admin/sign-out', {})).statusCode, 303);
    assert.equal((await c.get(`/admin/accounts/${tenant.accountId}`)).headers.location, '/admin');
    await c.get('/admin');
    await c.post('/admin/sign-in', { email: op.email, password: PASSWORD });
    const codePage = await c.get('/admin/two-factor');
    assert.doesNotMatch(codePage.body, /totp-secret/);
    assert.match(codePage.body, /<label for="code">Code<\/label>/);
    const replay = await c.post('/admin/two-factor', { code: codeAt(secret, t.clock.now) });
    assert.equal(replay.statusCode, 401, 'a code works once');
    t.clock.now = new Date(t.clock.now.getTime() + 30_000);
    const next = await c.post('/admin/two-factor', { code: codeAt(secret, t.clock.now) });
    assert.equal(next.statusCode, 303);
    assert.equal((await c.get('/admin')).statusCode, 200);
  });

  it('refuses a wrong password, and counts sign-in and code attempts', async () => {
    const op = await newOperator(t);
    const c = client();
    await c.get('/admin');
    const wrong = await c.post('/admin/sign-in', { email: op.email, password: 'not the password at all' });
    assert.equal(wrong.statusCode, 401);
    for (let i = 0; i < 4; i++)
      await c.post('/admin/sign-in', { email: op.email, password: 'wrong again!!' });
    const limited = await c.post('/admin/sign-in', { email: op.email, password: PASSWORD });
    assert.equal(limited.statusCode, 429, 'five attempts per email and address');
    assert.ok(Number(limited.headers['retry-after']) >= 1);

    const other = await newOperator(t);
    const d = client();
    await d.get('/admin');
    await d.post('/admin/sign-in', { email: other.email, password: PASSWORD });
    const secret = secretOf((await d.get('/admin/two-factor')).body);
    const bad = codeAt(secret, new Date(t.clock.now.getTime() + 10 * 60_000));
    for (let i = 0; i < 10; i++)
      assert.equal((await d.post('/admin/two-factor', { code: bad })).statusCode, 401);
    const blocked = await d.post('/admin/two-factor', { code: codeAt(secret, t.clock.now) });
    assert.equal(blocked.statusCode, 429, 'ten codes per operator in 15 minutes');
    assert.equal((await operatorRow(other.id)).totp_enabled_at, null);
  });

  it('a secret SIGNING_KEYS_SECRET no longer opens: a clear 503 page, not a 500, and nothing signed in', async () => {
    const op = await newOperator(t);
    const c = client();
    await c.get('/admin');
    await c.post('/admin/sign-in', { email: op.email, password: PASSWORD });
    const secret = secretOf((await c.get('/admin/two-factor')).body);
    // The stored secret as another master key sealed it: what a changed SIGNING_KEYS_SECRET reads.
    const other = createKeyVault(randomBytes(32)).seal(Buffer.from(secret), `operator-totp:${op.id}`);
    await t.deps.db.query('UPDATE operators SET totp_secret = $2 WHERE id = $1', [op.id, other]);
    const refused = await c.post('/admin/two-factor', { code: codeAt(secret, t.clock.now) });
    assert.equal(refused.statusCode, 503);
    assert.match(refused.body, /SIGNING_KEYS_SECRET does not open this operator/);
    assert.equal((await operatorRow(op.id)).totp_enabled_at, null);
    assert.equal((await c.get('/admin')).headers.location, '/admin/two-factor');
  });

  it('needs the CSRF token on every form, and a signed-in operator behind it', async () => {
    const op = await newOperator(t);
    const c = client();
    await operatorSignIn(c, op, t.clock.now);
    const tenant = await createTenant(t.deps);
    c.csrf = 'forged';
    const res = await c.post(`/admin/accounts/${tenant.accountId}/suspend`, {});
    assert.equal(res.statusCode, 403);
    assert.equal((await t.deps.services.accounts.get(tenant.accountId)).suspendedAt, null);
    // Signed out, a form with a valid token still reaches nothing.
    const stranger = client();
    await stranger.get('/admin');
    const signedOut = await stranger.post(`/admin/accounts/${tenant.accountId}/suspend`, {});
    assert.equal(signedOut.statusCode, 303);
    assert.equal(signedOut.headers.location, '/admin');
    assert.equal(
      (await stranger.post('/admin/accounts', { name: 'Nope', plan: 'Pro' })).headers.location,
      '/admin',
    );
    assert.equal((await t.deps.services.accounts.get(tenant.accountId)).suspendedAt, null);
    const anonymous = client();
    await anonymous.get('/admin');
    anonymous.csrf = '';
    assert.equal(
      (await anonymous.post('/admin/sign-in', { email: op.email, password: PASSWORD })).statusCode,
      403,
    );
  });
});

describe('sessions of the two doors', () => {
  it("an account user's session does not open /admin, an operator's does not open /dashboard", async () => {
    const tenant = await createTenant(t.deps);
    const email = `doors-${process.pid}-${Date.now()}@academy.test`;
    await t.deps.services.users.create({ accountId: tenant.accountId, email, password: PASSWORD });
    const user = client();
    await signInWith(user, email, PASSWORD);
    assert.equal((await user.get('/dashboard/templates')).statusCode, 200);
    const asUser = await user.get('/admin');
    assert.equal(asUser.statusCode, 200);
    assert.match(asUser.body, /Sign in to the operators' console/, 'the sign-in page, not the console');
    assert.equal((await user.get(`/admin/accounts/${tenant.accountId}`)).headers.location, '/admin');
    // The user's session cookie under the console's name is no session there either.
    const forged = formClient(t, '10.9.1.1');
    forged.cookies.set('certsvc_admin', user.cookies.get('certsvc_session')!);
    assert.equal((await forged.get(`/admin/accounts/${tenant.accountId}`)).headers.location, '/admin');

    const op = await newOperator(t);
    const ops = client();
    await operatorSignIn(ops, op, t.clock.now);
    const asOperator = await ops.get('/dashboard/templates');
    assert.equal(asOperator.statusCode, 303);
    assert.equal(asOperator.headers.location, '/dashboard');
    const other = formClient(t, '10.9.1.2');
    other.cookies.set('certsvc_session', ops.cookies.get('certsvc_admin')!);
    assert.equal((await other.get('/dashboard/templates')).headers.location, '/dashboard');
  });
});
