import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createTenant, startTestApp, type TestApp } from '../helpers/app.js';
import { startSmtpServer, type TestSmtpServer } from './smtp-test-server.js';
import { createFreshDatabase, sendRow, waitFor, type FreshDatabase } from './support.js';

// A send accepted while the certificate was Issued, then the certificate revoked before the worker
// got to it: the revoked certificate is never mailed, and the send ends failed with the reason.

let db: FreshDatabase;
let smtp: TestSmtpServer;
let t: TestApp;

before(async () => {
  db = await createFreshDatabase();
  smtp = await startSmtpServer();
  t = await startTestApp({ DATABASE_URL: db.url, SMTP_URL: smtp.url, EMAIL_POLL_MS: '50' });
});

after(async () => {
  await t?.close();
  await smtp?.close();
  await db?.drop();
});

it('does not mail a certificate revoked after its send was accepted', async () => {
  const tenant = await createTenant(t.deps);
  const issued = await t.app.inject({
    method: 'POST',
    url: '/api/v1/certificates',
    headers: tenant.auth,
    payload: {
      templateId: tenant.templateId,
      recipient: { name: 'Ada', email: 'ada@example.com', data: { course: 'X' } },
    },
  });
  const cert = issued.json().data;
  const accepted = await t.app.inject({
    method: 'POST',
    url: `/api/v1/certificates/${cert.id}/send`,
    headers: tenant.auth,
  });
  assert.equal(accepted.statusCode, 202);
  const revoked = await t.app.inject({
    method: 'POST',
    url: `/api/v1/certificates/${cert.id}/revoke`,
    headers: tenant.auth,
  });
  assert.equal(revoked.statusCode, 200);

  // The worker starts only now, so the send is still queued when it is claimed.
  const worker = t.deps.services.startEmailWorker();
  try {
    const row = await waitFor('the send to end', async () => {
      const r = await sendRow(t.deps.db, accepted.json().data.id);
      return r.status === 'failed' || r.status === 'sent' ? r : undefined;
    });
    assert.equal(row.status, 'failed');
    assert.equal(row.attempts, 1);
    assert.match(String(row.last_error), /revoked before delivery/);
  } finally {
    await worker.stop();
  }
  assert.equal(smtp.received.length, 0);
  const history = await t.app.inject({ url: `/api/v1/certificates/${cert.id}/emails`, headers: tenant.auth });
  assert.equal(history.json().data[0].status, 'failed');
});
