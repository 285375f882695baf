import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant } from '../helpers/app.js';
import { formClient, signInWith } from '../dashboard/form-client.js';
import { newOperator, operatorSignIn, PASSWORD, startClockedApp } from './support.js';

// The console's changes to accounts: each one an audit event of the account, by the operator; a
// suspended account's keys answer 403 and its users cannot sign in.

type Clocked = Awaited<ReturnType<typeof startClockedApp>>;
let t: Clocked;
let op: { id: string; email: string };
let ops: ReturnType<typeof formClient>;
let addresses = 0;

before(async () => {
  t = await startClockedApp();
  op = await newOperator(t);
  ops = formClient(t, '10.8.0.1');
  await operatorSignIn(ops, op, t.clock.now);
});
after(async () => {
  await t?.close();
});

interface AuditRow {
  action: string;
  actor_type: string;
  actor_id: string;
  actor_label: string;
  target_type: string;
  target_id: string;
  ip: string | null;
  request_id: string | null;
  changes: Record<string, unknown>;
}

async function events(accountId: string): Promise<AuditRow[]> {
  const { rows } = await t.deps.db.query<AuditRow>(
    `SELECT action, actor_type, actor_id, actor_label, target_type, target_id, ip, request_id, changes
       FROM audit_events WHERE account_id = $1 ORDER BY seq`,
    [accountId],
  );
  return rows;
}

function byOperator(e: AuditRow, action: string, accountId: string) {
  assert.equal(e.action, action);
  assert.equal(e.actor_type, 'operator');
  assert.equal(e.actor_id, op.id);
  assert.equal(e.actor_label, op.email);
  assert.equal(e.target_type, 'account');
  assert.equal(e.target_id, accountId);
  assert.equal(e.ip, '10.8.0.1');
  assert.ok(e.request_id);
}

async function templatesWithKey(auth: { authorization: string }) {
  return t.app.inject({ method: 'GET', url: '/api/v1/templates', headers: auth });
}

describe('suspend and resume', () => {
  it('a suspended account: its key gets 403 forbidden, its users cannot sign in, an open session is refused', async () => {
    const tenant = await createTenant(t.deps);
    const email = `suspended-${process.pid}-${Date.now()}@academy.test`;
    await t.deps.services.users.create({ accountId: tenant.accountId, email, password: PASSWORD });
    const user = formClient(t, `10.8.1.${++addresses}`);
    await signInWith(user, email, PASSWORD);
    assert.equal((await templatesWithKey(tenant.auth)).statusCode, 200);

    const page = await ops.get(`/admin/accounts/${tenant.accountId}`);
    assert.match(page.body, /<button type="submit" class="danger">Suspend<\/button>/);
    const res = await ops.post(`/admin/accounts/${tenant.accountId}/suspend`, {});
    assert.equal(res.statusCode, 303);
    const after = await ops.get(`/admin/accounts/${tenant.accountId}`);
    assert.match(after.body, /The account is suspended/);
    assert.match(after.body, /<button type="submit">Resume<\/button>/);

    const api = await templatesWithKey(tenant.auth);
    assert.equal(api.statusCode, 403);
    assert.equal(api.json().error.code, 'forbidden');
    assert.match(api.json().error.message, /suspended/);

    const open = await user.get('/dashboard/templates');
    assert.equal(open.statusCode, 403, 'the open session is refused');
    assert.match(open.body, /account is suspended/);
    assert.equal((await user.get('/dashboard/templates')).statusCode, 303, 'and ended');
    await user.get('/dashboard');
    const signIn = await user.post('/dashboard/sign-in', { email, password: PASSWORD });
    assert.equal(signIn.statusCode, 403);
    assert.match(signIn.body, /account is suspended/);

    // Suspending again changes nothing and records nothing.
    await ops.post(`/admin/accounts/${tenant.accountId}/suspend`, {});
    assert.match((await ops.get(`/admin/accounts/${tenant.accountId}`)).body, /already suspended/);

    assert.equal((await ops.post(`/admin/accounts/${tenant.accountId}/resume`, {})).statusCode, 303);
    assert.equal((await templatesWithKey(tenant.auth)).statusCode, 200);
    await signInWith(user, email, PASSWORD);
    assert.equal((await user.get('/dashboard/templates')).statusCode, 200);

    const trail = await events(tenant.accountId);
    // The tenant's own making (its key, its user) comes first; then the operator's two actions.
    assert.deepEqual(
      trail.map((e) => e.action).filter((a) => a.startsWith('account.')),
      ['account.suspended', 'account.resumed'],
    );
    const ops2 = trail.filter((e) => e.action.startsWith('account.'));
    byOperator(ops2[0]!, 'account.suspended', tenant.accountId);
    byOperator(ops2[1]!, 'account.resumed', tenant.accountId);
    assert.deepEqual(await t.deps.services.audit.verify(tenant.accountId), {
      ok: true,
      events: trail.length,
    });
  });

  it('the services the CLI calls still work for a suspended account; any key of it is refused', async () => {
    const tenant = await createTenant(t.deps);
    await ops.post(`/admin/accounts/${tenant.accountId}/suspend`, {});
    const keys = await t.deps.services.keys.list(tenant.accountId);
    assert.ok(keys.length >= 1);
    const key = await t.deps.services.keys.create(tenant.accountId, { name: 'after suspension' });
    const api = await templatesWithKey({ authorization: `Bearer ${key.key}` });
    assert.equal(api.statusCode, 403, 'a new key of a suspended account is refused as well');
  });
});

