import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import { ValidationError } from '../../src/platform/errors.js';
import { createPdfRenderer, type PdfRenderer, type RenderTemplate } from '../../src/pdf/pdf-renderer.js';
import { VERIFY_PAGE_CSP } from '../../src/modules/verify/verify.page.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { startSmtpServer, type TestSmtpServer } from '../emails/smtp-test-server.js';
import {
  codeInMessage,
  createFreshDatabase,
  MAIL_FROM,
  parseMail,
  waitFor,
  type FreshDatabase,
} from '../emails/support.js';
import { loadDesign, pdfOf, pdfText, values } from '../pdf/pdf-helpers.js';

// Languages (issue 19 part 8): a template's locale writes the PDF's dates and numbers and picks the
// email's language; the verification page follows Accept-Language or ?lang=, right to left in Arabic.

const skip = browserSkipReason();

describe('a template locale on the PDF', () => {
  let renderer: PdfRenderer;
  before(() => {
    renderer = createPdfRenderer({ threads: 1 });
  });
  after(async () => {
    await renderer.close();
  });

  const at = (locale: string | undefined): RenderTemplate => ({
    id: `course-${locale ?? 'default'}`,
    version: '1',
    design: { ...loadDesign('course-completion'), ...(locale ? { locale } : {}) },
  });
  const render = async (locale: string | undefined) =>
    pdfText(
      pdfOf(
        (
          await renderer.render(at(locale), [
            values({ issuedAt: '2026-11-24T10:00:00.000Z', data: { course: 'Cours', hours: 12.5 } }),
          ])
        )[0],
      ),
    );

  it('prints "24 novembre 2026" and 12,5 for fr, and stays "24 November 2026" and 12.5 without a locale', async () => {
    const fr = await render('fr');
    assert.match(fr, /Issued 24 novembre 2026/, fr);
    assert.match(fr, /Hours of instruction: 12,5/, fr);
    const en = await render(undefined);
    assert.match(en, /Issued 24 November 2026/, en);
    assert.match(en, /Hours of instruction: 12\.5/, en);
    assert.match(await render('de'), /Issued 24\. November 2026/);
    assert.match(await render('ja'), /Issued 2026年11月24日/);
  });

  it("uses the script's digits where Intl gives them (ar-EG: Arabic-Indic)", async () => {
    const text = await render('ar-EG');
    assert.match(text, /[٠-٩]/, text);
    assert.doesNotMatch(text, /2026/, text);
    assert.match(text, /نوفمبر/, text);
  });
});

