import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { insertDraft, issueOne, randomCode, recipient } from './support.js';

let t: TestApp;
let tenant: Tenant;
let ipCounter = 0;
// A fresh client address per test keeps the per-IP verify bucket of one test out of the others.
const nextIp = () => `203.0.113.${++ipCounter}`;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  tenant = await createTenant(t.deps, { name: 'Verifiable Academy' });
});
after(() => t.close());

const verifyJson = (code: string, ip = '192.0.2.1', app = t) =>
  app.app.inject({ url: `/api/v1/verify/${encodeURIComponent(code)}`, remoteAddress: ip });
const verifyPage = (code: string, ip = '192.0.2.1', app = t) =>
  app.app.inject({ url: `/verify/${encodeURIComponent(code)}`, remoteAddress: ip });

// Verifications are counted in memory and written in batches (verification-counter.ts): written now.
async function verificationCount(id: string): Promise<number> {
  await t.deps.services.verify.flushCounts();
  const { rows } = await t.deps.db.query<{ n: number }>(
    'SELECT verification_count AS n FROM certificates WHERE id = $1',
    [id],
  );
  return rows[0]!.n;
}

describe('GET /api/v1/verify/:code', () => {
  it('200 without a key, exactly the public fields, never the email, other data or ids', async () => {
    const c = await issueOne(
      t,
      tenant,
      recipient(0, {
        name: 'Grace Hopper',
        email: 'grace.secret@example.com',
        data: { course: 'COBOL Internals', hours: 7, cohort: 'zebra-cohort' },
      }),
    );
    const res = await verifyJson(c.uniqueCode, nextIp());
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['data']);
    const { rows } = await t.deps.db.query<{ sha256: string }>(
      'SELECT sha256 FROM certificate_pdfs WHERE certificate_id = $1',
      [c.id],
    );
    assert.deepEqual(body.data, {
      valid: true,
      status: 'Issued',
      uniqueCode: c.uniqueCode,
      recipientName: 'Grace Hopper',
      issuedAt: c.issuedAt,
      expiresAt: null,
      expired: false,
      supersededBy: null,
      revokedAt: null,
      revocationReason: null,
      // The design's title ({{data.course}}) is public on purpose: it says what was earned.
      title: 'COBOL Internals',
      templateName: 'Course completion',
      issuerName: 'Verifiable Academy',
      issuerCurrentName: 'Verifiable Academy',
      verificationUrl: `http://certs.test/verify/${c.uniqueCode}`,
      pdfSha256: rows[0]!.sha256,
      signed: true,
      pdfSigned: true,
      // The account's id is public in its DID, on purpose: it names the issuer (decisions 18).
      issuerDid: `did:web:certs.test:issuers:${tenant.accountId}`,
      credentialUrl: `http://certs.test/api/v1/verify/${c.uniqueCode}/credential`,
    });
    assert.match(body.data.pdfSha256, /^[0-9a-f]{64}$/);
    const { issuerDid: _did, ...rest } = body.data;
    for (const secret of [
      'grace.secret',
      'zebra-cohort',
      c.id,
      tenant.accountId,
      tenant.templateId,
      '"id"',
      'email',
    ]) {
      assert.ok(!JSON.stringify(rest).includes(secret), `the body shows ${secret}`);
    }
  });

  it('the code is case-insensitive', async () => {
    const c = await issueOne(t, tenant);
    const res = await verifyJson(c.uniqueCode.toLowerCase(), nextIp());
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().data.uniqueCode, c.uniqueCode);
    const mixed = c.uniqueCode.slice(0, 8).toLowerCase() + c.uniqueCode.slice(8);
    assert.equal((await verifyJson(mixed, nextIp())).statusCode, 200);
    const page = await verifyPage(c.uniqueCode.toLowerCase(), nextIp());
    assert.equal(page.statusCode, 200);
    assert.equal(await verificationCount(c.id), 3);
  });

  it('input that cannot be a code: 422 at ["code"]; a well-formed unknown code: 404; neither counts', async () => {
    const c = await issueOne(t, tenant);
    const ip = nextIp();
    const valid = c.uniqueCode;
    for (const bad of [
      valid.slice(0, 15),
      `${valid}0`,
      `${valid.slice(0, 15)}I`,
      `${valid.slice(0, 15)}L`,
      `${valid.slice(0, 15)}O`,
      `${valid.slice(0, 15)}U`,
      `${valid.slice(0, 15)}u`,
      `${valid.slice(0, 15)}-`,
      `${valid.slice(0, 15)}é`,
      `${valid.slice(0, 8)} ${valid.slice(9)}`,
      'x',
    ]) {
      const res = await verifyJson(bad, ip);
      assert.equal(res.statusCode, 422, `${bad}: ${res.body}`);
      assert.equal(res.json().error.code, 'validation_error');
      assert.deepEqual(res.json().error.details.issues[0].path, ['code'], bad);
    }
    let unknown = randomCode();
    while (unknown === valid) unknown = randomCode();
    const res = await verifyJson(unknown, ip);
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, 'not_found');
    assert.equal(await verificationCount(c.id), 0);
  });

  it('a Draft certificate reads 404, JSON and page, and is not counted', async () => {
    const code = randomCode();
    const id = await insertDraft(t, tenant, code);
    const ip = nextIp();
    assert.equal((await verifyJson(code, ip)).statusCode, 404);
    assert.equal((await verifyPage(code, ip)).statusCode, 404);
    assert.equal(await verificationCount(id), 0);
  });

  it('a revoked certificate: valid false, status Revoked, with the date and the public reason', async () => {
    const c = await issueOne(t, tenant);
    const revoked = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${c.id}/revoke`,
      headers: tenant.auth,
      payload: { reason: 'Plagiarism found in the final project' },
    });
    assert.equal(revoked.statusCode, 200);
    const res = await verifyJson(c.uniqueCode, nextIp());
    assert.equal(res.statusCode, 200);
    const v = res.json().data;
    assert.equal(v.valid, false);
    assert.equal(v.status, 'Revoked');
    assert.equal(v.revokedAt, revoked.json().data.revokedAt);
    assert.match(v.revokedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(v.revocationReason, 'Plagiarism found in the final project');
    assert.equal(v.issuedAt, c.issuedAt);
    const page = await verifyPage(c.uniqueCode, nextIp());
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /revoked/i);
  });

  it('verificationCount +1 per successful JSON or page verification, not on 404 or 422', async () => {
    const c = await issueOne(t, tenant);
    const ip = nextIp();
    for (let i = 0; i < 3; i++) assert.equal((await verifyJson(c.uniqueCode, ip)).statusCode, 200);
    for (let i = 0; i < 2; i++) assert.equal((await verifyPage(c.uniqueCode, ip)).statusCode, 200);
    await verifyJson(`${c.uniqueCode}X`, ip);
    await verifyJson(c.uniqueCode.slice(0, 15), ip);
    await verifyPage(c.uniqueCode.slice(0, 15), ip);
    const read = await t.app.inject({ url: `/api/v1/certificates/${c.id}`, headers: tenant.auth });
    assert.equal(read.json().data.verificationCount, 5);
    assert.equal(read.json().data.downloadCount, 0);
  });
});

describe('GET /verify/:code (page)', () => {
  it('text/html 200 for a certificate, 404 page for an unknown or impossible code', async () => {
    const c = await issueOne(t, tenant, recipient(0, { name: 'Zoë Ångström' }));
    const ip = nextIp();
    const res = await verifyPage(c.uniqueCode, ip);
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.ok(res.body.includes('Zoë Ångström'));
    assert.ok(res.body.includes('Verifiable Academy'));
    assert.ok(!res.body.includes('r0@example.com'), 'no email on the page');
    for (const code of [randomCode(), 'not-a-code']) {
      const missing = await verifyPage(code, ip);
      assert.equal(missing.statusCode, 404, code);
      assert.match(String(missing.headers['content-type']), /^text\/html/);
    }
  });
});

describe('per-IP verify limit', () => {
  let limited: TestApp;
  let owner: Tenant;
  before(async () => {
    limited = await startTestApp();
    owner = await createTenant(limited.deps);
  });
  after(() => limited.close());

  it('X-RateLimit headers on verify, from a bucket separate from the key bucket', async () => {
    const c = (
      await limited.app.inject({
        method: 'POST',
        url: '/api/v1/certificates',
        headers: owner.auth,
        payload: { templateId: owner.templateId, recipient: recipient() },
      })
    ).json().data;
    const keyBefore = await limited.app.inject({
      url: '/api/v1/usage',
      headers: owner.auth,
      remoteAddress: '198.51.100.7',
    });
    const keyRemaining = Number(keyBefore.headers['x-ratelimit-remaining']);

    const ip = '198.51.100.7';
    const first = await verifyJson(c.uniqueCode, ip, limited);
    assert.equal(first.headers['x-ratelimit-limit'], '60');
    assert.equal(first.headers['x-ratelimit-remaining'], '59');
    assert.match(String(first.headers['x-ratelimit-reset']), /^\d+$/);
    const second = await verifyJson(c.uniqueCode, ip, limited);
    assert.equal(second.headers['x-ratelimit-remaining'], '58');
    // A verification with a key header still uses the IP bucket, and it does not touch the key's.
    const withKey = await limited.app.inject({
      url: `/api/v1/verify/${c.uniqueCode}`,
      headers: owner.auth,
      remoteAddress: ip,
    });
    assert.equal(withKey.headers['x-ratelimit-remaining'], '57');

    const keyAfter = await limited.app.inject({
      url: '/api/v1/usage',
      headers: owner.auth,
      remoteAddress: ip,
    });
    assert.equal(
      Number(keyAfter.headers['x-ratelimit-remaining']),
      keyRemaining - 1,
      'verifications do not count on the key',
    );

    const otherIp = await verifyJson(c.uniqueCode, '198.51.100.8', limited);
    assert.equal(otherIp.headers['x-ratelimit-remaining'], '59', 'each IP has its own bucket');
  });

  it('the 61st from one IP is 429 with Retry-After, JSON and page sharing the bucket', async () => {
    const code = (
      await limited.app.inject({
        method: 'POST',
        url: '/api/v1/certificates',
        headers: owner.auth,
        payload: { templateId: owner.templateId, recipient: recipient() },
      })
    ).json().data.uniqueCode;
    const ip = '198.51.100.60';
    for (let i = 0; i < 60; i++) {
      const res = i % 2 === 0 ? await verifyJson(code, ip, limited) : await verifyPage(code, ip, limited);
      assert.equal(res.statusCode, 200, `request ${i + 1}`);
    }
    for (const res of [
      await verifyJson(code, ip, limited),
      await verifyPage(code, ip, limited),
      await verifyJson(randomCode(), ip, limited),
    ]) {
      assert.equal(res.statusCode, 429);
      // The page answers a page, also when refused; the JSON endpoint answers the envelope.
      if (String(res.headers['content-type']).startsWith('text/html')) {
        assert.match(res.body, /Too many requests/);
      } else assert.equal(res.json().error.code, 'rate_limited');
      const retryAfter = Number(res.headers['retry-after']);
      assert.ok(
        Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
        String(res.headers['retry-after']),
      );
      assert.equal(res.headers['x-ratelimit-remaining'], '0');
    }
    await limited.deps.services.verify.flushCounts();
    const { rows } = await limited.deps.db.query<{ n: number }>(
      'SELECT verification_count AS n FROM certificates WHERE unique_code = $1',
      [code],
    );
    assert.equal(rows[0]!.n, 60, 'refused verifications are not counted');
    assert.equal(
      (await verifyJson(code, '198.51.100.61', limited)).statusCode,
      200,
      'another IP is not limited',
    );
  });
});