describe('accounts, plans and contracts', () => {
  it('creates an account, changes its plan and its contract, each an audit event of that account', async () => {
    const name = `Console Academy ${Date.now()}`;
    const created = await ops.post('/admin/accounts', { name, plan: 'Pro' });
    assert.equal(created.statusCode, 303);
    const accountId = /\/admin\/accounts\/([0-9a-f-]{36})$/.exec(String(created.headers.location))?.[1];
    assert.ok(accountId, String(created.headers.location));
    const list = await ops.get('/admin');
    assert.match(list.body, new RegExp(`data-account-id="${accountId}"`));

    assert.equal((await ops.post(`/admin/accounts/${accountId}/plan`, { plan: 'Business' })).statusCode, 303);
    assert.equal((await t.deps.services.accounts.get(accountId)).plan, 'Business');
    const refused = await ops.post(`/admin/accounts/${accountId}/plan`, { plan: 'Platinum' });
    assert.equal(refused.statusCode, 303);
    assert.match(
      (await ops.get(`/admin/accounts/${accountId}`)).body,
      /The plan was not changed: Unknown plan/,
    );
    assert.equal((await t.deps.services.accounts.get(accountId)).plan, 'Business');

    assert.equal(
      (await ops.post(`/admin/accounts/${accountId}/contract`, { ends: '2999-01-31' })).statusCode,
      303,
    );
    const withContract = await t.deps.services.accounts.overview(accountId);
    assert.ok(withContract.contract);
    assert.equal(withContract.contract.endsAt, '2999-01-31T00:00:00.000Z');
    await ops.post(`/admin/accounts/${accountId}/contract`, { ends: 'soon' });
    assert.match((await ops.get(`/admin/accounts/${accountId}`)).body, /End contract/);
    assert.equal((await ops.post(`/admin/accounts/${accountId}/contract/end`, {})).statusCode, 303);
    assert.equal((await t.deps.services.accounts.overview(accountId)).contract, null);

    const trail = await events(accountId);
    assert.deepEqual(
      trail.map((e) => e.action),
      ['account.updated', 'account.updated', 'account.updated', 'account.updated'],
    );
    trail.forEach((e) => byOperator(e, 'account.updated', accountId));
    assert.deepEqual(trail[0]!.changes, { created: { name, plan: 'Pro' } });
    assert.deepEqual(trail[1]!.changes, { plan: { from: 'Pro', to: 'Business' } });
    assert.equal((trail[2]!.changes.contract as { endsAt: string }).endsAt, '2999-01-31T00:00:00.000Z');
    assert.equal((trail[3]!.changes.contract as { ended: string }).ended, withContract.contract.id);
  });

  it('shows the accounts with plan, usage and contract; refuses a bad account form and changes nothing', async () => {
    const tenant = await createTenant(t.deps, { name: 'Usage Academy', monthlyLimit: 40 });
    const list = await ops.get('/admin');
    const row = new RegExp(`<tr data-account-id="${tenant.accountId}">([\\s\\S]*?)</tr>`).exec(
      list.body,
    )?.[1];
    assert.ok(row);
    assert.match(row, /Usage Academy/);
    assert.match(row, /Business/);
    assert.match(row, /0 of 40/);
    assert.match(row, /none/);

    const before = (await t.deps.services.accounts.list()).length;
    const res = await ops.post('/admin/accounts', { name: '   ', plan: 'Pro' });
    assert.equal(res.headers.location, '/admin');
    assert.match((await ops.get('/admin')).body, /The account was not created/);
    assert.equal((await t.deps.services.accounts.list()).length, before);
    assert.equal((await ops.get('/admin/accounts/not-an-id')).statusCode, 404);
  });

  it('pages the accounts 50 at a time, newest first; a malformed page is refused', async () => {
    for (let i = 0; i < 51; i++) await createTenant(t.deps, { name: `Paged Academy ${i}` });
    const ids = (body: string) =>
      [...body.matchAll(/<tr data-account-id="([0-9a-f-]{36})">/g)].map((m) => m[1]!);
    const first = await ops.get('/admin');
    assert.equal(ids(first.body).length, 50);
    assert.match(first.body, /Paged Academy 50/, 'the newest first');
    const total = (await t.deps.services.accounts.list()).length;
    assert.match(first.body, new RegExp(`Page 1 of ${Math.ceil(total / 50)} \\(${total} accounts\\)`));
    assert.match(first.body, /<a href="\/admin\?page=2" rel="next">Next<\/a>/);
    const second = await ops.get('/admin?page=2');
    assert.equal(second.statusCode, 200);
    assert.ok(ids(second.body).length > 0);
    assert.ok(!ids(second.body).some((id) => ids(first.body).includes(id)), 'no account on two pages');
    assert.match(second.body, /rel="prev">Previous</);
    for (const bad of ['0', 'two', '-1', '1e3', '9999999']) {
      const res = await ops.get(`/admin?page=${bad}`);
      assert.equal(res.statusCode, 422, bad);
      assert.match(res.body, /No such page/);
    }
  });
});
