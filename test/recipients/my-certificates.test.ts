import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { resolveClaimToken } from '../../src/modules/shared/claim-tokens.js';
import { createTenant, issueCertificate, startTestApp, type TestApp } from '../helpers/app.js';
import { formClient } from '../dashboard/form-client.js';
import { startSmtpServer, type TestSmtpServer } from '../emails/smtp-test-server.js';
import { MAIL_FROM } from '../emails/support.js';
import { mailTo, mailsTo, newAddress, signInAsRecipient, signInLinkOf } from './support.js';

// "My certificates" (issue 31 item 4, decisions 22): a sign-in link by email (single use, 30
// minutes), then every certificate issued to the address, in every account; nothing without it.

let t: TestApp;
let smtp: TestSmtpServer;
let ips = 0;
const client = () => formClient(t, `10.36.${Math.floor(++ips / 250)}.${ips % 250}`);

before(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({ SMTP_URL: smtp.url, MAIL_FROM, RATE_LIMIT_MAX: '100000' });
});
after(async () => {
  await t?.close();
  await smtp?.close();
});

describe('My certificates', () => {
  it("lists two accounts' certificates to one address after the link, newest first, and none before", async () => {
    const email = newAddress('ada');
    const a = await createTenant(t.deps, { name: 'Academy of Engines' });
    const b = await createTenant(t.deps, { name: 'School of Looms' });
    // The address in another case in one account: the match ignores case.
    const first = await issueCertificate(t.app, a, {
      name: 'Ada Lovelace',
      email: email.toUpperCase(),
      data: { course: 'Analytical Engines' },
    });
    const second = await issueCertificate(t.app, b, {
      name: 'Ada Lovelace',
      email,
      data: { course: 'Jacquard Weaving' },
    });
    const other = await issueCertificate(t.app, a, {
      name: 'Grace Hopper',
      email: newAddress('grace'),
      data: { course: 'Compilers' },
    });

    const c = client();
    // Without the link: the list is not shown, whatever is asked.
    const before = await c.get('/my/certificates');
    assert.equal(before.statusCode, 303);
    assert.equal(before.headers.location, '/my');
    const pdfBefore = await c.get(`/my/certificates/${first.id}/pdf`);
    assert.equal(pdfBefore.statusCode, 303);
    const form = await c.get('/my');
    assert.equal(form.statusCode, 200);
    // The page's one inline style is the one its CSP allows (nothing else inline).
    const style = /<style>([\s\S]*?)<\/style>/.exec(form.body)![1]!;
    const digest = createHash('sha256').update(style, 'utf8').digest('base64');
    const csp = String(form.headers['content-security-policy']);
    assert.ok(csp.includes(`style-src 'sha256-${digest}'`), csp);
    assert.doesNotMatch(form.body, /<script|style="/);
    assert.match(form.body, /<label for="email">Email address<\/label>/);

    const path = await signInAsRecipient(t, smtp, c, email);
    const cookie = [...c.cookies.keys()];
    assert.deepEqual(cookie, ['certsvc_recipient']);

    const list = await c.get('/my/certificates');
    assert.equal(list.statusCode, 200);
    const codes = [...list.body.matchAll(/data-code="([0-9A-Z]{16})"/g)].map((m) => m[1]);
    assert.deepEqual(codes, [second.uniqueCode, first.uniqueCode]);
    assert.doesNotMatch(list.body, new RegExp(other.uniqueCode));
    assert.match(list.body, /Academy of Engines/);
    assert.match(list.body, /School of Looms/);
    assert.match(list.body, /Jacquard Weaving/);
    for (const name of [
      'Download PDF',
      'Add to your wallet',
      'Add to LinkedIn',
      'Download badge',
      'Request a correction',
    ]) {
      assert.match(list.body, new RegExp(name));
    }
    assert.match(list.body, new RegExp(`href="http://certs.test/verify/${first.uniqueCode}"`));
    assert.match(list.body, /https:\/\/www\.linkedin\.com\/profile\/add\?/);

    // The PDF of one's own certificate; another address's is not found.
    const pdf = await c.get(`/my/certificates/${first.id}/pdf`);
    assert.equal(pdf.statusCode, 200);
    assert.equal(pdf.headers['content-type'], 'application/pdf');
    assert.equal(pdf.rawPayload.subarray(0, 5).toString(), '%PDF-');
    assert.equal((await c.get(`/my/certificates/${other.id}/pdf`)).statusCode, 404);

    // The link worked once: a second use is refused with 410, and opens no session.
    const again = await client().get(path);
    assert.equal(again.statusCode, 410);
    assert.match(again.body, /already been used/);
    assert.equal(again.headers['set-cookie'], undefined);
  });

  it('sets a recipient cookie of its own: HttpOnly, SameSite=Lax, under /my, unknown to the dashboard', async () => {
    const email = newAddress();
    const a = await createTenant(t.deps);
    await issueCertificate(t.app, a, { name: 'Ada', email, data: { course: 'X' } });
    const c = client();
    await c.post('/my', { email });
    const path = signInLinkOf(await mailTo(smtp, email, /sign-in link/));
    const entered = await c.get(path);
    const set = String(entered.headers['set-cookie']);
    assert.match(
      set,
      /^certsvc_recipient=[A-Za-z0-9_-]{43}; Path=\/my; Max-Age=3600; HttpOnly; SameSite=Lax$/,
    );
    const dashboard = await t.app.inject({
      url: '/dashboard/certificates',
      headers: { cookie: set.split(';')[0]! },
    });
    assert.equal(dashboard.statusCode, 303);
    assert.equal(dashboard.headers.location, '/dashboard');
    // Signing out ends the session.
    await c.get('/my/certificates');
    const out = await c.post('/my/sign-out', {});
    assert.equal(out.statusCode, 303);
    assert.equal((await formClient(t).get('/my/certificates')).statusCode, 303);
    const stale = await t.app.inject({ url: '/my/certificates', headers: { cookie: set.split(';')[0]! } });
    assert.equal(stale.statusCode, 303);
  });

  it('answers an unknown address exactly as a known one, and mails only the known one', async () => {
    const known = newAddress('known');
    const unknown = newAddress('unknown');
    const a = await createTenant(t.deps);
    await issueCertificate(t.app, a, { name: 'Ada', email: known, data: { course: 'X' } });
    const u = await client().post('/my', { email: unknown });
    const k = await client().post('/my', { email: known });
    assert.equal(u.statusCode, 202);
    assert.equal(k.statusCode, 202);
    assert.equal(u.body, k.body);
    assert.match(k.body, /If certificates were issued to that address, we have sent it a sign-in link/);
    await mailTo(smtp, known, /sign-in link/);
    const { rows } = await t.deps.db.query('SELECT 1 FROM recipient_links WHERE email = $1', [unknown]);
    assert.equal(rows.length, 0);
    assert.deepEqual(await mailsTo(smtp, unknown), []);
    // Not an address at all: said so, with 422.
    const bad = await client().post('/my', { email: 'not an address' });
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /Enter a valid email address/);
  });

  it('refuses an expired link with 410, and an unknown one with 404', async () => {
    const email = newAddress();
    const a = await createTenant(t.deps);
    await issueCertificate(t.app, a, { name: 'Ada', email, data: { course: 'X' } });
    await client().post('/my', { email });
    const path = signInLinkOf(await mailTo(smtp, email, /sign-in link/));
    await t.deps.db.query(
      `UPDATE recipient_links SET expires_at = now() - interval '1 minute' WHERE email = $1`,
      [email],
    );
    const expired = await client().get(path);
    assert.equal(expired.statusCode, 410);
    assert.match(expired.body, /expired/);
    const unknown = await client().get(`/my/enter/${'A'.repeat(43)}`);
    assert.equal(unknown.statusCode, 404);
    assert.equal((await client().get('/my/enter/short')).statusCode, 404);
  });

  it('counts the links of an address: past 5 an hour, the same answer and no link', async () => {
    const email = newAddress();
    const a = await createTenant(t.deps);
    await issueCertificate(t.app, a, { name: 'Ada', email, data: { course: 'X' } });
    const answers: Awaited<ReturnType<ReturnType<typeof client>['post']>>[] = [];
    for (let i = 0; i < 7; i++) answers.push(await client().post('/my', { email }));
    assert.ok(answers.every((r) => r.statusCode === 202 && r.body === answers[0]!.body));
    const { rows } = await t.deps.db.query('SELECT 1 FROM recipient_links WHERE email = $1', [email]);
    assert.equal(rows.length, 5);
  });

  it('"Add to your wallet" mints a claim token for the certificate and goes to its claim page; forms need the CSRF token', async () => {
    const email = newAddress();
    const a = await createTenant(t.deps);
    const cert = await issueCertificate(t.app, a, { name: 'Ada', email, data: { course: 'X' } });
    const c = client();
    await signInAsRecipient(t, smtp, c, email);
    await c.get('/my/certificates');
    const wallet = await c.post(`/my/certificates/${cert.id}/wallet`, {});
    assert.equal(wallet.statusCode, 303);
    const token = /^\/claim\/([A-Za-z0-9_-]{43})$/.exec(String(wallet.headers.location))?.[1];
    assert.ok(token, String(wallet.headers.location));
    const target = await resolveClaimToken(t.deps.db, token, new Date());
    assert.equal(target.certificateId, cert.id);
    const badge = await c.post(`/my/certificates/${cert.id}/badge`, {});
    assert.equal(badge.statusCode, 303);
    // A template without a badge image: the default seal, as SVG; the link really serves it.
    const location = String(badge.headers.location);
    assert.match(location, /^\/claim\/[A-Za-z0-9_-]{43}\/badge\.svg$/);
    const served = await t.app.inject({ url: location });
    assert.equal(served.statusCode, 200, served.body);
    assert.match(String(served.headers['content-type']), /^image\/svg\+xml/);

    const before = (
      await t.deps.db.query('SELECT count(*)::int AS n FROM claim_tokens WHERE certificate_id = $1', [
        cert.id,
      ])
    ).rows[0].n;
    c.csrf = 'forged';
    const forged = await c.post(`/my/certificates/${cert.id}/wallet`, {});
    assert.equal(forged.statusCode, 403);
    const afterForged = (
      await t.deps.db.query('SELECT count(*)::int AS n FROM claim_tokens WHERE certificate_id = $1', [
        cert.id,
      ])
    ).rows[0].n;
    assert.equal(afterForged, before);
  });

  it('answers bad input with a page and a 4xx, never a 500', async () => {
    const cases = [
      {
        method: 'POST',
        url: '/my',
        headers: { 'content-type': 'application/json' },
        payload: '{"email": 5}',
      },
      { method: 'POST', url: '/my', headers: { 'content-type': 'text/plain' }, payload: 'email=a@b.c' },
      {
        method: 'POST',
        url: '/my',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `email=${'a'.repeat(70_000)}`,
      },
      {
        method: 'POST',
        url: '/my',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'email=a%00b%40c.d',
      },
      { method: 'GET', url: '/my/certificates/not-an-id/pdf' },
      { method: 'GET', url: `/my/certificates/${'0'.repeat(8)}-0000-7000-8000-${'0'.repeat(12)}/correction` },
      {
        method: 'POST',
        url: '/my/certificates/x/wallet',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: '_csrf=x',
      },
      { method: 'GET', url: '/my/nothing-here' },
      { method: 'GET', url: '/claim/short/correction' },
      {
        method: 'POST',
        url: `/claim/${'B'.repeat(43)}/correction`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'name=X',
      },
    ] as const;
    for (const c of cases) {
      const res = await t.app.inject({ ...c, remoteAddress: '10.99.0.1' } as never);
      assert.ok(res.statusCode >= 300 && res.statusCode < 500, `${c.method} ${c.url}: ${res.statusCode}`);
      if (res.statusCode >= 400)
        assert.match(String(res.headers['content-type']), /^text\/html/, `${c.method} ${c.url}`);
    }
  });
});
