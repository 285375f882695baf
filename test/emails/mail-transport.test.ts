import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { buildCertificateMessage } from '../../src/modules/emails/mail-message.js';
import {
  classifySendError,
  createFileTransport,
  createSmtpTransport,
  type MailTransport,
} from '../../src/modules/emails/mail-transport.js';
import { startSmtpServer, type TestSmtpServer } from './smtp-test-server.js';
import { baseInput } from './fixtures.js';
import { SMTP_OPTIONS } from './support.js';

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.flatMap((a) => a.value.map((v) => v.address ?? ''));
}

function assertCertificateMail(mail: ParsedMail, recipientName = 'Ada Lovelace'): void {
  assert.deepEqual(addresses(mail.from), ['no-reply@certsvc.test']);
  assert.equal(mail.from?.value[0]?.name, 'Certsvc');
  assert.deepEqual(addresses(mail.to), ['ada@example.test']);
  assert.equal(mail.subject, `Your certificate: Analytical Engines 101 — ${recipientName}`);
  const text = mail.text ?? '';
  const html = typeof mail.html === 'string' ? mail.html : '';
  for (const part of [text, html]) {
    assert.ok(part.includes(recipientName), 'names the recipient');
    assert.ok(part.includes('Analytical Engines 101'), 'names the template');
    assert.ok(part.includes('https://certs.example.test/verify/ABC123'), 'has the verification URL');
  }
  assert.ok(text.includes('Babbage & Co <Ltd>'));
  assert.ok(html.includes('Babbage &amp; Co &lt;Ltd&gt;'));
  assert.equal(mail.attachments.length, 1);
  const [pdf] = mail.attachments;
  assert.equal(pdf?.filename, 'certificate-ABC123.pdf');
  assert.equal(pdf?.contentType, 'application/pdf');
  assert.ok(pdf?.content.equals(baseInput.pdf), 'attachment bytes equal the PDF');
}

