import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/app.js';
import { createDeps, createLogger, type Deps } from '../../src/deps.js';
import type { TeamActor } from '../../src/modules/users/team.service.js';
import { createTenant, testConfig, type TestApp } from '../helpers/app.js';
import { formClient, signInWith, type FormClient } from '../dashboard/form-client.js';
import { auditActions, linkInMail, mailCount, roleOf } from './support.js';

// Issue 29, the team: invitations (7 days, single use, resend, cancel), the last-owner rule (also
// under concurrent requests), removal ending every session at once, keys naming who made them.

const PASSWORD = 'correct horse battery staple';
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);
let deps: Deps;
let app: FastifyInstance;
let t: TestApp;
let n = 0;
const email = (what: string) => `${what}-${process.pid}-${++n}@academy.test`;

before(async () => {
  const config = testConfig();
  deps = await createDeps(config, { logger: createLogger(config), now });
  app = await createApp(deps);
  t = { app, deps, close: async () => {} };
});
after(async () => {
  await app.close();
  await deps.close();
});

async function ownerOfNewAccount() {
  const tenant = await createTenant(deps);
  const ownerEmail = email('owner');
  const { user } = await deps.services.users.create({
    accountId: tenant.accountId,
    email: ownerEmail,
    password: PASSWORD,
  });
  const client = formClient(t);
  await signInWith(client, ownerEmail, PASSWORD);
  return { tenant, user, client, email: ownerEmail };
}

async function member(accountId: string, role: string) {
  const address = email(role);
  const { user } = await deps.services.users.create({ accountId, email: address, password: PASSWORD, role });
  const client = formClient(t);
  await signInWith(client, address, PASSWORD);
  return { user, client, email: address };
}

async function invite(client: FormClient, to: string, role = 'issuer') {
  await client.get('/dashboard/settings/team');
  return client.post('/dashboard/settings/team/invitations', { email: to, role });
}

