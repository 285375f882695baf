import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { consumeReset, RESET_LINK_TTL_MS } from '../../src/modules/users/password-resets.js';
import { LinkGoneError } from '../../src/modules/users/link-token.js';
import { NotFoundError } from '../../src/platform/errors.js';
import { createTenant, startTestApp, type TestApp } from '../helpers/app.js';
import { formClient } from './form-client.js';

let counter = 0;
let ips = 0;

describe('forgot password', () => {
  let t: TestApp;
  let mailDir: string;
  before(async () => {
    t = await startTestApp();
    mailDir = path.join(t.deps.config.dataDir, 'mail');
  });
  after(() => t?.close());

  async function newUser() {
    const tenant = await createTenant(t.deps);
    const email = `forgot-${process.pid}-${Date.now()}-${++counter}@academy.test`;
    const { user } = await t.deps.services.users.create({ accountId: tenant.accountId, email });
    return { id: user.id, email };
  }
  const client = () => formClient(t, `10.31.${Math.floor(++ips / 250)}.${ips % 250}`);

  async function ask(email: string, c = client()) {
    await c.get('/dashboard/forgot-password');
    return c.post('/dashboard/forgot-password', { email });
  }
  // The page without its per-request parts (the CSRF token).
  const sameness = (body: string) => body.replace(/name="_csrf" value="[^"]+"/g, '');

  // The reset mails to `to` written so far (the mail goes out after the answer: wait for `count`).
  async function mailsTo(to: string, count: number) {
    for (let i = 0; i < 200; i++) {
      const names = await readdir(mailDir).catch(() => [] as string[]);
      const mails = [];
      for (const name of names.filter((n) => n.endsWith('.eml'))) {
        const parsed = await simpleParser(await readFile(path.join(mailDir, name)));
        if (parsed.to && !Array.isArray(parsed.to) && parsed.to.text === to) mails.push(parsed);
      }
      if (mails.length >= count) return mails;
      await sleep(25);
    }
    throw new Error(`fewer than ${count} mails to ${to}`);
  }
  async function resetRows(userId: string) {
    const { rows } = await t.deps.db.query<{ expires_at: Date; created_at: Date }>(
      'SELECT expires_at, created_at FROM password_resets WHERE user_id = $1',
      [userId],
    );
    return rows;
  }

  it('is linked from the sign-in page', async () => {
    const page = await client().get('/dashboard');
    assert.match(page.body, /href="\/dashboard\/forgot-password"/);
    const form = await client().get('/dashboard/forgot-password');
    assert.equal(form.statusCode, 200);
    assert.match(form.body, /<label for="email">Email address<\/label>/);
  });

  it('mails a single-use link valid one hour, and says the same for an unknown address', async () => {
    const u = await newUser();
    const known = await ask(u.email);
    const unknown = await ask(`nobody-${Date.now()}@academy.test`);
    assert.equal(known.statusCode, 200);
    assert.equal(unknown.statusCode, 200);
    assert.match(known.body, /If an account exists for that address, we have sent a link/);
    assert.equal(sameness(known.body), sameness(unknown.body));

    const [mail] = await mailsTo(u.email, 1);
    const link = /http:\/\/certs\.test\/dashboard\/reset-password\/([A-Za-z0-9_-]{43})/.exec(
      mail!.text ?? '',
    );
    assert.ok(link, 'the .eml holds the link');
    assert.match(String(mail!.html), /href="http:\/\/certs\.test\/dashboard\/reset-password\//);
    const token = link[1]!;
    const [row] = await resetRows(u.id);
    assert.equal(row!.expires_at.getTime() - row!.created_at.getTime(), RESET_LINK_TTL_MS);
    const { rows } = await t.deps.db.query('SELECT 1 FROM password_resets WHERE token_hash::text LIKE $1', [
      `%${token}%`,
    ]);
    assert.equal(rows.length, 0, 'only a digest of the token is stored');

    // Past its hour the link opens nothing; within it, once.
    const later = new Date(row!.created_at.getTime() + RESET_LINK_TTL_MS + 1000);
    const password = 'a new password, long enough';
    const use = (at: Date, tok = token) => consumeReset(t.deps.db, { token: tok, password, now: () => at });
    await assert.rejects(use(later), LinkGoneError);
    assert.equal((await use(new Date())).userId, u.id);
    await assert.rejects(use(new Date()), LinkGoneError, 'one use only');
    await assert.rejects(use(new Date(), `${token.slice(0, -1)}A`), NotFoundError);
  });

  it('sends at most 5 mails per address an hour, answering the same page to the 6th', async () => {
    const u = await newUser();
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await ask(u.email));
    for (const a of answers) {
      assert.equal(a.statusCode, 200);
      assert.equal(sameness(a.body), sameness(answers[0]!.body));
    }
    assert.equal((await mailsTo(u.email, 5)).length, 5);
    assert.equal((await resetRows(u.id)).length, 5, 'the 6th made no link');
  });

  it('limits the requests of one client address', async () => {
    const c = client();
    for (let i = 0; i < 20; i++) {
      assert.equal((await ask(`nobody-${i}-${Date.now()}@academy.test`, c)).statusCode, 200);
    }
    const limited = await ask(`nobody-21-${Date.now()}@academy.test`, c);
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.equal(
      (await ask(`nobody-22-${Date.now()}@academy.test`)).statusCode,
      200,
      'another address goes on',
    );
  });

  it('refuses an empty or impossible address with a message, and a post without its token', async () => {
    const c = client();
    await c.get('/dashboard/forgot-password');
    for (const email of ['', 'a\0b@example.com', `${'a'.repeat(300)}@example.com`]) {
      const res = await c.post('/dashboard/forgot-password', { email });
      assert.equal(res.statusCode, 422, JSON.stringify(email));
      assert.match(res.body, /Enter a valid email address/);
    }
    const forged = await t.app.inject({
      method: 'POST',
      url: '/dashboard/forgot-password',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=x%40example.com',
    });
    assert.equal(forged.statusCode, 403);
  });
});