/** A port on 127.0.0.1 that nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

async function sendError(transport: MailTransport): Promise<unknown> {
  try {
    await transport.send(buildCertificateMessage(baseInput));
  } catch (err) {
    return err;
  }
  assert.fail('send should have failed');
}

describe('SMTP transport against a real SMTP server', () => {
  let server: TestSmtpServer;
  let transport: MailTransport;

  before(async () => {
    server = await startSmtpServer();
    transport = createSmtpTransport(server.url, SMTP_OPTIONS);
  });
  after(async () => {
    await transport.close();
    await server.close();
  });

  test('delivers the certificate mail with both parts and the PDF', async () => {
    const { messageId } = await transport.send(buildCertificateMessage(baseInput));
    assert.ok(messageId.length > 0);
    const got = server.received.at(-1);
    assert.ok(got);
    assert.equal(got.mailFrom, 'no-reply@certsvc.test');
    assert.deepEqual(got.rcptTo, ['ada@example.test']);
    const mail = await simpleParser(got.raw);
    assert.equal(mail.messageId, messageId);
    assertCertificateMail(mail);
  });

  test('a hostile recipient name adds no header and no recipient', async () => {
    const before = server.received.length;
    await transport.send(buildCertificateMessage({ ...baseInput, recipientName: 'Eve\r\nBcc: x@evil.test' }));
    assert.equal(server.received.length, before + 1);
    const got = server.received.at(-1);
    assert.ok(got);
    assert.deepEqual(got.rcptTo, ['ada@example.test'], 'envelope has the one recipient');
    const rawHeaders = got.raw.toString('latin1').split(/\r?\n\r?\n/)[0] ?? '';
    assert.doesNotMatch(rawHeaders, /^\s*bcc\s*:/im, rawHeaders);
    const mail = await simpleParser(got.raw);
    assert.equal(mail.headers.has('bcc'), false);
    assert.equal(mail.bcc, undefined);
    assert.equal(mail.cc, undefined);
    assert.deepEqual(addresses(mail.to), ['ada@example.test']);
    assert.equal(
      mail.to && !Array.isArray(mail.to) ? mail.to.value[0]?.name : undefined,
      'Eve Bcc: x@evil.test',
    );
    assertCertificateMail(mail, 'Eve Bcc: x@evil.test');
  });
});

describe('classifySendError with real failures', () => {
  test('451 on RCPT TO is transient', async () => {
    const server = await startSmtpServer({ rcptResponseCode: 451 });
    const transport = createSmtpTransport(server.url, SMTP_OPTIONS);
    try {
      const err = await sendError(transport);
      assert.equal((err as { responseCode?: number }).responseCode, 451);
      const c = classifySendError(err);
      assert.equal(c.permanent, false);
      assert.match(c.message, /451/);
    } finally {
      await transport.close();
      await server.close();
    }
  });

  test('550 on RCPT TO is permanent', async () => {
    const server = await startSmtpServer({ rcptResponseCode: 550 });
    const transport = createSmtpTransport(server.url, SMTP_OPTIONS);
    try {
      const err = await sendError(transport);
      assert.equal((err as { responseCode?: number }).responseCode, 550);
      const c = classifySendError(err);
      assert.equal(c.permanent, true);
      assert.match(c.message, /550/);
      assert.equal(server.received.length, 0);
    } finally {
      await transport.close();
      await server.close();
    }
  });

  test('connection refused is transient; the message names no credentials and no address', async () => {
    const port = await closedPort();
    const transport = createSmtpTransport(`smtp://mailer:s3cr3t-pass@127.0.0.1:${port}`, SMTP_OPTIONS);
    try {
      const err = await sendError(transport);
      const c = classifySendError(err);
      assert.equal(c.permanent, false);
      assert.match(c.message, /refused the connection \(ECONNREFUSED\)/);
      assert.doesNotMatch(c.message, /s3cr3t-pass/);
      // The account sees lastError: our own network's addresses and ports are not its business.
      assert.doesNotMatch(c.message, /127\.0\.0\.1|:\d{2,5}\b/);
    } finally {
      await transport.close();
    }
  });

  test('plain classification rules', () => {
    const e = (fields: object) => Object.assign(new Error('boom'), fields);
    assert.equal(classifySendError(e({ code: 'EENVELOPE', responseCode: 552 })).permanent, true);
    assert.equal(classifySendError(e({ code: 'EMESSAGE', responseCode: 421 })).permanent, false);
    for (const code of ['ECONNREFUSED', 'ETIMEDOUT', 'ECONNRESET', 'ESOCKET', 'EDNS', 'ECONNECTION']) {
      assert.equal(classifySendError(e({ code })).permanent, false, code);
    }
    // Wrong credentials are the operator's to fix, not this message's fault: retried.
    assert.equal(classifySendError(e({ code: 'EAUTH', responseCode: 535 })).permanent, false);
    const leaky = classifySendError(
      new Error('cannot reach smtps://user:hunter2@mail.test:465 AUTH PLAIN AGh1bnRlcjI='),
    );
    assert.doesNotMatch(leaky.message, /hunter2|AGh1bnRlcjI/);
    assert.equal(classifySendError('weird').message, 'weird');
  });
});

describe('file transport', () => {
  let dir: string;
  before(async () => {
    dir = join(await mkdtemp(join(tmpdir(), 'certsvc-mail-')), 'nested', 'outbox');
  });
  after(async () => {
    await rm(join(dir, '..', '..'), { recursive: true, force: true });
  });

  test('writes each message as a parseable .eml file, creating the folder', async () => {
    const transport = createFileTransport(dir);
    const first = await transport.send(buildCertificateMessage(baseInput));
    await transport.send(buildCertificateMessage(baseInput));
    await transport.close();
    const files = (await readdir(dir)).sort();
    assert.equal(files.length, 2, `files: ${files.join(', ')}`);
    for (const f of files) assert.match(f, /^\d{13}-[0-9a-f]+\.eml$/);
    const raws = await Promise.all(files.map((f) => readFile(join(dir, f))));
    const mails = await Promise.all(raws.map((raw) => simpleParser(raw)));
    assert.ok(mails.some((m) => m.messageId === first.messageId));
    for (const mail of mails) assertCertificateMail(mail);
    // Messages hold names and addresses: readable by the service's user only.
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    for (const f of files) assert.equal((await stat(join(dir, f))).mode & 0o777, 0o600, f);
  });
});
