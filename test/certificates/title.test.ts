import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import { readDesignFile } from '../../src/cli/design-file.js';
import type { EmailWorker } from '../../src/modules/emails/email.worker.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { browserSkipReason, launchBrowser, openPage } from '../helpers/browser.js';
import { startSmtpServer, type TestSmtpServer } from '../emails/smtp-test-server.js';
import { codeInMessage, MAIL_FROM, parseMail, waitFor } from '../emails/support.js';
import { issueOne, recipient } from './support.js';

// A design's title says what was earned: filled at issue, frozen, shown by verification and email.

let t: TestApp;
let smtp: TestSmtpServer;
let worker: EmailWorker;
let tenant: Tenant;
let baseUrl: string;
let design: Record<string, unknown>;

before(async () => {
  smtp = await startSmtpServer();
  t = await startTestApp({
    SMTP_URL: smtp.url,
    MAIL_FROM,
    EMAIL_POLL_MS: '50',
    RATE_LIMIT_MAX: '100000',
  });
  worker = t.deps.services.startEmailWorker();
  tenant = await createTenant(t.deps);
  design = (await readDesignFile(DEMO_DESIGN.pathname)) as Record<string, unknown>;
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
after(async () => {
  await worker?.stop();
  await t?.close();
  await smtp?.close();
});

async function verification(code: string) {
  const res = await t.app.inject({ url: `/api/v1/verify/${code}` });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as { title: string; templateName: string };
}

describe('title', () => {
  it('the sample design fills its title from data.course; the certificate and verification show it', async () => {
    assert.equal(design.title, '{{data.course}}');
    const c = await issueOne(t, tenant, recipient(1, { data: { course: '  Safe   Lifting ', hours: 3 } }));
    assert.equal(c.title, 'Safe Lifting');
    const read = await t.app.inject({ url: `/api/v1/certificates/${c.id}`, headers: tenant.auth });
    assert.equal(read.json().data.title, 'Safe Lifting');
    const verified = await verification(c.uniqueCode);
    assert.equal(verified.title, 'Safe Lifting');
    assert.equal(verified.templateName, 'Course completion');
  });

  it('the parsed email carries the title in its subject and both bodies', async () => {
    const c = await issueOne(
      t,
      tenant,
      recipient(2, { name: 'Ada Lovelace', email: 'ada.title@example.com', data: { course: 'Fire Safety' } }),
    );
    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${c.id}/send`,
      headers: tenant.auth,
    });
    assert.equal(sent.statusCode, 202, sent.body);
    const mail = await waitFor('the message', () =>
      smtp.received.find((m) => codeInMessage(m.raw) === c.uniqueCode),
    );
    const parsed = await parseMail(mail.raw);
    assert.equal(parsed.subject, 'Your certificate: Fire Safety — Ada Lovelace');
    assert.ok(parsed.text?.includes('a certificate: Fire Safety.'), parsed.text);
    assert.ok(String(parsed.html).includes('<bdi>Fire Safety</bdi></strong>'), String(parsed.html));
  });

  it('a design without a title shows the template name', async () => {
    const { title: _title, ...untitled } = design;
    const plain = await t.deps.services.templates.create(SYSTEM, tenant.accountId, {
      ...untitled,
      name: 'Plain',
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: { templateId: plain.id, recipient: recipient(3) },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().data.title, 'Plain');
  });

  it('an issued certificate keeps its title when the design changes; new ones use the new title', async () => {
    const template = await t.deps.services.templates.create(SYSTEM, tenant.accountId, {
      ...design,
      name: 'Versioned',
    });
    const issueFrom = async (n: number) => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/certificates',
        headers: tenant.auth,
        payload: { templateId: template.id, recipient: recipient(n, { data: { course: 'Graph Theory' } }) },
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().data as { id: string; uniqueCode: string; title: string };
    };
    const before = await issueFrom(4);
    await t.deps.services.templates.update(SYSTEM, template.id, {
      ...design,
      name: 'Versioned',
      title: 'Advanced {{data.course}}',
    });
    const afterUpdate = await issueFrom(5);
    assert.equal(afterUpdate.title, 'Advanced Graph Theory');
    assert.equal((await verification(before.uniqueCode)).title, 'Graph Theory');
    const read = await t.app.inject({ url: `/api/v1/certificates/${before.id}`, headers: tenant.auth });
    assert.equal(read.json().data.title, 'Graph Theory');
  });

  it("a title's dates and numbers are written in the design's language, as on its PDF", async () => {
    const template = await t.deps.services.templates.create(SYSTEM, tenant.accountId, {
      ...design,
      name: 'Formation',
      locale: 'fr',
      title: '{{data.course}} ({{data.hours}} h), le {{certificate.issuedAt}}',
    });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: {
        templateId: template.id,
        recipient: {
          name: 'Marie Curie',
          email: 'marie@example.com',
          data: { course: 'Chimie', hours: 12.5 },
        },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { title, issuedAt } = res.json().data as { title: string; issuedAt: string };
    const day = new Intl.DateTimeFormat('fr', {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      timeZone: 'UTC',
    }).format(new Date(issuedAt));
    assert.equal(title, `Chimie (12,5 h), le ${day}`);
    assert.match(day, /^\d{1,2} [a-zéû]+\.? \d{4}$/);
  });

  it('a title with an unknown placeholder or an undeclared key is refused at ["title"]', async () => {
    for (const title of ['{{data.nope}}', '{{recipient.email}}']) {
      await assert.rejects(
        t.deps.services.templates.create(SYSTEM, tenant.accountId, { ...design, title }),
        (err: { issues?: { path: unknown[] }[] }) => {
          assert.deepEqual(err.issues?.[0]?.path, ['title']);
          return true;
        },
      );
    }
  });
});

describe('title on the verification page', { skip: browserSkipReason() }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(() => browser?.close());

  it('Chromium shows what was earned, in its own direction', async () => {
    const c = await issueOne(t, tenant, recipient(6, { data: { course: 'السلامة من الحرائق' } }));
    const opened = await openPage(browser, `${baseUrl}/verify/${c.uniqueCode}`);
    try {
      assert.equal(opened.status, 200);
      assert.equal(await opened.page.innerText('#title'), 'السلامة من الحرائق');
      assert.equal(await opened.page.innerText('#template-name'), 'Course completion');
      assert.deepEqual(opened.errors, []);
      assert.deepEqual(await opened.cspViolations(), []);
    } finally {
      await opened.close();
    }
  });
});
