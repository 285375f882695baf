import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createTenant,
  issueCertificate,
  startTestApp,
  testDatabaseUrl,
  type Tenant,
  type TestApp,
} from '../helpers/app.js';
import { browserSkipReason, launchBrowser, openPage } from '../helpers/browser.js';
import { cliEnv, runCli } from '../cli/run-cli.js';
import { formClient, signInWith } from '../dashboard/form-client.js';

// "Download PDF" on the public verification page (issue 19 part 7): the frozen bytes, counted as a
// download, under the per-IP verify limit, unless the account turned public download off.

const skip = browserSkipReason();
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let t: TestApp;
let ip = 0;
// Each test gets its own client address: its own verify bucket.
const from = () => `10.9.0.${++ip}`;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '6' });
});
after(async () => {
  await t?.close();
});

async function downloadCount(owner: Tenant, id: string): Promise<number> {
  const res = await t.app.inject({ url: `/api/v1/certificates/${id}`, headers: owner.auth });
  return res.json().data.downloadCount;
}

async function ownersPdf(owner: Tenant, id: string): Promise<Buffer> {
  const res = await t.app.inject({ url: `/api/v1/certificates/${id}/pdf`, headers: owner.auth });
  assert.equal(res.statusCode, 200);
  return res.rawPayload;
}

