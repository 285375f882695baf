import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { EmailWorker } from '../../src/modules/emails/email.worker.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { createFreshDatabase, parseMail, settled, waitFor, type FreshDatabase } from './support.js';

// With no SMTP_URL (the embedded default) the worker writes each message as an .eml file under
// DATA_DIR/mail and marks the send sent (docs/api.md, Email).

let db: FreshDatabase;
let t: TestApp;
let worker: EmailWorker;
let tenant: Tenant;

before(async () => {
  db = await createFreshDatabase();
  t = await startTestApp({ DATABASE_URL: db.url, EMAIL_POLL_MS: '50' });
  assert.equal(t.deps.config.smtpUrl, undefined);
  worker = t.deps.services.startEmailWorker();
  tenant = await createTenant(t.deps);
});

after(async () => {
  await worker?.stop();
  await t?.close();
  await db?.drop();
});

describe('email delivery without SMTP', () => {
  it('writes a parseable .eml file under DATA_DIR/mail and marks the send sent', async () => {
    const issued = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: {
        templateId: tenant.templateId,
        recipient: { name: 'Zoë Ångström', email: 'zoe@example.com', data: { course: 'Files' } },
      },
    });
    assert.equal(issued.statusCode, 201, issued.body);
    const cert = issued.json().data as { id: string; uniqueCode: string; verificationUrl: string };
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${cert.id}/send`,
      headers: tenant.auth,
    });
    assert.equal(res.statusCode, 202, res.body);

    const row = await settled(t.deps.db, res.json().data.id);
    assert.equal(row.status, 'sent');
    assert.equal(row.attempts, 1);

    const dir = path.join(t.deps.config.dataDir, 'mail');
    const files = await waitFor('the .eml file', async () => {
      const names = (await readdir(dir)).filter((n) => n.endsWith('.eml') && !n.startsWith('.'));
      return names.length > 0 ? names : undefined;
    });
    assert.equal(files.length, 1);
    const parsed = await parseMail(await readFile(path.join(dir, files[0]!)));
    const to = Array.isArray(parsed.to) ? parsed.to : [parsed.to];
    assert.deepEqual(
      to.flatMap((a) => a?.value ?? []).map((v) => v.address),
      ['zoe@example.com'],
    );
    assert.ok(parsed.subject?.includes('Zoë Ångström'), parsed.subject);
    assert.ok(parsed.text?.includes(cert.verificationUrl));
    // The PDF attached; the wallet link's QR code (issue 31) is an inline picture beside it.
    const attached = parsed.attachments.filter((a) => a.contentDisposition === 'attachment');
    assert.equal(attached.length, 1);
    assert.equal(attached[0]!.filename, `certificate-${cert.uniqueCode}.pdf`);
    assert.equal(attached[0]!.contentType, 'application/pdf');
    const pdf = await t.app.inject({ url: `/api/v1/certificates/${cert.id}/pdf`, headers: tenant.auth });
    assert.ok(Buffer.compare(attached[0]!.content, pdf.rawPayload) === 0);

    const history = await t.app.inject({
      url: `/api/v1/certificates/${cert.id}/emails`,
      headers: tenant.auth,
    });
    assert.equal(history.json().data[0].status, 'sent');
    assert.ok(history.json().data[0].sentAt);
  });
});
