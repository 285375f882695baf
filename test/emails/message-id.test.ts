import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sendMessageId } from '../../src/modules/emails/mail-message.js';
import { createTenant, startTestApp } from '../helpers/app.js';
import { startSmtpServer } from './smtp-test-server.js';
import {
  createFreshDatabase,
  issueMany,
  MAIL_FROM,
  messageIdOf,
  parseMail,
  queueSend,
  settled,
  setup,
  startSmtpWorker,
  waitFor,
} from './support.js';

// One Message-ID per send, the same on every attempt: when the connection drops after the server
// took the message, the retry is the same message to the recipient's mail system, which can drop
// the duplicate (docs/operations.md, Email delivery).

describe('Message-ID of email sends', () => {
  it('is <send id@domain of MAIL_FROM>', () => {
    assert.equal(
      sendMessageId('0190f0c2-7e1a-7000-8000-000000000001', 'Certsvc <certs@mail.example.org>'),
      '<0190f0c2-7e1a-7000-8000-000000000001@mail.example.org>',
    );
    assert.equal(sendMessageId('abc', 'certs@example.org'), '<abc@example.org>');
  });

  it('a retry after the connection dropped mid-send carries the same Message-ID; two sends differ', async () => {
    const env = await setup();
    // The first message is taken in full and then the connection drops before the answer.
    const smtp = await startSmtpServer({ dropAfterData: 1 });
    const w = startSmtpWorker(env.t.deps.db, smtp.url);
    try {
      const [cert] = await issueMany(env, 1);
      const first = await queueSend(env, cert!.id);
      const row = await settled(env.t.deps.db, first);
      assert.equal(row.status, 'sent', row.last_error ?? '');
      assert.equal(row.attempts, 2, 'the dropped attempt was retried');
      assert.equal(smtp.received.length, 2, 'the server got the message twice');
      const expected = `<${first}@certsvc.test>`;
      assert.deepEqual(
        smtp.received.map((m) => messageIdOf(m.raw)),
        [expected, expected],
      );
      assert.equal(sendMessageId(first, MAIL_FROM), expected);

      // Sending the same certificate again is a new send: a new message with its own Message-ID.
      const second = await queueSend(env, cert!.id);
      assert.equal((await settled(env.t.deps.db, second)).status, 'sent');
      assert.equal(smtp.received.length, 3);
      assert.equal(messageIdOf(smtp.received[2]!.raw), `<${second}@certsvc.test>`);
      assert.notEqual(second, first);
    } finally {
      await w.stop();
      await smtp.close();
      await env.close();
    }
  });

  it('the .eml files of the embedded default carry the same Message-ID as SMTP would', async () => {
    const db = await createFreshDatabase();
    const t = await startTestApp({
      DATABASE_URL: db.url,
      EMAIL_POLL_MS: '50',
      MAIL_FROM: 'Academy <certificates@academy.example>',
    });
    const worker = t.deps.services.startEmailWorker();
    try {
      const tenant = await createTenant(t.deps);
      const env = { t, tenant };
      const [cert] = await issueMany(env, 1);
      const ids = [await queueSend(env, cert!.id), await queueSend(env, cert!.id)];
      for (const id of ids) assert.equal((await settled(t.deps.db, id)).status, 'sent');
      const dir = path.join(t.deps.config.dataDir, 'mail');
      const files = await waitFor('two .eml files', async () => {
        const names = (await readdir(dir)).filter((n) => n.endsWith('.eml') && !n.startsWith('.'));
        return names.length === 2 ? names : undefined;
      });
      const found = await Promise.all(
        files.map(async (f) => (await parseMail(await readFile(path.join(dir, f)))).messageId),
      );
      assert.deepEqual(found.sort(), ids.map((id) => `<${id}@academy.example>`).sort());
    } finally {
      await worker.stop();
      await t.close();
      await db.drop();
    }
  });
});
