import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { linkedInAddToProfileUrl } from '../../src/modules/shared/share-links.js';
import { renderVerifyPage } from '../../src/modules/verify/verify.page.js';
import type { VerifyView } from '../../src/modules/verify/verify.schemas.js';
import { createTenant, issueCertificate, startTestApp, type TestApp } from '../helpers/app.js';
import { browserSkipReason, launchBrowser, openPage } from '../helpers/browser.js';
import { cliEnv, runCli } from '../cli/run-cli.js';
import { formClient, signInWith } from '../dashboard/form-client.js';
import { startSmtpServer, type TestSmtpServer } from '../emails/smtp-test-server.js';
import {
  codeInMessage,
  createFreshDatabase,
  MAIL_FROM,
  parseMail,
  waitFor,
  type FreshDatabase,
} from '../emails/support.js';

// "Add to LinkedIn profile", "Copy link" and link previews (issue 19 part 4): the page, the email,
// and the account's LinkedIn organisation id set from the CLI and the dashboard.

const skip = browserSkipReason();

function linkedInParams(href: string): Record<string, string> {
  const url = new URL(href);
  assert.equal(url.origin + url.pathname, 'https://www.linkedin.com/profile/add');
  return Object.fromEntries(url.searchParams);
}

function attr(html: string, pattern: RegExp): string | undefined {
  const m = pattern.exec(html);
  return m?.[1]
    ?.replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

const linkedInHref = (html: string) => attr(html, /<a class="btn primary" id="linkedin-link" href="([^"]*)"/);
const meta = (html: string, key: string) =>
  attr(html, new RegExp(`<meta (?:property|name)="${key.replace('.', '\\.')}" content="([^"]*)">`));

describe('LinkedIn add-to-profile URL', () => {
  it('carries every parameter, by organisation name or id, with the expiry when there is one', () => {
    const base = {
      name: 'Safe Lifting & Handling',
      organizationName: 'Northwind Academy',
      issuedAt: '2026-01-31T23:30:00.000Z',
      certUrl: 'https://certs.example.org/verify/7K3M9Q2XRB4D8F1H',
      certId: '7K3M9Q2XRB4D8F1H',
    };
    assert.deepEqual(linkedInParams(linkedInAddToProfileUrl(base)), {
      startTask: 'CERTIFICATION_NAME',
      name: 'Safe Lifting & Handling',
      organizationName: 'Northwind Academy',
      issueYear: '2026',
      issueMonth: '1',
      certUrl: 'https://certs.example.org/verify/7K3M9Q2XRB4D8F1H',
      certId: '7K3M9Q2XRB4D8F1H',
    });
    const withId = linkedInParams(
      linkedInAddToProfileUrl({ ...base, organizationId: '1337', expiresAt: '2028-12-01T00:00:00.000Z' }),
    );
    assert.equal(withId.organizationId, '1337');
    assert.equal(withId.organizationName, undefined);
    assert.equal(withId.expirationYear, '2028');
    assert.equal(withId.expirationMonth, '12');
  });
});

