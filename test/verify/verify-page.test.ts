import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Browser, Page } from 'playwright-core';
import {
  renderNotFoundPage,
  renderVerifyPage,
  VERIFY_PAGE_CSP,
} from '../../src/modules/verify/verify.page.js';
import type { VerifyView } from '../../src/modules/verify/verify.schemas.js';
import { VERIFY_SCRIPT_PATH } from '../../src/modules/verify/verify-page.layout.js';
import { browserAssetByFile } from '../../src/platform/http/browser-assets.js';
import { languageFontBytes } from '../../src/modules/shared/language-fonts.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { FAVICON_LINK } from '../../src/platform/http/favicon.js';
import { browserSkipReason, launchBrowser, openPage } from '../helpers/browser.js';

const skip = browserSkipReason();
if (skip) console.log(`# verification page browser tests skipped: ${skip}`);

const HOSTILE = '<img src=x onerror=alert(1)><script>alert(2)</script>';
const SHOTS = path.resolve('.tmp/screenshots');

function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function makePdf(text: string): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([595, 420]);
  page.drawText(text, { x: 50, y: 300, size: 24, font: await doc.embedFont(StandardFonts.Helvetica) });
  return Buffer.from(await doc.save());
}

// Random bytes that start like neither a PDF nor JSON (0xff is never text in UTF-8).
function binary(n: number): Buffer {
  const bytes = randomBytes(n);
  if (n > 0) bytes[0] = 0xff;
  return bytes;
}

function flipOneByte(pdf: Buffer): Buffer {
  const copy = Buffer.from(pdf);
  const i = Math.floor(copy.length / 2);
  copy[i] = copy[i]! ^ 0x01;
  return copy;
}

function view(overrides: Partial<VerifyView> = {}): VerifyView {
  return {
    valid: true,
    status: 'Issued',
    uniqueCode: '7K3M9Q2XRB4D8F1H',
    recipientName: 'Ada Lovelace',
    issuedAt: '2026-11-21T09:30:00.000Z',
    expiresAt: null,
    expired: false,
    supersededBy: null,
    revokedAt: null,
    revocationReason: null,
    title: 'Analytical Engines 101: Difference Engines',
    templateName: 'Analytical Engines 101',
    issuerName: 'Babbage Academy',
    verificationUrl: 'https://certs.example.com/verify/7K3M9Q2XRB4D8F1H',
    pdfSha256: '0'.repeat(64),
    signed: false,
    pdfSigned: false,
    issuerDid: null,
    credentialUrl: null,
    ...overrides,
  };
}

function revokedView(overrides: Partial<VerifyView> = {}): VerifyView {
  return view({
    valid: false,
    status: 'Revoked',
    revokedAt: '2026-12-03T23:59:00.000Z',
    revocationReason: 'Issued to the wrong person by mistake',
    ...overrides,
  });
}

interface CheckOutcome {
  result: string;
  // What the page took the file for, by its content: pdf, credential or other.
  kind: string | null;
  message: string;
  sha256: string | null;
  engine: string | null;
}

// Hands a file to the page's "Check a PDF" section, by the file input or by a drop event carrying a
// DataTransfer, and waits for the verdict.
async function checkFile(
  page: Page,
  bytes: Buffer,
  via: 'input' | 'drop',
  name = 'certificate.pdf',
  mimeType = 'application/pdf',
) {
  await page.evaluate(() => document.getElementById('pdf-check-result')!.removeAttribute('data-result'));
  if (via === 'input') {
    await page.setInputFiles('#pdf-file', { name, mimeType, buffer: bytes });
  } else {
    const dataTransfer = await page.evaluateHandle(
      ({ b64, fileName, type }) => {
        const raw = atob(b64);
        const data = new Uint8Array(raw.length);
        for (let i = 0; i < raw.length; i++) data[i] = raw.charCodeAt(i);
        const dt = new DataTransfer();
        dt.items.add(new File([data], fileName, { type }));
        return dt;
      },
      { b64: bytes.toString('base64'), fileName: name, type: mimeType },
    );
    await page.dispatchEvent('#pdf-drop', 'drop', { dataTransfer });
    await dataTransfer.dispose();
  }
  await page.waitForFunction(() =>
    ['match', 'mismatch', 'error', 'unsupported'].includes(
      document.getElementById('pdf-check-result')!.getAttribute('data-result') ?? '',
    ),
  );
  return page.evaluate((): CheckOutcome => {
    const el = document.getElementById('pdf-check-result')!;
    return {
      result: el.getAttribute('data-result')!,
      kind: el.getAttribute('data-kind'),
      message: el.innerText,
      sha256: el.getAttribute('data-sha256'),
      engine: el.getAttribute('data-engine'),
    };
  });
}