describe('languages through the app', () => {
  let db: FreshDatabase;
  let smtp: TestSmtpServer;
  let t: TestApp;
  let tenant: Tenant;
  let browser: Browser | undefined;
  let base = '';

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
    tenant = await createTenant(t.deps, { name: 'Académie Lovelace' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
    await db?.drop();
  });

  async function templateIn(locale: string): Promise<string> {
    const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Record<string, unknown>;
    const template = await t.deps.services.templates.create(SYSTEM, tenant.accountId, { ...design, locale });
    return template.id;
  }

  async function issue(templateId: string, name: string) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: {
        templateId,
        recipient: { name, email: 'ada@example.com', data: { course: 'Machines analytiques' } },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().data as { id: string; uniqueCode: string; verificationUrl: string };
  }

  it('refuses a locale that is not a language tag Intl knows, at ["locale"]', async () => {
    const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Record<string, unknown>;
    for (const locale of ['xx', 'fr_FR', 'not a tag', 'zz-ZZ']) {
      await assert.rejects(
        t.deps.services.templates.create(SYSTEM, tenant.accountId, { ...design, locale }),
        (err: unknown) => {
          assert.ok(err instanceof ValidationError, String(err));
          assert.deepEqual(
            err.issues.map((i) => i.path),
            [['locale']],
            locale,
          );
          return true;
        },
      );
    }
  });

  it('sends the certificate email of a French template in French', async () => {
    const cert = await issue(await templateIn('fr-CA'), 'Ada Lovelace');
    const worker = t.deps.services.startEmailWorker();
    try {
      const sent = await t.app.inject({
        method: 'POST',
        url: `/api/v1/certificates/${cert.id}/send`,
        headers: tenant.auth,
      });
      assert.equal(sent.statusCode, 202, sent.body);
      const mail = await waitFor('the French email', () =>
        smtp.received.find((m) => codeInMessage(m.raw) === cert.uniqueCode),
      );
      const parsed = await parseMail(mail.raw);
      assert.equal(parsed.subject, 'Votre certificat\u00a0: Machines analytiques — Ada Lovelace');
      assert.match(parsed.text ?? '', /^Bonjour Ada Lovelace,/);
      assert.match(
        parsed.text ?? '',
        /Académie Lovelace vous a délivré un certificat\u00a0: Machines analytiques\./,
      );
      assert.match(parsed.text ?? '', /Ajoutez-le à votre profil LinkedIn\u00a0:/);
      assert.ok(parsed.text?.includes(cert.verificationUrl));
      assert.match(String(parsed.html), /<html lang="fr" dir="ltr">/);
      assert.match(String(parsed.html), />Ajouter au profil LinkedIn<\/a>/);
    } finally {
      await worker.stop();
    }
  });

  it('answers the page in the Accept-Language language or ?lang=, with the same CSP', async () => {
    const cert = await issue(tenant.templateId, 'Ada Lovelace');
    const fr = await t.app.inject({
      url: `/verify/${cert.uniqueCode}`,
      headers: { 'accept-language': 'fr-FR,fr;q=0.9,en;q=0.5' },
    });
    assert.equal(fr.headers['content-language'], 'fr');
    assert.equal(fr.headers['content-security-policy'], VERIFY_PAGE_CSP);
    assert.match(fr.body, /<html lang="fr" dir="ltr">/);
    assert.match(fr.body, /<h1>Certificat valide<\/h1>/);
    assert.match(fr.body, /<title>Certificat valide · /);
    const de = await t.app.inject({
      url: `/verify/${cert.uniqueCode}?lang=de`,
      headers: { 'accept-language': 'fr' },
    });
    assert.match(de.body, /<h1>Gültiges Zertifikat<\/h1>/);
    assert.equal(de.headers['content-security-policy'], VERIFY_PAGE_CSP);
    const none = await t.app.inject({
      url: `/verify/${cert.uniqueCode}?lang=xx`,
      headers: { 'accept-language': 'nl' },
    });
    assert.match(none.body, /<html lang="en" dir="ltr">/);
    for (const lang of ['en', 'fr', 'de', 'es', 'pt', 'ar', 'hi', 'zh', 'ja']) {
      assert.match(
        none.body,
        new RegExp(`<a href="\\?lang=${lang}" lang="${lang}" hreflang="${lang}"`),
        lang,
      );
    }
    const missing = await t.app.inject({ url: '/verify/7K3M9Q2XRB4D8F1Z?lang=es' });
    assert.equal(missing.statusCode, 404);
    assert.match(missing.body, /No se encontró ningún certificado/);
  });

  it(
    'shows the page right to left and in Arabic for an Arabic reader in Chromium, and switches language',
    { skip },
    async () => {
      const cert = await issue(tenant.templateId, 'Ada Lovelace');
      browser = await launchBrowser();
      const context = await browser.newContext({
        locale: 'ar-EG',
        extraHTTPHeaders: { 'Accept-Language': 'ar-EG,ar;q=0.9' },
      });
      try {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        await page.goto(`${base}/verify/${cert.uniqueCode}`);
        assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl');
        assert.equal(await page.evaluate(() => document.documentElement.lang), 'ar');
        assert.equal(await page.evaluate(() => getComputedStyle(document.body).direction), 'rtl');
        assert.equal(await page.innerText('#verify-state h1'), 'شهادة صالحة');
        assert.match(await page.innerText('#verify-state'), /صادرة عن Académie Lovelace وغير ملغاة/);
        assert.match(await page.innerText('#issued-at'), /[\u0600-\u06FF]/, 'the month in Arabic');
        assert.equal(await page.innerText('#linkedin-link'), 'إضافة إلى الملف الشخصي على LinkedIn');
        assert.equal(await page.innerText('#pdf-check-title'), 'التحقق من ملف PDF');
        // The names stay in their own direction.
        assert.equal(await page.innerText('#recipient-name'), 'Ada Lovelace');
        // The script reads its verdicts in Arabic.
        await page.setInputFiles('#pdf-file', {
          name: 'x.pdf',
          mimeType: 'application/pdf',
          buffer: Buffer.from('%PDF-1.4 not it'),
        });
        await page.waitForSelector('#pdf-check-result[data-result="mismatch"]');
        assert.match(await page.innerText('#pdf-check-message'), /لا يطابق ملف PDF هذا الأصل/);
        assert.match(await page.innerText('#pdf-check-detail'), /«x\.pdf»/);
        // The switcher: a link per language; English turns the page left to right.
        assert.equal(await page.locator('#languages a').count(), 9);
        await Promise.all([page.waitForURL(/\?lang=en$/), page.click('#languages a[hreflang="en"]')]);
        assert.equal(await page.evaluate(() => document.documentElement.dir), 'ltr');
        assert.equal(await page.innerText('#verify-state h1'), 'Valid certificate');
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    },
  );
});
