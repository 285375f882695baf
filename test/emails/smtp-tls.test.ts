import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildCertificateMessage } from '../../src/modules/emails/mail-message.js';
import { classifySendError, createSmtpTransport } from '../../src/modules/emails/mail-transport.js';
import { startSmtpServer } from './smtp-test-server.js';
import { baseInput } from './fixtures.js';
import {
  issueMany,
  queueSend,
  sendRow,
  settled,
  setup,
  SMTP_OPTIONS,
  startSmtpWorker,
  waitFor,
} from './support.js';

// SMTP credentials only over TLS (docs/operations.md, Email delivery): with a password in an
// smtp:// URL the worker requires STARTTLS, so a server without it never sees AUTH; a private CA is
// trusted through NODE_EXTRA_CA_CERTS; SMTP_ALLOW_INSECURE_AUTH=true allows plain text on purpose.

const root = path.resolve(import.meta.dirname, '../../..');
const USER = 'mailer';
const PASS = 's3cr3t-pass';

let dir: string;
let tls: { key: string; cert: string; certFile: string };

before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-smtp-tls-'));
  const keyFile = path.join(dir, 'key.pem');
  const certFile = path.join(dir, 'cert.pem');
  // A self-signed certificate for the loopback address, as an operator's private CA would issue.
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  tls = { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
});

after(() => rmSync(dir, { recursive: true, force: true }));

function withCredentials(url: string): string {
  return url.replace('smtp://', `smtp://${USER}:${PASS}@`);
}

async function sendError(send: () => Promise<unknown>): Promise<unknown> {
  try {
    await send();
  } catch (err) {
    return err;
  }
  assert.fail('send should have failed');
}

describe('SMTP credentials only over TLS', () => {
  it('a server without STARTTLS never receives AUTH; the send waits for a retry with a clear lastError', async () => {
    const env = await setup();
    const smtp = await startSmtpServer({ auth: { user: USER, pass: PASS } });
    // A long first retry delay keeps the send waiting in the queue where the test can see it.
    const w = startSmtpWorker(env.t.deps.db, withCredentials(smtp.url), { retryBaseMs: 600_000 });
    try {
      const [cert] = await issueMany(env, 1);
      const sendId = await queueSend(env, cert!.id);
      const row = await waitFor('the attempt to be refused', async () => {
        const r = await sendRow(env.t.deps.db, sendId);
        return r.attempts === 1 && r.status === 'queued' ? r : undefined;
      });
      assert.match(row.last_error ?? '', /offers no STARTTLS.*credentials are only sent over TLS/);
      assert.doesNotMatch(row.last_error ?? '', new RegExp(PASS));
      assert.deepEqual(smtp.auths, [], 'no AUTH reached the server');
      assert.equal(smtp.dataStarted, 0);
    } finally {
      await w.stop();
      await smtp.close();
      await env.close();
    }
  });

  it('an untrusted certificate stops the attempt before AUTH (transient)', async () => {
    const smtp = await startSmtpServer({ auth: { user: USER, pass: PASS }, tls });
    const transport = createSmtpTransport(withCredentials(smtp.url), SMTP_OPTIONS);
    try {
      const err = await sendError(() => transport.send(buildCertificateMessage(baseInput)));
      const c = classifySendError(err);
      assert.equal(c.permanent, false);
      assert.match(c.message, /certificate/i);
      assert.deepEqual(smtp.auths, []);
    } finally {
      await transport.close();
      await smtp.close();
    }
  });

  it('SMTP_ALLOW_INSECURE_AUTH=true delivers with AUTH over plain text', async () => {
    const smtp = await startSmtpServer({ auth: { user: USER, pass: PASS } });
    const transport = createSmtpTransport(withCredentials(smtp.url), {
      ...SMTP_OPTIONS,
      allowInsecureAuth: true,
    });
    try {
      await transport.send(buildCertificateMessage(baseInput));
      assert.deepEqual(smtp.auths, [{ user: USER, secure: false }]);
      assert.deepEqual(
        smtp.received.map((m) => [m.user, m.secure]),
        [[USER, false]],
      );
    } finally {
      await transport.close();
      await smtp.close();
    }
  });

  it('`certsvc worker` with NODE_EXTRA_CA_CERTS delivers over STARTTLS with AUTH', async () => {
    const env = await setup();
    const smtp = await startSmtpServer({ auth: { user: USER, pass: PASS }, tls });
    let child: ChildProcess | undefined;
    try {
      const [cert] = await issueMany(env, 1);
      const sendId = await queueSend(env, cert!.id);
      child = spawn(process.execPath, ['bin/certsvc.js', 'worker'], {
        cwd: root,
        stdio: 'ignore',
        env: {
          ...process.env,
          NODE_EXTRA_CA_CERTS: tls.certFile,
          DATABASE_URL: env.db.url,
          DATA_DIR: mkdtempSync(path.join(dir, 'data-')),
          SMTP_URL: withCredentials(smtp.url),
          EMAIL_POLL_MS: '50',
          LOG_LEVEL: 'silent',
        },
      });
      const row = await settled(env.t.deps.db, sendId, 60_000);
      assert.equal(row.status, 'sent', row.last_error ?? '');
      assert.deepEqual(smtp.auths, [{ user: USER, secure: true }]);
      assert.deepEqual(
        smtp.received.map((m) => [m.user, m.secure]),
        [[USER, true]],
      );
    } finally {
      if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null)
        process.kill(child.pid, 'SIGKILL');
      await smtp.close();
      await env.close();
    }
  });
});
