import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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

describe('Settings > Your profile: password and the owner’s two-factor requirement', () => {
  let t: TestApp & { clock: Clock };
  before(async () => {
    t = await startClockedApp();
  });
  after(() => t?.close());

  async function newUser(accountId?: string, role = 'owner') {
    const account = accountId ?? (await createTenant(t.deps)).accountId;
    const email = `profile-${process.pid}-${Date.now()}-${++counter}@academy.test`;
    const { user } = await t.deps.services.users.create({ accountId: account, email, password: PASSWORD });
    await t.deps.db.query('UPDATE users SET role = $2 WHERE id = $1', [user.id, role]);
    return { accountId: account, id: user.id, email };
  }
  const client = () => formClient(t, `10.30.${Math.floor(++ips / 250)}.${ips % 250}`);
  async function signedIn(email: string, password = PASSWORD) {
    const c = client();
    const res = await passwordStep(c, email, password);
    assert.equal(res.statusCode, 303, res.body);
    return c;
  }
  async function actions(accountId: string) {
    const { rows } = await t.deps.db.query<{ action: string; changes: Record<string, unknown> }>(
      'SELECT action, changes FROM audit_events WHERE account_id = $1 ORDER BY seq',
      [accountId],
    );
    return rows;
  }

  it('opens for every role, with the settings menu', async () => {
    for (const role of ['owner', 'admin', 'issuer', 'designer', 'viewer']) {
      const u = await newUser(undefined, role);
      const page = await (await signedIn(u.email)).get('/dashboard/settings/profile');
      assert.equal(page.statusCode, 200, role);
      assert.match(page.body, /aria-current="page">Your profile</);
      assert.match(page.body, /Change password/);
      assert.equal(/Require two-factor sign-in for everyone/.test(page.body), role === 'owner', role);
    }
  });

  it('changes the password: the current one first, the new one twice, long enough; other sessions end', async () => {
    const u = await newUser();
    const here = await signedIn(u.email);
    const elsewhere = await signedIn(u.email);
    const change = (fields: Record<string, string>) =>
      here.post('/dashboard/settings/profile/password', fields);
    const next = 'a brand new passphrase';

    const refusals: [Record<string, string>, RegExp][] = [
      [{ current: 'not my password', password: next, again: next }, /The current password is not right/],
      [{ current: PASSWORD, password: 'short', again: 'short' }, /at least 12 characters/],
      [{ current: PASSWORD, password: next, again: `${next}!` }, /The two new passwords differ/],
    ];
    for (const [fields, message] of refusals) {
      const res = await change(fields);
      assert.equal(res.statusCode, 422);
      assert.match(res.body, message);
    }
    assert.equal((await passwordStep(client(), u.email, next)).statusCode, 401, 'nothing changed');
    assert.equal((await elsewhere.get('/dashboard/templates')).statusCode, 200);

    const ok = await change({ current: PASSWORD, password: next, again: next });
    assert.equal(ok.statusCode, 303);
    const after = await here.get('/dashboard/settings/profile');
    assert.equal(after.statusCode, 200, 'this session goes on');
    assert.match(after.body, /Password changed/);
    const other = await elsewhere.get('/dashboard/templates');
    assert.equal(other.statusCode, 303, 'the other session ended');
    assert.equal(other.headers.location, '/dashboard');
    assert.equal((await passwordStep(client(), u.email, PASSWORD)).statusCode, 401);
    assert.equal((await passwordStep(client(), u.email, next)).statusCode, 303);
    const changed = (await actions(u.accountId)).filter((e) => e.action === 'user.password_changed');
    assert.equal(changed.length, 1);
    assert.deepEqual(changed[0]!.changes, {}, 'no password in the audit trail');
  });

  it('ends a sign-in waiting for its code when the password changes', async () => {
    const u = await newUser();
    const here = await signedIn(u.email);
    const { secret } = await turnOnTwoFactor(here, t.clock);
    t.clock.move(STEP_MS);
    const halfway = client();
    assert.equal((await passwordStep(halfway, u.email)).headers.location, '/dashboard/sign-in/code');
    const next = 'another new passphrase';
    const change = await here.post('/dashboard/settings/profile/password', {
      current: PASSWORD,
      password: next,
      again: next,
    });
    assert.equal(change.statusCode, 303);
    const code = await halfway.post('/dashboard/sign-in/code', { code: codeAt(secret, t.clock.now) });
    assert.equal(code.statusCode, 303);
    assert.equal(code.headers.location, '/dashboard', 'back to the sign-in form, not signed in');
    assert.equal((await halfway.get('/dashboard/templates')).statusCode, 303);
  });

  it('lets only an owner require two-factor; users without it set it up before any other page', async () => {
    const owner = await newUser();
    const ownerClient = await signedIn(owner.email);
    const admin = await newUser(owner.accountId, 'admin');
    const viewer = await newUser(owner.accountId, 'viewer');
    const colleague = await newUser(owner.accountId, 'issuer');

    for (const who of [admin, viewer]) {
      const res = await (
        await signedIn(who.email)
      ).post('/dashboard/settings/profile/require-two-factor', {
        require: 'on',
      });
      assert.equal(res.statusCode, 403, who.email);
    }
    const unchanged = await t.deps.db.query('SELECT require_two_factor FROM accounts WHERE id = $1', [
      owner.accountId,
    ]);
    assert.equal(unchanged.rows[0].require_two_factor, false);

    const colleagueClient = await signedIn(colleague.email);
    assert.equal((await colleagueClient.get('/dashboard/templates')).statusCode, 200);

    const on = await ownerClient.post('/dashboard/settings/profile/require-two-factor', { require: 'on' });
    assert.equal(on.statusCode, 303);
    const updated = (await actions(owner.accountId)).filter((e) => e.action === 'account.updated');
    assert.deepEqual(
      updated.map((e) => e.changes),
      [{ requireTwoFactor: true }],
    );

    // The colleague's open session and a new one: every page leads to the profile.
    const fresh = client();
    const signIn = await passwordStep(fresh, colleague.email);
    assert.equal(signIn.headers.location, '/dashboard');
    for (const c of [colleagueClient, fresh]) {
      for (const url of ['/dashboard', '/dashboard/templates', '/dashboard/settings/api-keys']) {
        const res = await c.get(url);
        assert.equal(res.statusCode, 303, url);
        assert.equal(res.headers.location, '/dashboard/settings/profile', url);
      }
      const issue = await c.post('/dashboard/certificates/new', {});
      assert.equal(issue.statusCode, 303);
      assert.equal(issue.headers.location, '/dashboard/settings/profile');
    }
    const profile = await fresh.get('/dashboard/settings/profile');
    assert.equal(profile.statusCode, 200);
    assert.match(profile.body, /Your organisation requires two-factor sign-in/);

    await turnOnTwoFactor(fresh, t.clock);
    assert.equal((await fresh.get('/dashboard/templates')).statusCode, 200, 'set up: the pages open');
    // Required: it cannot be turned off.
    t.clock.move(STEP_MS);
    const off = await fresh.post('/dashboard/settings/profile/two-factor/disable', {
      password: PASSWORD,
      code: '123456',
    });
    assert.equal(off.statusCode, 403);

    // The owner, without two-factor, is sent to set it up too.
    assert.equal(
      (await ownerClient.get('/dashboard/templates')).headers.location,
      '/dashboard/settings/profile',
    );
    const { secret } = await turnOnTwoFactor(ownerClient, t.clock);
    const stop = await ownerClient.post('/dashboard/settings/profile/require-two-factor', { require: 'off' });
    assert.equal(stop.statusCode, 303);
    t.clock.move(STEP_MS);
    const disable = await ownerClient.post('/dashboard/settings/profile/two-factor/disable', {
      password: PASSWORD,
      code: codeAt(secret, t.clock.now),
    });
    assert.equal(disable.statusCode, 303);
    assert.equal((await ownerClient.get('/dashboard/templates')).statusCode, 200);
  });
});
