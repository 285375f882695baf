import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { buildCertificateMessage } from '../../src/modules/emails/mail-message.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { browserSkipReason, launchBrowser, openPage } from '../helpers/browser.js';

// Names in right-to-left and other scripts on the verification page and in the email body, as
// Chromium shows them: the name's own direction, and a font for it (this machine has no system
// font for Devanagari: the page's bundled web font must be loaded for it).

const skip = browserSkipReason();
const SHOTS = path.resolve('.tmp/screenshots');

/** Where the text of `selector` sits inside the element's box: its left and right gaps in pixels. */
function textGaps(page: Page, selector: string) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel)!;
    const range = document.createRange();
    range.selectNodeContents(el);
    const text = range.getBoundingClientRect();
    const box = el.getBoundingClientRect();
    return {
      direction: getComputedStyle(el).direction,
      left: text.left - box.left,
      right: box.right - text.right,
    };
  }, selector);
}

describe('names in any script on the verification page and in emails', { skip }, () => {
  let browser: Browser;
  let t: TestApp;
  let tenant: Tenant;
  let base = '';

  before(async () => {
    browser = await launchBrowser();
    t = await startTestApp();
    tenant = await createTenant(t.deps, { name: 'أكاديمية بابيج' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function issue(name: string): Promise<string> {
    const res = await fetch(`${base}/api/v1/certificates`, {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        templateId: tenant.templateId,
        recipient: { name, email: 'r@example.com', data: { course: 'Analytical Engines 101' } },
      }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { data: { uniqueCode: string } }).data.uniqueCode;
  }

  it('an Arabic name reads right to left from the right edge, a Latin one from the left', async () => {
    for (const [name, direction] of [
      ['محمد بن علي', 'rtl'],
      ['Ada Lovelace', 'ltr'],
    ] as const) {
      const opened = await openPage(browser, `${base}/verify/${await issue(name)}`);
      try {
        const { page } = opened;
        assert.equal(await page.textContent('#recipient-name'), name);
        const gaps = await textGaps(page, '#recipient-name');
        assert.equal(gaps.direction, direction, name);
        if (direction === 'rtl') assert.ok(gaps.right < 1 && gaps.left > 50, JSON.stringify(gaps));
        else assert.ok(gaps.left < 1 && gaps.right > 50, JSON.stringify(gaps));
        // The issuer's Arabic name inside the English banner sentence keeps the sentence in order.
        assert.match(
          (await page.textContent('#verify-state p')) ?? '',
          /^Issued by أكاديمية بابيج and not revoked\.$/,
        );
        assert.deepEqual(await opened.cspViolations(), []);
        assert.deepEqual(opened.errors, []);
        await page.screenshot({ path: path.join(SHOTS, `verify-${direction}.png`) });
      } finally {
        await opened.close();
      }
    }
  });

  it('loads the bundled font for a Devanagari name, and only when a name needs it', async () => {
    const loadedFonts = async (name: string) => {
      const opened = await openPage(browser, `${base}/verify/${await issue(name)}`);
      try {
        const { page } = opened;
        await page.evaluate(() => document.fonts.ready);
        assert.deepEqual(await opened.cspViolations(), []);
        if (name !== 'Ada Lovelace')
          await page.screenshot({ path: path.join(SHOTS, 'verify-devanagari.png') });
        return await page.evaluate(() =>
          [...document.fonts].filter((f) => f.status === 'loaded').map((f) => f.unicodeRange),
        );
      } finally {
        await opened.close();
      }
    };
    const devanagari = await loadedFonts('प्रियंका शर्मा');
    assert.ok(
      devanagari.some((range) => range.includes('U+900-97F')),
      JSON.stringify(devanagari),
    );
    // The issuer's name in this account is Arabic: only that script's fonts load with a Latin name.
    const latin = await loadedFonts('Ada Lovelace');
    assert.ok(!latin.some((range) => range.includes('U+900-97F')), JSON.stringify(latin));
  });

  it('serves the bundled fonts, and nothing else under /verify/fonts', async () => {
    const font = await fetch(`${base}/verify/fonts/noto-arabic-400.ttf`);
    assert.equal(font.status, 200);
    assert.equal(font.headers.get('content-type'), 'font/ttf');
    assert.match(font.headers.get('cache-control') ?? '', /max-age=31536000/);
    assert.equal(Buffer.from(await font.arrayBuffer()).readUInt32BE(0), 0x00010000);
    for (const file of ['noto-arabic-500.ttf', '..%2Fpackage.json', 'dejavu-sans.ttf']) {
      assert.equal((await fetch(`${base}/verify/fonts/${file}`)).status, 404, file);
    }
  });

  it('the email body isolates the names, so an Arabic name reads right to left in an English sentence', async () => {
    const message = buildCertificateMessage({
      messageId: '<0190f0c2-7e1a-7000-8000-000000000001@example.com>',
      from: 'certs@example.com',
      to: 'r@example.com',
      recipientName: 'محمد بن علي',
      title: 'Analytical Engines 101',
      issuerName: 'أكاديمية بابيج',
      verificationUrl: `${base}/verify/7K3M9Q2XRB4D8F1H`,
      uniqueCode: '7K3M9Q2XRB4D8F1H',
      pdf: Buffer.from('%PDF'),
    });
    const page = await browser.newPage();
    try {
      await page.setContent(message.html);
      const directions = await page.evaluate(() =>
        [...document.querySelectorAll('bdi')].map((b) => getComputedStyle(b).direction),
      );
      assert.deepEqual(directions, ['rtl', 'rtl', 'ltr']);
      assert.equal(await page.evaluate(() => getComputedStyle(document.body).direction), 'ltr');
      assert.match((await page.textContent('p')) ?? '', /^Hello محمد بن علي,$/);
    } finally {
      await page.close();
    }
  });
});
