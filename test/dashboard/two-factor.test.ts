import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { URI } from 'otpauth';
import { createKeyVault } from '../../src/platform/proof/key-vault.js';
import { createTenant, type TestApp } from '../helpers/app.js';
import { formClient } from './form-client.js';
import {
  codeAt,
  passwordStep,
  PASSWORD,
  startClockedApp,
  STEP_MS,
  turnOnTwoFactor,
  type Clock,
} from './two-factor-support.js';

let counter = 0;
let ips = 0;

describe('two-factor sign-in (TOTP and recovery codes)', () => {
  let t: TestApp & { clock: Clock };
  before(async () => {
    t = await startClockedApp();
  });
  after(() => t?.close());

  // A new account and user, and a client from an address of its own (rate-limit buckets per IP).
  async function newUser(role = 'owner') {
    const tenant = await createTenant(t.deps);
    const email = `tf-${process.pid}-${Date.now()}-${++counter}@academy.test`;
    const { user } = await t.deps.services.users.create({
      accountId: tenant.accountId,
      email,
      password: PASSWORD,
    });
    await t.deps.db.query('UPDATE users SET role = $2 WHERE id = $1', [user.id, role]);
    return { accountId: tenant.accountId, id: user.id, email };
  }
  const client = () => formClient(t, `10.29.${Math.floor(++ips / 250)}.${ips % 250}`);
  async function signedIn(email: string) {
    const c = client();
    const res = await passwordStep(c, email);
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/dashboard');
    return c;
  }
  async function events(accountId: string) {
    const { rows } = await t.deps.db.query<{
      action: string;
      actor_id: string | null;
      target_id: string | null;
      changes: Record<string, unknown>;
    }>('SELECT action, actor_id, target_id, changes FROM audit_events WHERE account_id = $1 ORDER BY seq', [
      accountId,
    ]);
    return rows;
  }

  it('turns on from the profile: the secret as text and as a link, a code to confirm, ten recovery codes once', async () => {
    const u = await newUser();
    const c = await signedIn(u.email);
    const start = await c.post('/dashboard/settings/profile/two-factor/start', {});
    assert.equal(start.statusCode, 303);
    const profile = await c.get('/dashboard/settings/profile');
    assert.equal(profile.headers['cache-control'], 'no-store');
    const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(profile.body)![1]!;
    const link = /data-testid="totp-uri">([^<]+)</.exec(profile.body)![1]!.replaceAll('&amp;', '&');
    assert.match(link, /^otpauth:\/\/totp\//);
    // An authenticator app reading the link computes the codes of the same secret.
    const app = URI.parse(link);
    assert.equal(app.generate({ timestamp: t.clock.now.getTime() }), codeAt(secret, t.clock.now));
    assert.match(profile.body, /<label for="code">Code<\/label>/);

    const wrong = await c.post('/dashboard/settings/profile/two-factor/confirm', { code: '000000' });
    assert.equal(wrong.statusCode, 422);
    assert.match(wrong.body, /The code is not right/);
    const off = await t.deps.db.query('SELECT two_factor_enabled_at FROM users WHERE id = $1', [u.id]);
    assert.equal(off.rows[0].two_factor_enabled_at, null, 'a wrong code changes nothing');

    const right = await c.post('/dashboard/settings/profile/two-factor/confirm', {
      code: codeAt(secret, t.clock.now),
    });
    assert.equal(right.statusCode, 200);
    const codes = [...right.body.matchAll(/data-testid="recovery-code">([a-z0-9-]+)</g)].map((m) => m[1]!);
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);

    const { rows } = await t.deps.db.query(
      'SELECT two_factor_enabled_at, two_factor_secret, two_factor_pending_secret FROM users WHERE id = $1',
      [u.id],
    );
    assert.ok(rows[0].two_factor_enabled_at);
    assert.equal(rows[0].two_factor_pending_secret, null);
    const sealed: Buffer = rows[0].two_factor_secret;
    assert.ok(!sealed.toString('latin1').includes(secret), 'the secret is stored sealed');
    const stored = await t.deps.db.query<{ code_hash: string }>(
      'SELECT code_hash FROM user_recovery_codes WHERE user_id = $1',
      [u.id],
    );
    assert.equal(stored.rowCount, 10);
    for (const code of codes)
      assert.ok(!stored.rows.some((r) => r.code_hash.includes(code.replace('-', ''))));

    // Shown once: the profile afterwards lists none of them.
    const later = await c.get('/dashboard/settings/profile');
    assert.doesNotMatch(later.body, /data-testid="recovery-code"/);
    assert.match(later.body, /Recovery codes left: 10/);
    const audit = (await events(u.accountId)).filter((e) => e.action === 'user.two_factor_enabled');
    assert.equal(audit.length, 1);
    assert.equal(audit[0]!.actor_id, u.id);
  });

  it('asks for a code after the password; the half-way session opens no page', async () => {
    const u = await newUser();
    const { secret } = await turnOnTwoFactor(await signedIn(u.email), t.clock);
    t.clock.move(STEP_MS);

    const c = client();
    const res = await passwordStep(c, u.email);
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/dashboard/sign-in/code');
    for (const url of ['/dashboard/templates', '/dashboard/settings/profile', '/dashboard/certificates']) {
      const page = await c.get(url);
      assert.equal(page.statusCode, 303, url);
      assert.equal(page.headers.location, '/dashboard');
    }
    const home = await c.get('/dashboard');
    assert.match(home.body, /Sign in to the dashboard/, 'the home page is still the sign-in form');
    const step = await c.get('/dashboard/sign-in/code');
    assert.match(step.body, /<label for="code">Code<\/label>/);

    const done = await c.post('/dashboard/sign-in/code', { code: codeAt(secret, t.clock.now) });
    assert.equal(done.statusCode, 303, done.body);
    assert.equal(done.headers.location, '/dashboard');
    assert.equal((await c.get('/dashboard/templates')).statusCode, 200);
    const signedInEvents = (await events(u.accountId)).filter((e) => e.action === 'user.signed_in');
    assert.deepEqual(
      signedInEvents.map((e) => e.changes.method),
      ['password', 'totp'],
    );
    const { rows } = await t.deps.db.query('SELECT last_sign_in_at FROM users WHERE id = $1', [u.id]);
    assert.equal(rows[0].last_sign_in_at.getTime(), t.clock.now.getTime());
  });

  it('takes a code once, and follows the clock across steps (one step of drift)', async () => {
    const u = await newUser();
    const { secret } = await turnOnTwoFactor(await signedIn(u.email), t.clock);
    const codeStep = async (code: string) => {
      const c = client();
      assert.equal((await passwordStep(c, u.email)).headers.location, '/dashboard/sign-in/code');
      return (await c.post('/dashboard/sign-in/code', { code })).statusCode;
    };
    // The confirming code is used already.
    assert.equal(await codeStep(codeAt(secret, t.clock.now)), 401);

    t.clock.move(STEP_MS);
    const next = codeAt(secret, t.clock.now);
    // A moment later the clock crosses into the following step: the code of the step before is
    // still taken (an app's clock may lag by a step), once.
    t.clock.move(STEP_MS);
    assert.notEqual(codeAt(secret, t.clock.now), next);
    assert.equal(await codeStep(next), 303);
    assert.equal(await codeStep(next), 401, 'a code works once');

    // Two steps later the code of this step is too old, the code of the new one is taken.
    const old = codeAt(secret, t.clock.now);
    t.clock.move(2 * STEP_MS);
    assert.equal(await codeStep(old), 401, 'a code two steps old is refused');
    assert.equal(await codeStep(codeAt(secret, t.clock.now)), 303);
    // A code of an earlier step than one taken is refused, even inside the drift window.
    t.clock.move(STEP_MS);
    assert.equal(await codeStep(codeAt(secret, new Date(t.clock.now.getTime() - STEP_MS))), 401);
  });

  it('takes each recovery code once', async () => {
    const u = await newUser();
    const { codes } = await turnOnTwoFactor(await signedIn(u.email), t.clock);
    const c = client();
    await passwordStep(c, u.email);
    const first = await c.post('/dashboard/sign-in/code', { code: codes[3]!.toUpperCase() });
    assert.equal(first.statusCode, 303, first.body);
    const profile = await c.get('/dashboard/settings/profile');
    assert.match(profile.body, /Recovery codes left: 9/);

    const again = client();
    await passwordStep(again, u.email);
    const replay = await again.post('/dashboard/sign-in/code', { code: codes[3]! });
    assert.equal(replay.statusCode, 401);
    assert.match(replay.body, /The code is not right, or it was used already/);
    assert.equal((await again.get('/dashboard/templates')).statusCode, 303);
    const other = await again.post('/dashboard/sign-in/code', { code: codes[4]! });
    assert.equal(other.statusCode, 303);
    const methods = (await events(u.accountId)).filter((e) => e.action === 'user.signed_in');
    assert.deepEqual(
      methods.map((e) => e.changes.method),
      ['password', 'recovery', 'recovery'],
    );
  });

  it('a secret this server can no longer open (SIGNING_KEYS_SECRET changed): a clear 503, and recovery codes still sign in', async () => {
    const u = await newUser();
    const { secret, codes } = await turnOnTwoFactor(await signedIn(u.email), t.clock);
    // The stored secret as another master key sealed it: what a changed SIGNING_KEYS_SECRET reads.
    const other = createKeyVault(randomBytes(32)).seal(Buffer.from(secret), `two-factor:${u.id}`);
    await t.deps.db.query('UPDATE users SET two_factor_secret = $2 WHERE id = $1', [u.id, other]);
    const c = client();
    await passwordStep(c, u.email);
    const refused = await c.post('/dashboard/sign-in/code', { code: codeAt(secret, t.clock.now) });
    assert.equal(refused.statusCode, 503);
    assert.match(refused.body, /cannot read your two-factor secret .*recovery codes/);
    assert.equal((await c.get('/dashboard/templates')).statusCode, 303, 'not signed in');
    const recovered = await c.post('/dashboard/sign-in/code', { code: codes[0]! });
    assert.equal(recovered.statusCode, 303, recovered.body);
    assert.equal(recovered.headers.location, '/dashboard');
  });

  it('refuses wrong codes, records them, and rate limits them like passwords', async () => {
    const u = await newUser();
    const { secret } = await turnOnTwoFactor(await signedIn(u.email), t.clock);
    t.clock.move(STEP_MS);
    const c = client();
    await passwordStep(c, u.email);
    for (const code of ['000000', '12345', 'abcde-fghij', 'x'.repeat(500), '999999']) {
      const res = await c.post('/dashboard/sign-in/code', { code });
      assert.equal(res.statusCode, 401, code);
    }
    const limited = await c.post('/dashboard/sign-in/code', { code: codeAt(secret, t.clock.now) });
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.match(limited.body, /Too many code attempts/);
    assert.equal((await c.get('/dashboard/templates')).statusCode, 303, 'still not signed in');
    const failed = (await events(u.accountId)).filter((e) => e.action === 'user.sign_in_failed');
    assert.equal(failed.length, 5);
    for (const e of failed) {
      assert.equal(e.actor_id, null, 'whoever typed it is nobody known');
      assert.equal(e.target_id, u.id);
      assert.equal(e.changes.reason, 'code');
    }
    // The same code from another place goes through (the tight bucket is per user and address).
    const elsewhere = client();
    await passwordStep(elsewhere, u.email);
    assert.equal(
      (await elsewhere.post('/dashboard/sign-in/code', { code: codeAt(secret, t.clock.now) })).statusCode,
      303,
    );
  });

  it('records a wrong password of a known user in its account', async () => {
    const u = await newUser();
    const c = client();
    const res = await passwordStep(c, u.email, 'not the password at all');
    assert.equal(res.statusCode, 401);
    const failed = (await events(u.accountId)).filter((e) => e.action === 'user.sign_in_failed');
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.actor_id, null);
    assert.equal(failed[0]!.target_id, u.id);
    assert.deepEqual(failed[0]!.changes, { reason: 'password' });
  });

  it('turns off with the password and a code only', async () => {
    const u = await newUser();
    const c = await signedIn(u.email);
    const { secret } = await turnOnTwoFactor(c, t.clock);
    // On, it is not replaced with a new secret and new recovery codes by a session alone.
    const before = await t.deps.db.query('SELECT two_factor_secret FROM users WHERE id = $1', [u.id]);
    const again = await c.post('/dashboard/settings/profile/two-factor/start', {});
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /turn it off first/);
    const after = await t.deps.db.query('SELECT two_factor_secret FROM users WHERE id = $1', [u.id]);
    assert.deepEqual(after.rows, before.rows);
    t.clock.move(STEP_MS);
    const noPassword = await c.post('/dashboard/settings/profile/two-factor/disable', {
      password: 'wrong password here',
      code: codeAt(secret, t.clock.now),
    });
    assert.equal(noPassword.statusCode, 422);
    const noCode = await c.post('/dashboard/settings/profile/two-factor/disable', {
      password: PASSWORD,
      code: '123456',
    });
    assert.equal(noCode.statusCode, 422);
    const still = await t.deps.db.query('SELECT two_factor_enabled_at FROM users WHERE id = $1', [u.id]);
    assert.ok(still.rows[0].two_factor_enabled_at, 'still on');

    const off = await c.post('/dashboard/settings/profile/two-factor/disable', {
      password: PASSWORD,
      code: codeAt(secret, t.clock.now),
    });
    assert.equal(off.statusCode, 303);
    const { rows } = await t.deps.db.query(
      'SELECT two_factor_enabled_at, two_factor_secret, (SELECT count(*)::int FROM user_recovery_codes WHERE user_id = $1) AS codes FROM users WHERE id = $1',
      [u.id],
    );
    assert.deepEqual(rows[0], { two_factor_enabled_at: null, two_factor_secret: null, codes: 0 });
    assert.equal((await passwordStep(client(), u.email)).headers.location, '/dashboard');
  });
});
