import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { browserSkipReason, launchBrowser, openPage } from '../helpers/browser.js';

// /docs: the API reference built in the browser from the served openapi.json, with nothing from
// another origin.

let t: TestApp;
let base: string;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
after(() => t.close());

describe('GET /docs', () => {
  it('is HTML with a strict CSP and only same-origin scripts', async () => {
    const res = await t.app.inject({ url: '/docs' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self';/);
    assert.doesNotMatch(res.body, /https?:\/\//);
    for (const asset of ['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/start.js']) {
      const a = await t.app.inject({ url: asset });
      assert.equal(a.statusCode, 200, asset);
      assert.ok(a.rawPayload.length > 0, asset);
    }
    assert.equal((await t.app.inject({ url: '/docs/nope.js' })).statusCode, 404);
  });

  it('is not part of the OpenAPI description', async () => {
    const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/docs')));
  });
});

describe('the API reference in Chromium', { skip: browserSkipReason() }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(() => browser?.close());

  it('renders every operation from the served description, with no CSP violation or outside request', async () => {
    const opened = await openPage(browser, `${base}/docs`);
    const outside: string[] = [];
    opened.page.on('request', (r) => {
      if (!r.url().startsWith(base) && !r.url().startsWith('data:')) outside.push(r.url());
    });
    try {
      assert.equal(opened.status, 200);
      await opened.page.waitForSelector('.opblock-summary-path', { timeout: 20_000 });
      const paths = await opened.page.$$eval('.opblock-summary-path', (els) =>
        els.map((e) => e.getAttribute('data-path')),
      );
      const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
      for (const p of Object.keys(doc.paths)) assert.ok(paths.includes(p), `the reference shows ${p}`);
      assert.deepEqual(await opened.cspViolations(), []);
      assert.deepEqual(outside, []);
    } finally {
      await opened.close();
    }
  });
});