async function count(sql: string, params: unknown[]): Promise<number> {
  const { rows } = await deps.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${sql}`, params);
  return Number(rows[0]!.n);
}

describe('team: invitations', () => {
  it('invites by email with a role: the .eml holds a link that makes a signed-in user once', async () => {
    const { tenant, client } = await ownerOfNewAccount();
    const to = email('colleague');
    const sent = await invite(client, to, 'issuer');
    assert.equal(sent.statusCode, 303, sent.body);
    const res = await client.get('/dashboard/settings/team');
    assert.match(res.body, /Invitation sent to/);
    assert.match(res.body, new RegExp(`data-email="${to}"`));
    const link = await linkInMail(deps.config.dataDir, to);
    const { rows } = await deps.db.query('SELECT token_hash FROM invitations WHERE email = $1', [to]);
    assert.equal(rows.length, 1);
    assert.ok(!link.includes(Buffer.from(rows[0].token_hash).toString('hex')), 'only the digest is stored');

    const guest = formClient(t);
    const page = await guest.get(link);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, new RegExp(to));
    // Too short a password: a clear refusal, nothing made.
    const short = await guest.post(link, { password: 'short' });
    assert.equal(short.statusCode, 422);
    assert.match(short.body, /at least 12 characters/);
    assert.equal(await count('users WHERE email = $1', [to]), 0);

    const accepted = await guest.post(link, { password: PASSWORD });
    assert.equal(accepted.statusCode, 303);
    const home = await guest.get('/dashboard');
    assert.match(home.body, /Welcome: you joined as issuer/);
    const { rows: users } = await deps.db.query(
      'SELECT id, role, account_id, last_sign_in_at FROM users WHERE email = $1',
      [to],
    );
    assert.equal(users[0].role, 'issuer');
    assert.equal(users[0].account_id, tenant.accountId);
    assert.ok(users[0].last_sign_in_at);
    // An issuer cannot open Settings > Team.
    assert.equal((await guest.get('/dashboard/settings/team')).statusCode, 403);

    // Single use: the link now answers 410, whether opened or sent again, and changes nothing.
    const again = formClient(t);
    const reopened = await again.get(link);
    assert.equal(reopened.statusCode, 410);
    assert.match(reopened.body, /already been used/);
    await again.get('/dashboard');
    const resent = await again.post(link, { password: 'another long password' });
    assert.equal(resent.statusCode, 410);
    assert.equal(await count('users WHERE email = $1', [to]), 1);

    const events = await auditActions(deps.db, tenant.accountId);
    const invited = events.find((e) => e.action === 'user.invited')!;
    assert.equal(invited.actor_type, 'user');
    assert.deepEqual(invited.changes, { email: to, role: 'issuer' });
    const joined = events.find((e) => e.action === 'user.joined' && e.target_id === users[0].id)!;
    assert.equal(joined.actor_label, to);
  });

  it('a link is valid 7 days: after that it answers 410 and makes no user', async () => {
    const { client } = await ownerOfNewAccount();
    const to = email('late');
    await invite(client, to);
    const link = await linkInMail(deps.config.dataDir, to);
    const guest = formClient(t);
    try {
      offsetMs = 7 * 24 * 3600_000 - 60_000;
      assert.equal((await guest.get(link)).statusCode, 200, 'still valid just before 7 days');
      offsetMs = 7 * 24 * 3600_000 + 1000;
      const late = await guest.get(link);
      assert.equal(late.statusCode, 410);
      assert.match(late.body, /expired/);
      await guest.get('/dashboard');
      assert.equal((await guest.post(link, { password: PASSWORD })).statusCode, 410);
    } finally {
      offsetMs = 0;
    }
    assert.equal(await count('users WHERE email = $1', [to]), 0);
  });

  it('resend mails a new link and the old one stops working; cancel ends the link', async () => {
    const { client } = await ownerOfNewAccount();
    const to = email('resent');
    await invite(client, to);
    const first = await linkInMail(deps.config.dataDir, to);
    const { rows } = await deps.db.query<{ id: string }>('SELECT id FROM invitations WHERE email = $1', [to]);
    const id = rows[0]!.id;
    await client.get('/dashboard/settings/team');
    const resent = await client.post(`/dashboard/settings/team/invitations/${id}/resend`, {});
    assert.equal(resent.statusCode, 303);
    const second = await linkInMail(deps.config.dataDir, to);
    assert.notEqual(second, first);
    const guest = formClient(t);
    assert.equal((await guest.get(first)).statusCode, 404, 'the old link no longer opens');
    assert.equal((await guest.get(second)).statusCode, 200);

    await client.get('/dashboard/settings/team');
    assert.equal(
      (await client.post(`/dashboard/settings/team/invitations/${id}/cancel`, {})).statusCode,
      303,
    );
    const cancelled = await guest.get(second);
    assert.equal(cancelled.statusCode, 410);
    assert.match(cancelled.body, /cancelled/);
    const page = await client.get('/dashboard/settings/team');
    assert.doesNotMatch(page.body, new RegExp(`data-invitation-id="${id}"`));
    await guest.get('/dashboard');
    assert.equal((await guest.post(second, { password: PASSWORD })).statusCode, 410);
    assert.equal(await count('users WHERE email = $1', [to]), 0);
  });

  it('refuses an email that already has a user, and a bad email or role, sending nothing', async () => {
    const { client, tenant } = await ownerOfNewAccount();
    const existing = await member(tenant.accountId, 'viewer');
    const mails = await mailCount(deps.config.dataDir);
    const taken = await invite(client, existing.email);
    assert.equal(taken.statusCode, 409);
    assert.match(taken.body, /already has a certsvc user/);
    assert.equal((await invite(client, 'not an email')).statusCode, 422);
    assert.equal((await invite(client, email('x'), 'emperor')).statusCode, 422);
    assert.equal(await count('invitations WHERE account_id = $1', [tenant.accountId]), 0);
    assert.equal(await mailCount(deps.config.dataDir), mails);
    // A second invitation to an address already invited: resend that one instead.
    const twice = email('twice');
    assert.equal((await invite(client, twice)).statusCode, 303);
    const again = await invite(client, twice);
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /already invited/);
    assert.equal(await count('invitations WHERE account_id = $1', [tenant.accountId]), 1);
  });

  it('only owners invite owners', async () => {
    const { tenant } = await ownerOfNewAccount();
    const admin = await member(tenant.accountId, 'admin');
    const res = await invite(admin.client, email('boss'), 'owner');
    assert.equal(res.statusCode, 403);
    assert.match(res.body, /Only an owner can make someone an owner/);
    assert.equal(await count('invitations WHERE account_id = $1', [tenant.accountId]), 0);
  });
});

describe('team: roles and the last owner', () => {
  async function setRole(client: FormClient, userId: string, role: string) {
    await client.get('/dashboard/settings/team');
    await client.post(`/dashboard/settings/team/${userId}/role`, { role });
    return (await client.get('/dashboard/settings/team')).body;
  }
  async function remove(client: FormClient, userId: string) {
    await client.get(`/dashboard/settings/team/${userId}/remove`);
    const res = await client.post(`/dashboard/settings/team/${userId}/remove`, {});
    return {
      res,
      page:
        res.headers.location === '/dashboard/settings/team'
          ? (await client.get('/dashboard/settings/team')).body
          : '',
    };
  }

  it('the last owner can be neither demoted nor removed, even by themselves', async () => {
    const { client, user } = await ownerOfNewAccount();
    const demoted = await setRole(client, user.id, 'admin');
    assert.match(demoted, /keeps at least one owner/);
    assert.equal(await roleOf(deps.db, user.id), 'owner');
    const { page } = await remove(client, user.id);
    assert.match(page, /keeps at least one owner/);
    assert.equal(await roleOf(deps.db, user.id), 'owner');
  });

  it('an admin changes other roles but cannot demote or remove an owner, or make one', async () => {
    const { tenant, user: owner } = await ownerOfNewAccount();
    const admin = await member(tenant.accountId, 'admin');
    const issuer = await member(tenant.accountId, 'issuer');
    assert.match(await setRole(admin.client, issuer.user.id, 'designer'), /is now designer/);
    assert.equal(await roleOf(deps.db, issuer.user.id), 'designer');
    assert.match(
      await setRole(admin.client, issuer.user.id, 'owner'),
      /Only an owner can make someone an owner/,
    );
    assert.match(await setRole(admin.client, owner.id, 'viewer'), /Only an owner can demote an owner/);
    assert.equal(
      (await remove(admin.client, owner.id)).page.includes('Only an owner can remove an owner'),
      true,
    );
    assert.equal(await roleOf(deps.db, owner.id), 'owner');
    assert.equal(await roleOf(deps.db, issuer.user.id), 'designer');
    const events = await auditActions(deps.db, tenant.accountId);
    const changed = events.filter((e) => e.action === 'user.role_changed');
    assert.equal(changed.length, 1);
    assert.deepEqual(changed[0]!.changes, { from: 'issuer', to: 'designer' });
    assert.equal(changed[0]!.actor_label, admin.email);
  });

  it('an owner makes another owner, then may step down', async () => {
    const { tenant, client, user } = await ownerOfNewAccount();
    const admin = await member(tenant.accountId, 'admin');
    assert.match(await setRole(client, admin.user.id, 'owner'), /is now owner/);
    // Stepping down out of the team page's reach lands on the home page, which says so.
    await client.get('/dashboard/settings/team');
    const res = await client.post(`/dashboard/settings/team/${user.id}/role`, { role: 'viewer' });
    assert.equal(res.headers.location, '/dashboard');
    assert.match((await client.get('/dashboard')).body, /is now viewer/);
    assert.equal(await roleOf(deps.db, user.id), 'viewer');
  });

  it('two owners removing each other at once: one wins, an owner remains', async () => {
    const tenant = await createTenant(deps);
    const a = (
      await deps.services.users.create({ accountId: tenant.accountId, email: email('a'), password: PASSWORD })
    ).user;
    const b = (
      await deps.services.users.create({ accountId: tenant.accountId, email: email('b'), password: PASSWORD })
    ).user;
    const as = (u: { id: string; email: string }): TeamActor => ({
      actor: { type: 'user', id: u.id, label: u.email },
      role: 'owner',
    });
    for (const [first, second] of [
      [
        () => deps.services.team.remove(tenant.accountId, as(a), b.id),
        () => deps.services.team.remove(tenant.accountId, as(b), a.id),
      ],
    ] as const) {
      const outcomes = await Promise.allSettled([first(), second()]);
      assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
      const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      assert.match(String(refused.reason.message), /keeps at least one owner/);
    }
    assert.equal(await count("users WHERE account_id = $1 AND role = 'owner'", [tenant.accountId]), 1);

    // The same for two owners demoting each other.
    const c = (
      await deps.services.users.create({ accountId: tenant.accountId, email: email('c'), password: PASSWORD })
    ).user;
    // The owner left by the removals (c is an owner too: users.create makes owners by default).
    const { rows } = await deps.db.query<{ id: string; email: string }>(
      "SELECT id, email FROM users WHERE account_id = $1 AND role = 'owner' AND id <> $2",
      [tenant.accountId, c.id],
    );
    const survivor = rows[0]!;
    await deps.services.team.changeRole(tenant.accountId, as(survivor), c.id, 'owner');
    const outcomes = await Promise.allSettled([
      deps.services.team.changeRole(tenant.accountId, as(survivor), c.id, 'viewer'),
      deps.services.team.changeRole(tenant.accountId, as(c), survivor.id, 'viewer'),
    ]);
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
    assert.equal(await count("users WHERE account_id = $1 AND role = 'owner'", [tenant.accountId]), 1);
  });
});

describe('team: removing a user', () => {
  it('ends every session of theirs at once; their keys stay and name who made them', async () => {
    const { tenant, client } = await ownerOfNewAccount();
    const admin = await member(tenant.accountId, 'admin');
    const other = formClient(t);
    await signInWith(other, admin.email, PASSWORD);
    // The admin makes a key on the dashboard: it names them, and its event too.
    await admin.client.get('/dashboard/settings/api-keys');
    const made = await admin.client.post('/dashboard/settings/api-keys', {
      name: 'made by admin',
      scopes: ['certificates:read'],
    });
    assert.equal(made.statusCode, 200);
    assert.match(made.body, new RegExp(`Made by ${admin.email}`));
    assert.equal(await count('dashboard_sessions WHERE user_id = $1', [admin.user.id]), 2);

    const { res } = await (async () => {
      await client.get(`/dashboard/settings/team/${admin.user.id}/remove`);
      return { res: await client.post(`/dashboard/settings/team/${admin.user.id}/remove`, {}) };
    })();
    assert.equal(res.statusCode, 303);
    assert.equal(await count('dashboard_sessions WHERE user_id = $1', [admin.user.id]), 0);
    for (const session of [admin.client, other]) {
      const next = await session.get('/dashboard/settings/api-keys');
      assert.equal(next.statusCode, 303);
      assert.equal(next.headers.location, '/dashboard');
    }
    const { rows } = await deps.db.query(
      "SELECT created_by_user_id, created_by_label, revoked_at FROM api_keys WHERE account_id = $1 AND name = 'made by admin'",
      [tenant.accountId],
    );
    assert.equal(rows[0].created_by_user_id, admin.user.id);
    assert.equal(rows[0].created_by_label, admin.email);
    assert.equal(rows[0].revoked_at, null);
    assert.match(
      (await client.get('/dashboard/settings/api-keys')).body,
      new RegExp(`Made by ${admin.email}`),
    );

    const events = await auditActions(deps.db, tenant.accountId);
    const created = events.find((e) => e.action === 'key.created' && e.changes.name === 'made by admin')!;
    assert.equal(created.actor_label, admin.email);
    const removed = events.find((e) => e.action === 'user.removed')!;
    assert.equal(removed.target_id, admin.user.id);
  });
});

describe('password reset links', () => {
  it('sets a new password once, within an hour, ending every session of the user', async () => {
    const { tenant, user, client, email: address } = await ownerOfNewAccount();
    const link = await deps.services.team.resetLink(tenant.accountId, address);
    const path = new URL(link.url).pathname;
    assert.match(path, /^\/dashboard\/reset-password\/[A-Za-z0-9_-]{43}$/);
    const guest = formClient(t);
    assert.equal((await guest.get(path)).statusCode, 200);
    assert.equal((await guest.post(path, { password: 'short' })).statusCode, 422);
    const done = await guest.post(path, { password: 'a brand new long password' });
    assert.equal(done.statusCode, 303);
    assert.equal(await count('dashboard_sessions WHERE user_id = $1', [user.id]), 0);
    assert.equal(
      (await client.get('/dashboard/settings/team')).statusCode,
      303,
      'the old session is signed out',
    );
    assert.equal(await deps.services.users.authenticate(address, PASSWORD), undefined);
    assert.ok(await deps.services.users.authenticate(address, 'a brand new long password'));
    // Once only.
    assert.equal((await guest.get(path)).statusCode, 410);
    await guest.get('/dashboard');
    assert.equal((await guest.post(path, { password: 'yet another long password' })).statusCode, 410);
    assert.ok(await deps.services.users.authenticate(address, 'a brand new long password'));
    const events = await auditActions(deps.db, tenant.accountId);
    assert.equal(events.filter((e) => e.action === 'user.password_changed').length, 1);

    // An hour at most.
    const late = new URL((await deps.services.team.resetLink(tenant.accountId, address)).url).pathname;
    try {
      offsetMs = 3600_000 + 1000;
      assert.equal((await guest.get(late)).statusCode, 410);
      await guest.get('/dashboard');
      assert.equal((await guest.post(late, { password: 'too late a password' })).statusCode, 410);
    } finally {
      offsetMs = 0;
    }
    assert.ok(await deps.services.users.authenticate(address, 'a brand new long password'));
    assert.equal((await guest.get('/dashboard/reset-password/' + 'A'.repeat(43))).statusCode, 404);
  });
});
