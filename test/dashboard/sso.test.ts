import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../src/app.js';
import { createDeps, createLogger } from '../../src/deps.js';
import { createTenant, testConfig, type Tenant, type TestApp } from '../helpers/app.js';
import { signInAtProvider, startProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { formClient, signedInMember, signInWith, type FormClient } from './form-client.js';

// Single sign-on against a real OpenID Provider on loopback (decisions 21): the settings form, the
// flow through the provider's own pages, and every refusal signing nobody in.

const BASE = 'http://certs.test';
const CALLBACK = `${BASE}/dashboard/sso/callback`;
const PASSWORD = 'correct horse battery staple';
const DOMAIN = `p${process.pid}.sso.test`;
let n = 0;
const person = (name = 'person') => `${name}-${++n}@${DOMAIN}`;

// The app with a clock the test can move (hours ahead of the provider's).
async function startApp(clock: { aheadMs: number }): Promise<TestApp> {
  const config = testConfig({ PUBLIC_BASE_URL: BASE });
  const deps = await createDeps(config, {
    logger: createLogger(config),
    now: () => new Date(Date.now() + clock.aheadMs),
  });
  const app = await createApp(deps);
  return {
    app,
    deps,
    async close() {
      await app.close();
      await deps.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

describe('single sign-on (OpenID Connect)', () => {
  const clock = { aheadMs: 0 };
  let t: TestApp;
  let op: TestProvider;
  let tenant: Tenant;
  let owner: FormClient;
  let ownerEmail: string;

  const settingsForm = (fields: Record<string, string> = {}) => ({
    issuerUrl: op.issuer,
    clientId: op.clientId,
    clientSecret: op.clientSecret,
    allowedDomains: DOMAIN,
    defaultRole: 'issuer',
    roleClaim: 'groups',
    roleMap: 'certsvc-admins=admin\ncertsvc-viewers=viewer',
    passwordSignIn: 'on',
    ...fields,
  });
  const userRow = async (email: string) =>
    (await t.deps.db.query('SELECT id, account_id, role FROM users WHERE email = $1', [email])).rows[0];
  const events = async (accountId: string) =>
    (
      await t.deps.db.query<{ action: string; actor_label: string; changes: Record<string, unknown> }>(
        'SELECT action, actor_label, changes FROM audit_events WHERE account_id = $1 ORDER BY seq',
        [accountId],
      )
    ).rows;

  // A browser that starts SSO for the account and signs in at the provider as `email`; returns the
  // browser (its jar holds the pending sign-in cookie) and the callback URL the provider sent it to.
  async function throughProvider(email: string, accountId = tenant.accountId) {
    const browser = formClient(t);
    const start = await browser.get(`/dashboard/sso/${accountId}/start`);
    assert.equal(start.statusCode, 303, start.body);
    const callback = await signInAtProvider(start.headers.location as string, email, CALLBACK);
    return { browser, callback: callback.pathname + callback.search };
  }
  const signedInAs = async (browser: FormClient) => {
    const home = await browser.get('/dashboard');
    return /name="password"/.test(home.body) ? undefined : home.body;
  };

  before(async () => {
    t = await startApp(clock);
    op = await startProvider(CALLBACK);
    tenant = await createTenant(t.deps);
    owner = await signedInMember(t, tenant.accountId);
    ownerEmail = (await t.deps.db.query('SELECT email FROM users WHERE account_id = $1', [tenant.accountId]))
      .rows[0].email;
    await owner.get('/dashboard/settings/sign-in');
    const saved = await owner.post('/dashboard/settings/sign-in', settingsForm());
    assert.equal(saved.statusCode, 303, saved.body);
  });
  after(async () => {
    await op?.close();
    await t?.close();
  });

  it('saves the settings: the secret sealed and never shown, sso.updated names the fields, not the secret', async () => {
    const page = await owner.get('/dashboard/settings/sign-in');
    assert.equal(page.statusCode, 200);
    for (const label of [
      'Issuer URL',
      'Client ID',
      'Client secret',
      'Allowed email domains',
      'Role for new users',
    ])
      assert.match(page.body, new RegExp(`>${label}<`));
    assert.match(page.body, /A secret is set/);
    assert.ok(!page.body.includes(op.clientSecret));
    assert.ok(page.body.includes(CALLBACK), 'the redirect URI to register');
    const stored = await t.deps.db.query('SELECT client_secret FROM account_sso WHERE account_id = $1', [
      tenant.accountId,
    ]);
    assert.ok(!Buffer.from(stored.rows[0].client_secret).includes(op.clientSecret));
    const updated = (await events(tenant.accountId)).filter((e) => e.action === 'sso.updated');
    assert.equal(updated.length, 1);
    assert.ok((updated[0]!.changes.fields as string[]).includes('clientSecret'));
    assert.ok(!JSON.stringify(updated[0]).includes(op.clientSecret));

    // Saved again with the secret left empty: kept; only the changed field is named.
    const again = await owner.post(
      '/dashboard/settings/sign-in',
      settingsForm({ clientSecret: '', defaultRole: 'designer' }),
    );
    assert.equal(again.statusCode, 303, again.body);
    const last = (await events(tenant.accountId)).at(-1)!;
    assert.deepEqual(last.changes, { fields: ['defaultRole'] });
    await owner.post('/dashboard/settings/sign-in', settingsForm({ clientSecret: '' }));
    const { browser, callback } = await throughProvider(person('kept'));
    assert.equal((await browser.get(callback)).statusCode, 303, 'the kept secret still authenticates');
  });

  it('refuses an issuer that is unreachable or not an OpenID Provider, and changes nothing', async () => {
    const before = await events(tenant.accountId);
    for (const issuerUrl of ['http://127.0.0.1:1', `${op.issuer}/nothing-here`, 'http://idp.example.org']) {
      const res = await owner.post('/dashboard/settings/sign-in', settingsForm({ issuerUrl }));
      assert.equal(res.statusCode, 422, issuerUrl);
      assert.match(res.body, /Not saved: /);
    }
    const owners = await owner.post('/dashboard/settings/sign-in', settingsForm({ defaultRole: 'owner' }));
    assert.equal(owners.statusCode, 422);
    assert.match(owners.body, /never makes owners/);
    assert.equal((await events(tenant.accountId)).length, before.length);
    const row = await t.deps.db.query('SELECT issuer_url FROM account_sso WHERE account_id = $1', [
      tenant.accountId,
    ]);
    assert.equal(row.rows[0].issuer_url, op.issuer);
  });

  it('a first sign-in provisions the user with the configured role, then signs them in again', async () => {
    const email = person('new');
    const { browser, callback } = await throughProvider(email);
    const res = await browser.get(callback);
    assert.equal(res.statusCode, 303, res.body);
    assert.equal(res.headers.location, '/dashboard');
    assert.ok((await signedInAs(browser))?.includes(email));
    const user = await userRow(email);
    assert.equal(user.account_id, tenant.accountId);
    assert.equal(user.role, 'issuer');
    const mine = (await events(tenant.accountId)).filter((e) => e.actor_label === email);
    assert.deepEqual(
      mine.map((e) => [e.action, e.changes]),
      [
        ['user.joined', { role: 'issuer', method: 'sso' }],
        ['user.signed_in', { method: 'sso' }],
      ],
    );
    // The next sign-in finds the same user.
    const second = await throughProvider(email);
    assert.equal((await second.browser.get(second.callback)).statusCode, 303);
    assert.equal(
      (await t.deps.db.query('SELECT count(*) FROM users WHERE email = $1', [email])).rows[0].count,
      1,
    );
  });

  it('maps a claim value to the role of a first-time user', async () => {
    const email = person('admin');
    op.people.set(email, { groups: ['staff', 'certsvc-admins'] });
    const { browser, callback } = await throughProvider(email);
    assert.equal((await browser.get(callback)).statusCode, 303);
    assert.equal((await userRow(email)).role, 'admin');
  });

  async function refused(
    browser: FormClient,
    callback: string,
    status: number,
    message: RegExp,
    email: string,
  ) {
    const res = await browser.get(callback);
    assert.equal(res.statusCode, status, res.body);
    assert.match(res.body, message);
    assert.equal(await signedInAs(browser), undefined, 'nobody is signed in');
    assert.equal(await userRow(email), undefined, 'nobody is provisioned');
  }

  it('refuses a wrong state', async () => {
    const email = person('state');
    const { browser, callback } = await throughProvider(email);
    await refused(browser, callback.replace(/state=[^&]+/, 'state=forged'), 400, /does not belong/, email);
    // Nor does a callback reach a browser that never started one.
    await refused(formClient(t), callback, 400, /not started in this browser/, email);
  });

  it('refuses a replayed code', async () => {
    const email = person('replay');
    const { browser, callback } = await throughProvider(email);
    const pending = new Map(browser.cookies);
    assert.equal((await browser.get(callback)).statusCode, 303);
    const replay = formClient(t);
    for (const [k, v] of pending) replay.cookies.set(k, v);
    const res = await replay.get(callback);
    assert.equal(res.statusCode, 400, res.body);
    assert.match(res.body, /refused the sign-in code/);
    assert.equal(await signedInAs(replay), undefined);
  });

  it('refuses an ID token for another audience', async () => {
    const email = person('aud');
    const { browser, callback } = await throughProvider(email);
    op.tamper = { aud: 'another-client' };
    try {
      await refused(
        browser,
        callback,
        400,
        /ID token is not for this sign-in: unexpected JWT &quot;aud&quot;/,
        email,
      );
    } finally {
      op.tamper = undefined;
    }
  });

  it("refuses an ID token whose signature is not from the provider's keys", async () => {
    const email = person('forged');
    const { browser, callback } = await throughProvider(email);
    op.tamper = { email };
    op.forge = true;
    try {
      await refused(browser, callback, 400, /could not be verified/, email);
    } finally {
      op.tamper = undefined;
      op.forge = false;
    }
  });

  it('refuses an expired ID token (our clock two hours ahead of the provider)', async () => {
    const email = person('late');
    clock.aheadMs = 2 * 60 * 60 * 1000;
    try {
      const { browser, callback } = await throughProvider(email);
      await refused(browser, callback, 400, /expired/, email);
    } finally {
      clock.aheadMs = 0;
    }
  });

  it('refuses an email outside the allowed domains, an unverified one, and one of another account', async () => {
    const outside = `someone-${++n}@elsewhere.test`;
    let flow = await throughProvider(outside);
    await refused(flow.browser, flow.callback, 403, /not in the email domains/, outside);

    const unverified = person('unverified');
    op.people.set(unverified, { email_verified: false });
    flow = await throughProvider(unverified);
    await refused(flow.browser, flow.callback, 403, /not verified/, unverified);

    const other = await createTenant(t.deps);
    const theirs = person('theirs');
    await t.deps.services.users.create({ accountId: other.accountId, email: theirs, password: PASSWORD });
    flow = await throughProvider(theirs);
    const res = await flow.browser.get(flow.callback);
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /another organisation/);
    assert.equal(await signedInAs(flow.browser), undefined);
    assert.equal((await userRow(theirs)).account_id, other.accountId);
  });

  it('finds the account from the email on "Sign in with your organisation"', async () => {
    const browser = formClient(t);
    assert.match((await browser.get('/dashboard')).body, /href="\/dashboard\/sso"/);
    assert.equal((await browser.get('/dashboard/sso')).statusCode, 200);
    const res = await browser.get(`/dashboard/sso?email=${encodeURIComponent(person('find'))}`);
    assert.equal(res.statusCode, 303);
    assert.match(res.headers.location as string, new RegExp(`^/dashboard/sso/${tenant.accountId}/start`));
    const none = await browser.get('/dashboard/sso?email=x%40nowhere.test');
    assert.equal(none.statusCode, 404);
    assert.equal((await browser.get('/dashboard/sso?email=a%40b%00')).statusCode, 404, 'a NUL finds nothing');
  });

  it('with password sign-in off, only owners sign in with a password; only an owner turns it off', async () => {
    const issuerEmail = person('password');
    await t.deps.services.users.create({
      accountId: tenant.accountId,
      email: issuerEmail,
      password: PASSWORD,
    });
    await t.deps.db.query("UPDATE users SET role = 'admin' WHERE email = $1", [issuerEmail]);
    const admin = formClient(t);
    await signInWith(admin, issuerEmail, PASSWORD);
    // An admin may read the settings but not change them (its provider could sign in as an owner).
    assert.equal((await admin.get('/dashboard/settings/sign-in')).statusCode, 200);
    const byAdmin = await admin.post(
      '/dashboard/settings/sign-in',
      settingsForm({ clientSecret: '', passwordSignIn: '', issuerUrl: 'http://127.0.0.1:9/' }),
    );
    assert.equal(byAdmin.statusCode, 403);
    assert.match(byAdmin.body, /Only an owner can change single sign-on/);
    let row = await t.deps.db.query('SELECT password_sign_in FROM account_sso WHERE account_id = $1', [
      tenant.accountId,
    ]);
    assert.equal(row.rows[0].password_sign_in, true);

    await owner.get('/dashboard/settings/sign-in');
    const off = await owner.post(
      '/dashboard/settings/sign-in',
      settingsForm({ clientSecret: '', passwordSignIn: '' }),
    );
    assert.equal(off.statusCode, 303, off.body);
    row = await t.deps.db.query('SELECT password_sign_in FROM account_sso WHERE account_id = $1', [
      tenant.accountId,
    ]);
    assert.equal(row.rows[0].password_sign_in, false);

    const refusedClient = formClient(t);
    await refusedClient.get('/dashboard');
    const res = await refusedClient.post('/dashboard/sign-in', { email: issuerEmail, password: PASSWORD });
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /single sign-on/);
    assert.equal(await signedInAs(refusedClient), undefined);
    // The owner is never locked out.
    const ownerAgain = formClient(t);
    await signInWith(ownerAgain, ownerEmail, PASSWORD);
    await owner.post('/dashboard/settings/sign-in', settingsForm({ clientSecret: '' }));
  });

  it('is an organisation page: a viewer gets 403 and changes nothing', async () => {
    const email = person('viewer');
    await t.deps.services.users.create({ accountId: tenant.accountId, email, password: PASSWORD });
    await t.deps.db.query("UPDATE users SET role = 'viewer' WHERE email = $1", [email]);
    const viewer = formClient(t);
    await signInWith(viewer, email, PASSWORD);
    assert.equal((await viewer.get('/dashboard/settings/sign-in')).statusCode, 403);
    const res = await viewer.post(
      '/dashboard/settings/sign-in',
      settingsForm({ issuerUrl: 'http://127.0.0.1:1' }),
    );
    assert.equal(res.statusCode, 403);
  });

  it('turns off: an admin may not while password sign-in is off; an owner may, and sign-in is by password again', async () => {
    const email = person('remover');
    await t.deps.services.users.create({ accountId: tenant.accountId, email, password: PASSWORD });
    await t.deps.db.query("UPDATE users SET role = 'admin' WHERE email = $1", [email]);
    await owner.get('/dashboard/settings/sign-in');
    await owner.post('/dashboard/settings/sign-in', settingsForm({ clientSecret: '', passwordSignIn: '' }));
    await signInWith(formClient(t), ownerEmail, PASSWORD); // the owner may still use a password
    const refusedAdmin = formClient(t);
    await refusedAdmin.get('/dashboard');
    assert.equal(
      (await refusedAdmin.post('/dashboard/sign-in', { email, password: PASSWORD })).statusCode,
      403,
    );
    // The admin signs in through SSO instead, and cannot turn it off.
    const flow = await throughProvider(email);
    assert.equal((await flow.browser.get(flow.callback)).statusCode, 303);
    await flow.browser.get('/dashboard/settings/sign-in');
    await flow.browser.post('/dashboard/settings/sign-in/remove', {});
    assert.match(
      (await flow.browser.get('/dashboard/settings/sign-in')).body,
      /only an owner may turn single sign-on off/,
    );
    const count = async () =>
      (await t.deps.db.query('SELECT count(*) FROM account_sso WHERE account_id = $1', [tenant.accountId]))
        .rows[0].count;
    assert.equal(await count(), 1);

    await owner.get('/dashboard/settings/sign-in');
    assert.equal((await owner.post('/dashboard/settings/sign-in/remove', {})).statusCode, 303);
    assert.equal(await count(), 0);
    assert.deepEqual((await events(tenant.accountId)).at(-1)!.changes, { removed: true });
    assert.equal((await formClient(t).get(`/dashboard/sso/${tenant.accountId}/start`)).statusCode, 404);
    const back = formClient(t);
    await signInWith(back, email, PASSWORD);
  });
});
