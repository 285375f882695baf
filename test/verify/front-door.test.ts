import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { codeFromInput, FRONT_DOOR_CSP } from '../../src/modules/verify/front-door.page.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { browserSkipReason, launchBrowser, openPage } from '../helpers/browser.js';

const skip = browserSkipReason();
if (skip) console.log(`# front door browser tests skipped: ${skip}`);

describe('front door: GET / and GET /verify/', () => {
  let t: TestApp;
  let tenant: Tenant;
  let browser: Browser | undefined;
  let base = '';

  before(async () => {
    t = await startTestApp();
    tenant = await createTenant(t.deps, { name: 'Babbage Academy' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('answers / with a page linking the dashboard, the API docs and a code box, under a strict CSP', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html; charset=utf-8/);
    assert.equal(res.headers['content-security-policy'], FRONT_DOOR_CSP);
    assert.match(FRONT_DOOR_CSP, /default-src 'none'/);
    assert.match(FRONT_DOOR_CSP, /style-src 'sha256-[A-Za-z0-9+/]{43}='/);
    assert.doesNotMatch(FRONT_DOOR_CSP, /unsafe|script-src|https?:|\*/);
    assert.match(FRONT_DOOR_CSP, /form-action 'self'/);
    assert.ok(res.headers['x-request-id']);
    assert.match(res.body, /<a id="dashboard-link" href="dashboard">/);
    assert.match(res.body, /<a id="docs-link" href="docs">/);
    assert.match(res.body, /<form id="verify-form" method="get" action="verify\/">/);
    assert.match(res.body, /Verify a certificate/);
    assert.doesNotMatch(res.body, /<script|\sstyle=|\son[a-z]+=/i);

    const head = await t.app.inject({ method: 'HEAD', url: '/' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  });

  it('answers /verify/ with the code box, and redirects a typed code to its page', async () => {
    const box = await t.app.inject({ method: 'GET', url: '/verify/' });
    assert.equal(box.statusCode, 200);
    assert.equal(box.headers['content-security-policy'], FRONT_DOOR_CSP);
    assert.match(box.body, /<form id="verify-form" method="get" action="\.\.\/verify\/">/);
    assert.doesNotMatch(box.body, /id="code-error"/);

    const typed = await t.app.inject({ method: 'GET', url: '/verify/?code=%207k3m-9q2x-rb4d-8f1h%20' });
    assert.equal(typed.statusCode, 303);
    assert.equal(typed.headers.location, '7K3M9Q2XRB4D8F1H');

    const bad = await t.app.inject({ method: 'GET', url: '/verify/?code=%3Cb%3Enope' });
    assert.equal(bad.statusCode, 200);
    assert.match(bad.body, /id="code-error"/);
    assert.match(bad.body, /&lt;b&gt;nope/);
    assert.doesNotMatch(bad.body, /<b>nope/);

    assert.equal(codeFromInput('https://certs.test/verify/7k3m9q2xrb4d8f1h'), '7K3M9Q2XRB4D8F1H');
    assert.equal(codeFromInput('http://x/verify/7K3M9Q2XRB4D8F1H/?lang=fr'), '7K3M9Q2XRB4D8F1H');
    assert.equal(codeFromInput('7K3M 9Q2X RB4D 8F1H'), '7K3M9Q2XRB4D8F1H');
    assert.equal(codeFromInput('7K3M9Q2XRB4D8F1I'), undefined, 'I is not Crockford base32');
    assert.equal(codeFromInput(''), undefined);
  });

  it("speaks the reader's language: Accept-Language or ?lang=, Arabic right to left, English otherwise", async () => {
    const fr = await t.app.inject({
      method: 'GET',
      url: '/',
      headers: { 'accept-language': 'fr-CH, fr;q=0.9, en;q=0.5' },
    });
    assert.equal(fr.statusCode, 200);
    assert.equal(fr.headers['content-language'], 'fr');
    assert.match(String(fr.headers.vary), /Accept-Language/);
    assert.match(fr.body, /<html lang="fr" dir="ltr">/);
    assert.match(fr.body, /<h2 id="verify-title">Vérifier un certificat<\/h2>/);
    assert.match(fr.body, /<button type="submit">Vérifier<\/button>/);
    assert.match(fr.body, /<a id="dashboard-link" href="dashboard">Tableau de bord<\/a>/);
    assert.doesNotMatch(fr.body, /Verify a certificate/);

    const ar = await t.app.inject({ method: 'GET', url: '/?lang=ar' });
    assert.match(ar.body, /<html lang="ar" dir="rtl">/);
    assert.match(ar.body, /<title>الشهادات<\/title>/);
    assert.match(ar.body, /<input id="verify-code"[^>]* dir="ltr">/, 'the code is typed left to right');

    const bad = await t.app.inject({
      method: 'GET',
      url: '/verify/?code=%3Cb%3Enein',
      headers: { 'accept-language': 'de' },
    });
    assert.equal(bad.statusCode, 200);
    assert.match(bad.body, /<html lang="de" dir="ltr">/);
    assert.match(bad.body, /„<span dir="auto">&lt;b&gt;nein<\/span>“ ist kein Zertifikatscode/);
    assert.doesNotMatch(bad.body, /<b>nein/);

    const other = await t.app.inject({
      method: 'GET',
      url: '/',
      headers: { 'accept-language': 'it, sv;q=0.8' },
    });
    assert.equal(other.headers['content-language'], 'en');
    assert.match(other.body, /<html lang="en" dir="ltr">/);
    for (const page of [fr, ar, bad]) assert.equal(page.headers['content-security-policy'], FRONT_DOOR_CSP);
  });

  it('keeps JSON 404s elsewhere and the verification routes as they were', async () => {
    for (const url of ['/nope', '/api/v1/nope', '/index.html']) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
      assert.deepEqual(res.json(), { error: { code: 'not_found', message: 'No such endpoint' } }, url);
    }
    const post = await t.app.inject({ method: 'POST', url: '/' });
    assert.equal(post.statusCode, 405);
    assert.match(String(post.headers.allow), /GET/);
    const unknown = await t.app.inject({ method: 'GET', url: '/verify/7K3M9Q2XRB4D8F1Z' });
    assert.equal(unknown.statusCode, 404);
    assert.match(unknown.body, /No certificate found/);
  });

  it(
    'takes a visitor from / through the code box to the verification page in Chromium',
    { skip },
    async () => {
      const cert = await issueCertificate(t.app, tenant);
      browser = await launchBrowser();
      const opened = await openPage(browser, `${base}/`);
      try {
        const { page } = opened;
        assert.equal(opened.status, 200);
        assert.equal(await page.getAttribute('#dashboard-link', 'href'), 'dashboard');
        await page.fill('#verify-code', cert.uniqueCode.toLowerCase().replace(/(.{4})(?!$)/g, '$1-'));
        await Promise.all([
          page.waitForURL(`${base}/verify/${cert.uniqueCode}`),
          page.click('#verify-form button'),
        ]);
        assert.equal(await page.getAttribute('#verify-state', 'data-state'), 'valid');
        assert.deepEqual(await opened.cspViolations(), []);
        assert.deepEqual(opened.errors, []);
      } finally {
        await opened.close();
      }
      const box = await openPage(browser, `${base}/verify/`);
      try {
        assert.equal(box.status, 200);
        await box.page.fill('#verify-code', `${base}/verify/${cert.uniqueCode}`);
        await Promise.all([
          box.page.waitForURL(`${base}/verify/${cert.uniqueCode}`),
          box.page.click('#verify-form button'),
        ]);
        assert.equal(await box.page.innerText('#unique-code'), cert.uniqueCode);
        assert.deepEqual(await box.cspViolations(), []);
      } finally {
        await box.close();
      }
    },
  );
});