describe('sharing on the verification page, in the email, and the account setting', () => {
  let db: FreshDatabase;
  let smtp: TestSmtpServer;
  let t: TestApp;
  let dataDir: string;

  before(async () => {
    db = await createFreshDatabase();
    smtp = await startSmtpServer();
    t = await startTestApp({
      DATABASE_URL: db.url,
      SMTP_URL: smtp.url,
      MAIL_FROM,
      EMAIL_POLL_MS: '50',
      RATE_LIMIT_MAX: '100000',
    });
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-sharing-'));
  });
  after(async () => {
    await t?.close();
    await smtp?.close();
    await db?.drop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('offers LinkedIn (by name, then by the id set with the CLI), a link to copy and preview tags', async () => {
    const tenant = await createTenant(t.deps, { name: 'Babbage "Academy" <Ltd>' });
    const cert = await issueCertificate(t.app, tenant, {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      data: { course: 'Analytical Engines' },
    });
    const issuedAt = (await t.app.inject({ url: `/api/v1/verify/${cert.uniqueCode}` })).json().data
      .issuedAt as string;
    const page = await t.app.inject({ url: `/verify/${cert.uniqueCode}` });
    assert.equal(page.statusCode, 200);
    const params = linkedInParams(linkedInHref(page.body)!);
    assert.deepEqual(params, {
      startTask: 'CERTIFICATION_NAME',
      name: 'Analytical Engines',
      organizationName: 'Babbage "Academy" <Ltd>',
      issueYear: String(new Date(issuedAt).getUTCFullYear()),
      issueMonth: String(new Date(issuedAt).getUTCMonth() + 1),
      certUrl: cert.verificationUrl,
      certId: cert.uniqueCode,
    });
    assert.match(
      page.body,
      /<a class="btn primary" id="linkedin-link" href="[^"]*" target="_blank" rel="noopener noreferrer">Add to LinkedIn profile<\/a>/,
    );
    assert.equal(
      attr(page.body, /<input id="share-url" type="url" dir="ltr" readonly value="([^"]*)"/),
      cert.verificationUrl,
    );
    assert.match(page.body, /id="copy-link"[^>]*>Copy link<\/button>/);
    assert.equal(meta(page.body, 'og:title'), 'Ada Lovelace: Analytical Engines');
    assert.equal(meta(page.body, 'twitter:title'), 'Ada Lovelace: Analytical Engines');
    // With a picture of the certificate (issue 33): the large card.
    assert.equal(meta(page.body, 'twitter:card'), 'summary_large_image');
    assert.equal(meta(page.body, 'og:image'), `${cert.verificationUrl}/preview.png`);
    assert.equal(meta(page.body, 'og:url'), cert.verificationUrl);
    for (const key of ['og:description', 'twitter:description', 'description']) {
      assert.match(
        meta(page.body, key)!,
        /^Certificate issued by Babbage "Academy" <Ltd> on .+ to Ada Lovelace\. Verified: valid\.$/,
        key,
      );
    }
    // The JSON answer stays as it was: the account's setting is not in it.
    const json = (await t.app.inject({ url: `/api/v1/verify/${cert.uniqueCode}` })).json().data;
    assert.equal('linkedinOrganizationId' in json, false);

    const env = cliEnv({ DATABASE_URL: db.url, DATA_DIR: dataDir });
    const set = await runCli(
      [
        'account',
        'settings',
        tenant.accountId,
        '--linkedin-organization-id',
        'https://www.linkedin.com/company/1337/admin/',
        '--json',
      ],
      env,
    );
    assert.equal(set.code, 0, set.stderr);
    assert.equal(JSON.parse(set.stdout).settings.linkedinOrganizationId, '1337');
    const byId = linkedInParams(
      linkedInHref((await t.app.inject({ url: `/verify/${cert.uniqueCode}` })).body)!,
    );
    assert.equal(byId.organizationId, '1337');
    assert.equal(byId.organizationName, undefined);

    const bad = await runCli(
      ['account', 'settings', tenant.accountId, '--linkedin-organization-id', 'acme'],
      env,
    );
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /LinkedIn organisation id/);
    const shown = await runCli(['account', 'settings', tenant.accountId], env);
    assert.match(shown.stdout, /LinkedIn organisation id: 1337/);
    const cleared = await runCli(
      ['account', 'settings', tenant.accountId, '--linkedin-organization-id', 'none', '--json'],
      env,
    );
    assert.equal(JSON.parse(cleared.stdout).settings.linkedinOrganizationId, null);

    // A revoked certificate is not offered to LinkedIn; its link can still be shared.
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${cert.id}/revoke`,
      headers: tenant.auth,
    });
    const revoked = (await t.app.inject({ url: `/verify/${cert.uniqueCode}` })).body;
    assert.equal(linkedInHref(revoked), undefined);
    assert.match(revoked, /id="share-url"/);
    assert.match(meta(revoked, 'og:description')!, /Revoked: no longer valid\.$/);
  });

  it('puts the LinkedIn link in both parts of the certificate email', async () => {
    const tenant = await createTenant(t.deps, { name: 'Hopper Institute' });
    await t.deps.services.accounts.updateSettings(SYSTEM, tenant.accountId, { linkedinOrganizationId: '42' });
    const cert = await issueCertificate(t.app, tenant, {
      name: 'Grace Hopper',
      email: 'grace@example.com',
      data: { course: 'Compilers' },
    });
    const worker = t.deps.services.startEmailWorker();
    try {
      const sent = await t.app.inject({
        method: 'POST',
        url: `/api/v1/certificates/${cert.id}/send`,
        headers: tenant.auth,
      });
      assert.equal(sent.statusCode, 202, sent.body);
      const mail = await waitFor('the certificate email', () =>
        smtp.received.find((m) => codeInMessage(m.raw) === cert.uniqueCode),
      );
      const parsed = await parseMail(mail.raw);
      const inText = /(https:\/\/www\.linkedin\.com\/profile\/add\?\S+)/.exec(parsed.text ?? '')?.[1];
      assert.ok(inText, parsed.text);
      const params = linkedInParams(inText);
      assert.equal(params.name, 'Compilers');
      assert.equal(params.organizationId, '42');
      assert.equal(params.certUrl, cert.verificationUrl);
      assert.equal(params.certId, cert.uniqueCode);
      const html = String(parsed.html);
      const inHtml = attr(
        html,
        /<a href="(https:\/\/www\.linkedin\.com\/profile\/add\?[^"]*)">Add to LinkedIn profile<\/a>/,
      );
      assert.equal(inHtml, inText);
    } finally {
      await worker.stop();
    }
  });

  it('sets the LinkedIn organisation id in the dashboard', async () => {
    const tenant = await createTenant(t.deps, { name: 'Dashboard Academy' });
    const email = `sharing-${Date.now()}@academy.test`;
    const password = 'correct horse battery staple';
    await t.deps.services.users.create({ accountId: tenant.accountId, email, password });
    const client = formClient(t);
    await signInWith(client, email, password);
    const home = await client.get('/dashboard');
    assert.match(home.body, /href="\/dashboard\/settings\/sharing"/);
    const form = await client.get('/dashboard/settings/sharing');
    assert.equal(form.statusCode, 200);
    const refused = await client.post('/dashboard/settings/sharing', { linkedinOrganizationId: 'acme corp' });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /Not saved/);
    assert.match(refused.body, /value="acme corp"/);
    const saved = await client.post('/dashboard/settings/sharing', { linkedinOrganizationId: ' 2718 ' });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(
      (await t.deps.services.accounts.get(tenant.accountId)).settings.linkedinOrganizationId,
      '2718',
    );
    const after = await client.get('/dashboard/settings/sharing');
    assert.match(after.body, /Sharing settings saved/);
    assert.match(after.body, /value="2718"/);
  });

  it('copies the link in Chromium under the CSP', { skip }, async () => {
    const tenant = await createTenant(t.deps, { name: 'Copy Academy' });
    const cert = await issueCertificate(t.app, tenant);
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    const browser = await launchBrowser();
    try {
      const opened = await openPage(browser, `${base}/verify/${cert.uniqueCode}`);
      try {
        await opened.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
        const { page } = opened;
        assert.equal(await page.isVisible('#copy-link'), true);
        assert.equal(await page.isVisible('#linkedin-link'), true);
        await page.click('#copy-link');
        await page.waitForSelector('#copy-status[data-copied="true"]');
        assert.equal(await page.innerText('#copy-status'), 'Link copied.');
        assert.equal(
          await page.evaluate(() => navigator.clipboard.readText()),
          `http://certs.test/verify/${cert.uniqueCode}`,
        );
        assert.deepEqual(await opened.cspViolations(), []);
        assert.deepEqual(opened.errors, []);
      } finally {
        await opened.close();
      }
    } finally {
      await browser.close();
    }
  });

  it('renders the expiry into the LinkedIn link when the verification has one', () => {
    const view: VerifyView = {
      valid: true,
      status: 'Issued',
      uniqueCode: '7K3M9Q2XRB4D8F1H',
      recipientName: 'Ada',
      issuedAt: '2026-11-21T09:30:00.000Z',
      revokedAt: null,
      revocationReason: null,
      title: 'Engines',
      templateName: 'Engines',
      issuerName: 'Babbage',
      verificationUrl: 'https://certs.example.com/verify/7K3M9Q2XRB4D8F1H',
      pdfSha256: '0'.repeat(64),
      signed: false,
      pdfSigned: false,
      issuerDid: null,
      credentialUrl: null,
      expiresAt: '2028-11-21T09:30:00.000Z',
      expired: false,
      supersededBy: null,
    };
    const params = linkedInParams(linkedInHref(renderVerifyPage(view))!);
    assert.equal(params.expirationYear, '2028');
    assert.equal(params.expirationMonth, '11');
  });
});