async function assertNoHorizontalScroll(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  assert.ok(scrollWidth <= clientWidth, `page scrolls sideways: ${scrollWidth} > ${clientWidth}`);
}

let browser: Browser;

describe('verification page rendering (served by a local server with the CSP)', { skip }, () => {
  const pages = new Map<string, { status: number; html: string }>();
  let server: http.Server;
  let base = '';

  // Serves the rendered pages with the same headers as the app's route.
  // Under /verify/, as the app serves them: the page's links (its script, its fonts) are relative.
  function serve(route: string, html: string, status = 200): string {
    pages.set(`/verify${route}`, { status, html });
    return `${base}/verify${route}`;
  }

  before(async () => {
    browser = await launchBrowser();
    server = http.createServer((req, res) => {
      // The page's script, as the app's route serves it.
      const script = browserAssetByFile((req.url ?? '').replace('/verify/assets/', ''), ['verify.js']);
      if (script && req.url?.startsWith('/verify/assets/')) {
        res.writeHead(200, { 'content-type': script.type });
        res.end(script.body);
        return;
      }
      // The language switcher's fonts, as the app's route serves them.
      const font = languageFontBytes((req.url ?? '').replace('/verify/fonts/', ''));
      if (font && req.url?.startsWith('/verify/fonts/')) {
        res.writeHead(200, { 'content-type': 'font/ttf' });
        res.end(font);
        return;
      }
      const page = pages.get(req.url ?? '');
      res.writeHead(page?.status ?? 404, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': VERIFY_PAGE_CSP,
        'x-content-type-options': 'nosniff',
      });
      res.end(page?.html ?? 'not here');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  it('has a CSP without unsafe-inline, and the document basics', () => {
    assert.match(VERIFY_PAGE_CSP, /default-src 'none'/);
    // The script is the service's own file (src/browser/verify.ts): nothing inline runs.
    assert.match(VERIFY_PAGE_CSP, /script-src 'self';/);
    assert.match(VERIFY_PAGE_CSP, /style-src 'sha256-[A-Za-z0-9+/]{43}='/);
    assert.match(VERIFY_PAGE_CSP, /frame-ancestors 'none'/);
    assert.doesNotMatch(VERIFY_PAGE_CSP, /unsafe|https?:|\*/);
    const html = renderVerifyPage(view());
    assert.match(html, /^<!doctype html>\n<html lang="en" dir="ltr">/);
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
    assert.match(html, /<meta name="robots" content="noindex">/);
    // The one link is the icon, a data: URL (platform/http/favicon.ts): nothing is loaded for it.
    assert.ok(html.includes(FAVICON_LINK) && FAVICON_LINK.includes('href="data:image/svg+xml,'));
    assert.ok(html.includes(`<script src="${VERIFY_SCRIPT_PATH}"></script>`));
    assert.match(VERIFY_SCRIPT_PATH, /^assets\/verify-[0-9A-F]{8,}\.js$/);
    assert.doesNotMatch(
      html.replace(FAVICON_LINK, '').replace(`<script src="${VERIFY_SCRIPT_PATH}">`, ''),
      /\sstyle=|\son[a-z]+=|<link|src=/i,
      'no style attributes, handlers or loads',
    );
    const notFound = renderNotFoundPage('ZZZZ');
    assert.match(notFound, /<meta name="robots" content="noindex">/);
    assert.doesNotMatch(notFound, /<script/);
  });

  it('shows a valid certificate with its details, and the script runs under the CSP', async () => {
    const opened = await openPage(browser, serve('/valid', renderVerifyPage(view())));
    try {
      const { page } = opened;
      assert.equal(opened.status, 200);
      assert.equal(await page.title(), 'Valid certificate \u00b7 7K3M9Q2XRB4D8F1H');
      assert.equal(await page.getAttribute('#verify-state', 'data-state'), 'valid');
      assert.match(await page.innerText('#verify-state'), /Valid certificate/);
      assert.equal(await page.innerText('#recipient-name'), 'Ada Lovelace');
      assert.equal(await page.innerText('#issuer-name'), 'Babbage Academy');
      assert.equal(await page.innerText('#template-name'), 'Analytical Engines 101');
      assert.equal(await page.innerText('#issued-at'), '21 November 2026');
      assert.equal(await page.innerText('#unique-code'), '7K3M9Q2XRB4D8F1H');
      assert.equal(await page.locator('#revocation-reason').count(), 0);
      assert.match(await page.innerText('#pdf-check'), /never leaves your browser/);
      assert.equal(await page.isVisible('#pdf-check-result'), false);

      // The CSP is enforced: a script that is not the hashed one is refused...
      await page.evaluate(() => {
        const s = document.createElement('script');
        s.textContent = 'window.__injected = true';
        document.body.append(s);
      });
      assert.equal(await page.evaluate(() => 'injected' in window || '__injected' in window), false);
      const violations = await opened.cspViolations();
      assert.equal(violations.length, 1, violations.join(', '));
      assert.match(violations[0]!, /^script-src/);
      // ...while the page's own script and style pass: the drop zone works and is styled.
      const outcome = await checkFile(page, await makePdf('x'), 'input');
      assert.equal(outcome.result, 'mismatch');
      assert.notEqual(
        await page.evaluate(() => getComputedStyle(document.getElementById('verify-state')!).backgroundColor),
        'rgba(0, 0, 0, 0)',
      );
      assert.equal((await opened.cspViolations()).length, 1);
      assert.equal(opened.errors.length, 1);
      assert.match(opened.errors[0]!, /Content Security Policy/, 'only the injected script was refused');
    } finally {
      await opened.close();
    }
  });

  it('shows a revoked certificate with the date and the reason', async () => {
    const opened = await openPage(browser, serve('/revoked', renderVerifyPage(revokedView())));
    try {
      const { page } = opened;
      assert.equal(await page.title(), 'Revoked certificate \u00b7 7K3M9Q2XRB4D8F1H');
      assert.equal(await page.getAttribute('#verify-state', 'data-state'), 'revoked');
      const bannerText = await page.innerText('#verify-state');
      assert.match(bannerText, /Revoked/);
      assert.doesNotMatch(bannerText, /Valid certificate/);
      assert.match(bannerText, /3 December 2026/);
      assert.match(await page.innerText('#revocation-reason'), /Issued to the wrong person by mistake/);
      assert.equal(await page.innerText('#recipient-name'), 'Ada Lovelace');
      assert.deepEqual(await opened.cspViolations(), []);
      assert.deepEqual(opened.errors, []);
    } finally {
      await opened.close();
    }

    const noReason = await openPage(
      browser,
      serve('/revoked-no-reason', renderVerifyPage(revokedView({ revocationReason: null }))),
    );
    try {
      assert.match(await noReason.page.innerText('#revocation-reason'), /no reason/);
    } finally {
      await noReason.close();
    }
  });

  it('shows hostile values as literal text and runs none of them, even without the CSP', async () => {
    const hostile = view({
      recipientName: HOSTILE,
      issuerName: `"'><script>alert(3)</script>`,
      templateName: '<svg onload=alert(4)>',
      uniqueCode: '<b onmouseover=alert(5)>X</b>',
      pdfSha256: '"><img src=x onerror=alert(6)>',
    });
    const revokedHostile = revokedView({
      recipientName: HOSTILE,
      revocationReason: '</p><script>alert(7)</script>',
      revokedAt: '"><script>alert(8)</script>',
    });
    for (const html of [
      renderVerifyPage(hostile),
      renderVerifyPage(revokedHostile),
      renderNotFoundPage(HOSTILE),
    ]) {
      // Escaping alone must hold: render without the CSP.
      const context = await browser.newContext();
      const page = await context.newPage();
      const dialogs: string[] = [];
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      try {
        await page.setContent(html, { waitUntil: 'load' });
        await page.waitForTimeout(200);
        assert.deepEqual(dialogs, []);
        const counts = await page.evaluate(() => ({
          img: document.querySelectorAll('img').length,
          svg: document.querySelectorAll('svg[onload]').length,
          b: document.querySelectorAll('b').length,
          scripts: document.querySelectorAll('script').length,
        }));
        assert.deepEqual(counts, { img: 0, svg: 0, b: 0, scripts: html.includes('<script src=') ? 1 : 0 });
        if (html.includes('id="recipient-name"')) {
          assert.equal(await page.innerText('#recipient-name'), HOSTILE);
        } else {
          assert.equal(await page.innerText('#unique-code'), HOSTILE);
        }
      } finally {
        await context.close();
      }
    }
    const page = await browser.newPage();
    try {
      await page.setContent(renderVerifyPage(hostile));
      assert.equal(await page.innerText('#issuer-name'), `"'><script>alert(3)</script>`);
      assert.equal(await page.innerText('#template-name'), '<svg onload=alert(4)>');
      assert.equal(await page.innerText('#unique-code'), '<b onmouseover=alert(5)>X</b>');
      assert.equal(
        await page.getAttribute('#pdf-check', 'data-pdf-sha256'),
        '"><img src=x onerror=alert(6)>',
      );
      assert.match(await page.title(), /<b onmouseover=alert\(5\)>X<\/b>/);
      await page.setContent(renderVerifyPage(revokedHostile));
      assert.match(await page.innerText('#revocation-reason'), /<\/p><script>alert\(7\)<\/script>/);
    } finally {
      await page.close();
    }
  });

  it('fits a 375px phone screen (screenshots in .tmp/screenshots)', async () => {
    const longName = view({
      recipientName: 'Maximiliana Konstantinopoulou-Vanderbergh-Oyelaran',
      templateName: 'Advanced Certificate in Distributed Systems Engineering and Operations',
      issuerName: 'Babbage Academy of Analytical Engines',
    });
    const unbroken = view({ recipientName: 'A'.repeat(120), templateName: 'B'.repeat(120) });
    const cases: [string, string, number][] = [
      ['valid', renderVerifyPage(longName), 200],
      ['revoked', renderVerifyPage(revokedView()), 200],
      ['not-found', renderNotFoundPage('7K3M9Q2XRB4D8F1Z'), 404],
      ['unbroken', renderVerifyPage(unbroken), 200],
    ];
    for (const [name, html, status] of cases) {
      const opened = await openPage(browser, serve(`/phone-${name}`, html, status), {
        viewport: { width: 375, height: 812 },
      });
      try {
        assert.equal(opened.status, status);
        await assertNoHorizontalScroll(opened.page);
        if (name === 'valid') {
          await checkFile(opened.page, await makePdf('y'), 'input', 'my-certificate.pdf');
          // The state banner is readable without scrolling.
          const box = await opened.page.locator('#verify-state').boundingBox();
          assert.ok(box && box.y + box.height < 300, `banner at ${JSON.stringify(box)}`);
        }
        await opened.page.screenshot({ path: path.join(SHOTS, `verify-375-${name}.png`), fullPage: true });
        assert.deepEqual(await opened.cspViolations(), []);
      } finally {
        await opened.close();
      }
    }
    const desktop = await openPage(browser, serve('/desktop', renderVerifyPage(view())));
    try {
      await assertNoHorizontalScroll(desktop.page);
      await desktop.page.screenshot({ path: path.join(SHOTS, 'verify-1280-valid.png'), fullPage: true });
    } finally {
      await desktop.close();
    }
  });

  it('checks a dropped or chosen PDF against pdfSha256 in the browser', async () => {
    const pdf = await makePdf('Certificate of completion: Ada Lovelace');
    const modified = flipOneByte(pdf);
    const opened = await openPage(
      browser,
      serve('/check', renderVerifyPage(view({ pdfSha256: sha256Hex(pdf) }))),
    );
    try {
      const { page } = opened;
      let outcome = await checkFile(page, pdf, 'input');
      assert.equal(outcome.result, 'match');
      assert.match(outcome.message, /This PDF matches the original certificate\./);
      assert.equal(outcome.engine, 'webcrypto');
      assert.equal(outcome.sha256, sha256Hex(pdf));

      outcome = await checkFile(page, modified, 'drop');
      assert.equal(outcome.result, 'mismatch');
      assert.match(
        outcome.message,
        /This PDF does not match the original: it is not the file that was issued\./,
      );
      assert.equal(outcome.sha256, sha256Hex(modified));

      outcome = await checkFile(page, pdf, 'drop');
      assert.equal(outcome.result, 'match');
      // The same file chosen twice in a row is checked again.
      assert.equal((await checkFile(page, modified, 'input')).result, 'mismatch');
      assert.equal((await checkFile(page, modified, 'input')).result, 'mismatch');
      assert.deepEqual(await opened.cspViolations(), []);
      assert.deepEqual(opened.errors, []);
    } finally {
      await opened.close();
    }

    // On a revoked certificate the original still matches, and the page says it is revoked.
    const revoked = await openPage(
      browser,
      serve('/check-revoked', renderVerifyPage(revokedView({ pdfSha256: sha256Hex(pdf).toUpperCase() }))),
    );
    try {
      const outcome = await checkFile(revoked.page, pdf, 'input');
      assert.equal(outcome.result, 'match');
      assert.match(outcome.message, /revoked/);
    } finally {
      await revoked.close();
    }
  });

  it('falls back to its own SHA-256 when crypto.subtle is missing, matching node:crypto', async () => {
    const inputs: [string, Buffer][] = [
      ['empty', Buffer.alloc(0)],
      ['abc', Buffer.from('abc')],
      ...[55, 56, 63, 64, 65, 119, 120, 1000].map((n): [string, Buffer] => [`${n} bytes`, binary(n)]),
      // Starts like a PDF, so that the page compares it (it is the expected file).
      ['1.5 MB', Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(1.5 * 1024 * 1024 - 2)])],
      ['pdf', await makePdf('fallback')],
    ];
    const big = inputs[inputs.length - 2]![1];
    const opened = await openPage(
      browser,
      serve('/fallback', renderVerifyPage(view({ pdfSha256: sha256Hex(big) }))),
      {
        initScript: 'delete Crypto.prototype.subtle;',
      },
    );
    try {
      const { page } = opened;
      assert.equal(await page.evaluate(() => typeof crypto.subtle), 'undefined');
      for (const [label, bytes] of inputs) {
        const outcome = await checkFile(page, bytes, 'input', `${label}.pdf`);
        assert.equal(outcome.engine, 'js', label);
        assert.equal(outcome.sha256, sha256Hex(bytes), label);
        // Judged by content: only the PDF among them is one; the rest are neither PDF nor JSON.
        const expected = bytes === big ? 'match' : label === 'pdf' ? 'mismatch' : 'unsupported';
        assert.equal(outcome.result, expected, label);
      }
      assert.equal(
        sha256Hex(Buffer.from('abc')),
        'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
        'known answer',
      );
      assert.deepEqual(opened.errors, []);
    } finally {
      await opened.close();
    }
  });

  it('shows a not-found page for an unknown code', async () => {
    const opened = await openPage(browser, serve('/missing', renderNotFoundPage('7K3M9Q2XRB4D8F1Z'), 404));
    try {
      assert.equal(opened.status, 404);
      assert.equal(await opened.page.title(), 'No certificate found');
      assert.match(await opened.page.innerText('#verify-state'), /No certificate found/);
      assert.equal(await opened.page.innerText('#unique-code'), '7K3M9Q2XRB4D8F1Z');
      assert.equal(await opened.page.locator('#pdf-check').count(), 0);
      assert.deepEqual(await opened.cspViolations(), []);
    } finally {
      await opened.close();
    }
  });
});

describe('verification page through the app', { skip }, () => {
  let t: TestApp;
  let tenant: Tenant;
  let base = '';

  before(async () => {
    browser = await launchBrowser();
    t = await startTestApp();
    tenant = await createTenant(t.deps, { name: 'Babbage Academy' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  async function api(method: 'GET' | 'POST', url: string, body?: unknown) {
    return fetch(`${base}/api/v1${url}`, {
      method,
      headers: { ...tenant.auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  async function issue(name: string): Promise<{ id: string; uniqueCode: string; status: string }> {
    const res = await api('POST', '/certificates', {
      templateId: tenant.templateId,
      recipient: { name, email: 'ada@example.com', data: { course: 'Analytical Engines 101' } },
    });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { data: { id: string; uniqueCode: string; status: string } }).data;
  }

  it('shows a real certificate as valid, then revoked with its reason, and checks its real PDF', async () => {
    const cert = await issue('Ada Lovelace');
    const pdfRes = await api('GET', `/certificates/${cert.id}/pdf`);
    assert.equal(pdfRes.status, 200);
    assert.equal(pdfRes.headers.get('content-type'), 'application/pdf');
    const pdf = Buffer.from(await pdfRes.arrayBuffer());
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');

    const opened = await openPage(browser, `${base}/verify/${cert.uniqueCode}`);
    try {
      const { page } = opened;
      assert.equal(opened.status, 200);
      assert.equal(await page.getAttribute('#verify-state', 'data-state'), 'valid');
      assert.match(await page.innerText('#verify-state'), /Valid certificate/);
      assert.equal(await page.innerText('#recipient-name'), 'Ada Lovelace');
      assert.equal(await page.innerText('#issuer-name'), 'Babbage Academy');
      assert.equal(await page.innerText('#unique-code'), cert.uniqueCode);
      assert.ok((await page.innerText('#template-name')).length > 0);
      assert.match(await page.innerText('#issued-at'), /^\d{1,2} [A-Z][a-z]+ \d{4}$/);

      assert.equal((await checkFile(page, pdf, 'drop', 'certificate.pdf')).result, 'match');
      assert.equal((await checkFile(page, flipOneByte(pdf), 'input', 'certificate.pdf')).result, 'mismatch');

      const revoke = await api('POST', `/certificates/${cert.id}/revoke`, { reason: 'Exam result annulled' });
      assert.equal(revoke.status, 200, await revoke.clone().text());

      const reloaded = await page.reload({ waitUntil: 'load' });
      assert.equal(reloaded?.status(), 200);
      assert.equal(await page.getAttribute('#verify-state', 'data-state'), 'revoked');
      const bannerText = await page.innerText('#verify-state');
      assert.match(bannerText, /Revoked/);
      assert.doesNotMatch(bannerText, /Valid certificate/);
      assert.match(await page.innerText('#revocation-reason'), /Exam result annulled/);
      // The frozen PDF is unchanged by revocation and still matches.
      assert.equal((await checkFile(page, pdf, 'input')).result, 'match');
      assert.deepEqual(await opened.cspViolations(), []);
      assert.deepEqual(opened.errors, []);
      assert.deepEqual(opened.dialogs, []);
    } finally {
      await opened.close();
    }
  });

  it('says the certificate is digitally signed, by whom, links the credential, and checks a credential file', async () => {
    const cert = await issue('Grace Hopper');
    const credentialRes = await api('GET', `/certificates/${cert.id}/credential`);
    assert.equal(credentialRes.status, 200);
    const credential = Buffer.from(await credentialRes.arrayBuffer());
    const opened = await openPage(browser, `${base}/verify/${cert.uniqueCode}`);
    try {
      const { page } = opened;
      const signature = await page.innerText('#signature');
      assert.match(signature, /Signed by Babbage Academy as an Open Badges 3\.0 credential/);
      assert.match(signature, /The PDF itself is digitally signed too .* credential\.json/);
      // The issuer's DID only under "Technical details" (issue 33), shown when opened.
      assert.doesNotMatch(signature, /did:web:/);
      await page.click('#signature-details summary');
      const details = await page.innerText('#signature-details');
      assert.match(details, new RegExp(`did:web:certs\\.test:issuers:${tenant.accountId}`));
      const href = await page.getAttribute('#credential-link', 'href');
      assert.equal(href, `http://certs.test/api/v1/verify/${cert.uniqueCode}/credential`);
      const same = await fetch(href!.replace('http://certs.test', base));
      assert.deepEqual(
        Buffer.from(await same.arrayBuffer()),
        credential,
        'the link serves the frozen credential',
      );

      const match = await checkFile(page, credential, 'input', 'credential.json');
      assert.equal(match.result, 'match');
      assert.match(match.message, /matches the original signed credential/);
      const edited = Buffer.from(credential.toString().replace('Grace Hopper', 'Grace Hoppex'));
      const mismatch = await checkFile(page, edited, 'drop', 'credential.json');
      assert.equal(mismatch.result, 'mismatch');
      assert.match(mismatch.message, /does not match the original/);
      assert.deepEqual(await opened.cspViolations(), []);
      assert.deepEqual(opened.errors, []);
    } finally {
      await opened.close();
    }
  });

  it('judges a dropped file by its first bytes, whatever its name or type says', async () => {
    const cert = await issue('Katherine Johnson');
    const credential = Buffer.from(
      await (await api('GET', `/certificates/${cert.id}/credential`)).arrayBuffer(),
    );
    const pdf = Buffer.from(await (await api('GET', `/certificates/${cert.id}/pdf`)).arrayBuffer());
    assert.equal(credential.subarray(0, 1).toString(), '{');
    const opened = await openPage(browser, `${base}/verify/${cert.uniqueCode}`);
    try {
      const { page } = opened;
      // The credential under names and types that say otherwise, by the input and by a drop.
      for (const [name, type, via] of [
        ['credential.vc', '', 'input'],
        ['credential.vc', 'application/vc', 'drop'],
        ['credential.pdf', 'application/pdf', 'input'],
        ['credential.pdf', 'application/pdf', 'drop'],
        ['credential.txt', 'text/plain', 'input'],
        ['credential.txt', 'text/plain', 'drop'],
      ] as const) {
        const outcome = await checkFile(page, credential, via, name, type);
        assert.equal(outcome.kind, 'credential', `${name} by ${via}`);
        assert.equal(outcome.result, 'match', `${name} by ${via}: ${outcome.message}`);
        assert.match(outcome.message, /This credential matches the original signed credential/);
      }
      // A credential after a byte-order mark and whitespace is still JSON: another file, so a
      // credential that does not match (not "This PDF does not match").
      const padded = Buffer.concat([Buffer.from('\ufeff \r\n\t'), credential]);
      const other = await checkFile(page, padded, 'drop', 'credential.pdf');
      assert.equal(other.kind, 'credential');
      assert.equal(other.result, 'mismatch');
      assert.match(other.message, /This credential does not match/);
      assert.doesNotMatch(other.message, /This PDF/);

      // The PDF named and typed as JSON.
      for (const via of ['input', 'drop'] as const) {
        const outcome = await checkFile(page, pdf, via, 'certificate.json', 'application/json');
        assert.equal(outcome.kind, 'pdf', via);
        assert.equal(outcome.result, 'match', `${via}: ${outcome.message}`);
        assert.match(outcome.message, /This PDF matches the original certificate/);
      }

      // Neither: random bytes (and a PNG's signature, and text) under either kind of name.
      const png = Buffer.concat([
        Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        randomBytes(200),
      ]);
      for (const [bytes, name, via] of [
        [binary(4096), 'certificate.pdf', 'input'],
        [binary(4096), 'credential.json', 'drop'],
        [png, 'certificate.pdf', 'drop'],
        [Buffer.from('  %PDF-1.7 (not at the start)'), 'certificate.pdf', 'input'],
        [Buffer.alloc(0), 'credential.json', 'input'],
      ] as const) {
        const outcome = await checkFile(page, bytes, via, name, 'application/octet-stream');
        assert.equal(outcome.kind, 'other', name);
        assert.equal(outcome.result, 'unsupported', name);
        assert.match(outcome.message, /This file is neither a PDF nor a credential \(JSON\)\./);
        assert.match(outcome.message, new RegExp(`“${name.replace('.', '\\.')}”`));
        assert.doesNotMatch(outcome.message, /does not match/);
      }
      // It is shown as a refusal, like a mismatch.
      assert.equal(
        await page.evaluate(
          () => getComputedStyle(document.getElementById('pdf-check-result')!).backgroundColor,
        ),
        'rgb(254, 243, 242)',
      );
      assert.deepEqual(await opened.cspViolations(), []);
      assert.deepEqual(opened.errors, []);
    } finally {
      await opened.close();
    }
    // The same verdict in the page's language.
    const french = await openPage(browser, `${base}/verify/${cert.uniqueCode}?lang=fr`);
    try {
      const outcome = await checkFile(french.page, binary(100), 'drop', 'attestation.pdf');
      assert.equal(outcome.result, 'unsupported');
      assert.match(outcome.message, /Ce fichier n’est ni un PDF ni une attestation \(JSON\)\./);
      assert.match(outcome.message, /«\u00a0attestation\.pdf\u00a0»/);
    } finally {
      await french.close();
    }
  });

  it('serves the page with its CSP and a 404 page for an unknown or malformed code', async () => {
    const cert = await issue('Grace Hopper');
    const res = await fetch(`${base}/verify/${cert.uniqueCode.toLowerCase()}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(res.headers.get('content-security-policy'), VERIFY_PAGE_CSP);

    for (const code of ['7K3M9Q2XRB4D8F1Z', 'not-a-code']) {
      const opened = await openPage(browser, `${base}/verify/${code}`);
      try {
        assert.equal(opened.status, 404);
        assert.match(await opened.page.innerText('#verify-state'), /No certificate found/);
        assert.equal(await opened.page.innerText('#unique-code'), code);
        assert.deepEqual(await opened.cspViolations(), []);
      } finally {
        await opened.close();
      }
    }
  });

  it('shows a hostile recipient name as text end to end', async () => {
    const cert = await issue(HOSTILE);
    const opened = await openPage(browser, `${base}/verify/${cert.uniqueCode}`);
    try {
      await opened.page.waitForTimeout(200);
      assert.deepEqual(opened.dialogs, []);
      assert.equal(await opened.page.innerText('#recipient-name'), HOSTILE);
      assert.equal(await opened.page.locator('img').count(), 0);
      assert.deepEqual(await opened.cspViolations(), []);
    } finally {
      await opened.close();
    }
  });
});