describe('Download PDF from the verification page', () => {
  it('serves the frozen bytes as an attachment and counts each GET (HEAD not)', async () => {
    const tenant = await createTenant(t.deps);
    const cert = await issueCertificate(t.app, tenant);
    const remoteAddress = from();
    const page = await t.app.inject({ url: `/verify/${cert.uniqueCode}`, remoteAddress });
    assert.match(
      page.body,
      new RegExp(
        `<a class="btn" id="download-pdf" href="${cert.uniqueCode}/pdf" download="certificate-${cert.uniqueCode}.pdf">Download PDF</a>`,
      ),
    );
    const original = await ownersPdf(tenant, cert.id);
    const before = await downloadCount(tenant, cert.id);

    const res = await t.app.inject({ url: `/verify/${cert.uniqueCode.toLowerCase()}/pdf`, remoteAddress });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'application/pdf');
    assert.equal(
      res.headers['content-disposition'],
      `attachment; filename="certificate-${cert.uniqueCode}.pdf"`,
    );
    assert.equal(res.headers['x-ratelimit-limit'], '6');
    assert.ok(res.rawPayload.equals(original), 'the very bytes frozen at issue');
    const verification = (
      await t.app.inject({ url: `/api/v1/verify/${cert.uniqueCode}`, remoteAddress })
    ).json().data;
    assert.equal(sha256(res.rawPayload), verification.pdfSha256);
    assert.equal(await downloadCount(tenant, cert.id), before + 1);

    const head = await t.app.inject({ method: 'HEAD', url: `/verify/${cert.uniqueCode}/pdf`, remoteAddress });
    assert.equal(head.statusCode, 200);
    assert.equal(await downloadCount(tenant, cert.id), before + 1);
  });

  it('shares the per-IP verify limit with the page and the JSON verification', async () => {
    const tenant = await createTenant(t.deps);
    const cert = await issueCertificate(t.app, tenant);
    const remoteAddress = from();
    for (let i = 0; i < 3; i++) {
      assert.equal(
        (await t.app.inject({ url: `/verify/${cert.uniqueCode}`, remoteAddress })).statusCode,
        200,
      );
      assert.equal(
        (await t.app.inject({ url: `/verify/${cert.uniqueCode}/pdf`, remoteAddress })).statusCode,
        200,
      );
    }
    const before = await downloadCount(tenant, cert.id);
    const refused = await t.app.inject({ url: `/verify/${cert.uniqueCode}/pdf`, remoteAddress });
    assert.equal(refused.statusCode, 429);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.match(String(refused.headers['content-type']), /^text\/html/);
    assert.equal(await downloadCount(tenant, cert.id), before, 'a refused download is not counted');
    const json = await t.app.inject({ url: `/api/v1/verify/${cert.uniqueCode}`, remoteAddress });
    assert.equal(json.statusCode, 429);
  });

  it('is not offered for a revoked certificate, an unknown code, or when the account turns it off (CLI and dashboard)', async () => {
    const tenant = await createTenant(t.deps);
    const cert = await issueCertificate(t.app, tenant);
    const remoteAddress = from();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-public-download-'));
    try {
      const env = cliEnv({ DATABASE_URL: testDatabaseUrl(), DATA_DIR: dataDir });
      const off = await runCli(
        ['account', 'settings', tenant.accountId, '--public-download', 'off', '--json'],
        env,
      );
      assert.equal(off.code, 0, off.stderr);
      assert.equal(JSON.parse(off.stdout).settings.publicDownload, false);
      const bad = await runCli(['account', 'settings', tenant.accountId, '--public-download', 'maybe'], env);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--public-download must be on or off/);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
    const before = await downloadCount(tenant, cert.id);
    const page = await t.app.inject({ url: `/verify/${cert.uniqueCode}`, remoteAddress });
    assert.doesNotMatch(page.body, /id="download-pdf"/);
    const refused = await t.app.inject({ url: `/verify/${cert.uniqueCode}/pdf`, remoteAddress });
    assert.equal(refused.statusCode, 404);
    assert.match(String(refused.headers['content-type']), /^text\/html/);
    assert.doesNotMatch(refused.body, /%PDF/);
    assert.equal(await downloadCount(tenant, cert.id), before);
    // The owner's own download is not affected.
    assert.ok((await ownersPdf(tenant, cert.id)).subarray(0, 5).equals(Buffer.from('%PDF-')));

    // Back on from the dashboard; the form without the box checked turns it off again.
    const email = `download-${Date.now()}@academy.test`;
    const password = 'correct horse battery staple';
    await t.deps.services.users.create({ accountId: tenant.accountId, email, password });
    const client = formClient(t);
    await signInWith(client, email, password);
    assert.doesNotMatch(
      (await client.get('/dashboard/settings/sharing')).body,
      /id="public-download"[^>]*checked/,
    );
    const on = await client.post('/dashboard/settings/sharing', {
      linkedinOrganizationId: '',
      publicDownload: 'on',
    });
    assert.equal(on.statusCode, 303, on.body);
    assert.match((await client.get('/dashboard/settings/sharing')).body, /id="public-download"[^>]*checked/);
    assert.equal(
      (await t.app.inject({ url: `/verify/${cert.uniqueCode}/pdf`, remoteAddress })).statusCode,
      200,
    );
    await client.post('/dashboard/settings/sharing', { linkedinOrganizationId: '' });
    assert.equal((await t.deps.services.accounts.get(tenant.accountId)).settings.publicDownload, false);
    await t.deps.services.accounts.updateSettings(SYSTEM, tenant.accountId, { publicDownload: true });

    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${cert.id}/revoke`,
      headers: tenant.auth,
    });
    assert.equal(revoke.statusCode, 200);
    assert.doesNotMatch(
      (await t.app.inject({ url: `/verify/${cert.uniqueCode}`, remoteAddress })).body,
      /id="download-pdf"/,
    );
    assert.equal(
      (await t.app.inject({ url: `/verify/${cert.uniqueCode}/pdf`, remoteAddress })).statusCode,
      404,
    );
    assert.equal(
      (await t.app.inject({ url: '/verify/7K3M9Q2XRB4D8F1Z/pdf', remoteAddress: from() })).statusCode,
      404,
    );
    assert.equal((await t.app.inject({ url: '/verify/nope/pdf', remoteAddress: from() })).statusCode, 422);
  });

  it('downloads in Chromium from the page, the same bytes', { skip }, async () => {
    const tenant = await createTenant(t.deps);
    const cert = await issueCertificate(t.app, tenant);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const browser = await launchBrowser();
    try {
      const opened = await openPage(browser, `${base}/verify/${cert.uniqueCode}`);
      try {
        const [download] = await Promise.all([
          opened.page.waitForEvent('download'),
          opened.page.click('#download-pdf'),
        ]);
        assert.equal(download.suggestedFilename(), `certificate-${cert.uniqueCode}.pdf`);
        const bytes = await readFile((await download.path())!);
        assert.ok(bytes.equals(await ownersPdf(tenant, cert.id)));
        assert.deepEqual(await opened.cspViolations(), []);
      } finally {
        await opened.close();
      }
    } finally {
      await browser.close();
    }
  });
});
