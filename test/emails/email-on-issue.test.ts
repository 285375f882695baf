import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import type { Design } from '../../src/pdf/design.schema.js';
import { startSmtpServer, type TestSmtpServer } from './smtp-test-server.js';
import { codeInMessage, parseMail, setup, startSmtpWorker, waitFor, type Env } from './support.js';

// Issue 19 part 5: a template with emailOnIssue queues every certificate issued from it for email in
// the issue's own transaction: counted in emailCount, in the send history, delivered by the worker.

let env: Env;
let smtp: TestSmtpServer;
let emailing: string;

before(async () => {
  env = await setup();
  smtp = await startSmtpServer();
  const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
  emailing = (
    await env.t.deps.services.templates.create(SYSTEM, env.tenant.accountId, {
      ...design,
      name: 'Emailed course',
      emailOnIssue: true,
    })
  ).id;
});
after(async () => {
  await env?.close();
  await smtp?.close();
});

const batch = (templateId: string, names: string[]) =>
  env.t.app.inject({
    method: 'POST',
    url: '/api/v1/certificates',
    headers: env.tenant.auth,
    payload: {
      templateId,
      recipients: names.map((name, i) => ({
        name,
        email: `learner${i}@example.com`,
        data: { course: 'Safe Lifting' },
      })),
    },
  });

describe('emailOnIssue', () => {
  it('queues each certificate of a batch with its issue, counted and in the history, and the worker delivers them', async () => {
    const before = (await env.t.deps.db.query('SELECT count(*)::int AS n FROM email_sends')).rows[0].n;
    const res = await batch(emailing, ['Ada Lovelace', 'Grace Hopper', 'Zoë Ångström', 'bad\u0000name']);
    assert.equal(res.statusCode, 201, res.body);
    const { created, results } = res.json().data;
    assert.equal(created, 3);
    const certificates = results
      .filter((r: { status: string }) => r.status === 'created')
      .map((r: { certificate: { id: string; uniqueCode: string; emailCount: number } }) => r.certificate);
    for (const c of certificates) assert.equal(c.emailCount, 1);
    // Exactly one send per created certificate, none for the failed recipient.
    const after = (await env.t.deps.db.query('SELECT count(*)::int AS n FROM email_sends')).rows[0].n;
    assert.equal(after - before, 3);

    const worker = startSmtpWorker(env.t.deps.db, smtp.url);
    try {
      await waitFor('three messages', () => smtp.received.length >= 3);
    } finally {
      await worker.stop();
    }
    const codes = smtp.received.map((m) => codeInMessage(m.raw)).sort();
    assert.deepEqual(codes, certificates.map((c: { uniqueCode: string }) => c.uniqueCode).sort());
    const parsed = await parseMail(smtp.received[0]!.raw);
    assert.equal(parsed.attachments.filter((a) => a.contentDisposition === 'attachment').length, 1);

    for (const c of certificates) {
      const history = await env.t.app.inject({
        url: `/api/v1/certificates/${c.id}/emails`,
        headers: env.tenant.auth,
      });
      const body = history.json();
      assert.equal(body.pagination.total, 1);
      assert.equal(body.data[0].kind, 'certificate');
      assert.equal(body.data[0].status, 'sent');
      const read = await env.t.app.inject({ url: `/api/v1/certificates/${c.id}`, headers: env.tenant.auth });
      assert.equal(read.json().data.emailCount, 1);
    }
  });

  it('a template without it queues nothing', async () => {
    const before = (await env.t.deps.db.query('SELECT count(*)::int AS n FROM email_sends')).rows[0].n;
    const res = await batch(env.tenant.templateId, ['Ada Lovelace', 'Grace Hopper']);
    assert.equal(res.statusCode, 201);
    for (const r of res.json().data.results) assert.equal(r.certificate.emailCount, 0);
    const after = (await env.t.deps.db.query('SELECT count(*)::int AS n FROM email_sends')).rows[0].n;
    assert.equal(after, before);
  });

  it('a design with a non-boolean emailOnIssue is refused at ["emailOnIssue"]', async () => {
    const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
    await assert.rejects(
      env.t.deps.services.templates.create(SYSTEM, env.tenant.accountId, {
        ...design,
        emailOnIssue: 'yes',
      } as unknown as Design),
      (err: { issues?: { path: unknown[] }[] }) =>
        err.issues?.some((i) => i.path.join('.') === 'emailOnIssue') === true,
    );
  });
});
