import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { claimJobs } from '../../src/modules/emails/emails.repository.js';
import { createDb } from '../../src/platform/db/db.js';
import { startSmtpServer } from './smtp-test-server.js';
import {
  codeInMessage,
  freePort,
  issueMany,
  queueSend,
  sendRow,
  settled,
  setup,
  startSmtpWorker,
  waitFor,
  type Env,
} from './support.js';

// Delivery outcomes against a real SMTP server that fails on purpose: transient failures retry with
// backoff, permanent ones fail at once, a dead worker's job comes back after its lease, and two
// workers side by side deliver each send once (docs/api.md, Email).

const root = path.resolve(import.meta.dirname, '../../..');

async function history(env: Env, certificateId: string) {
  const res = await env.t.app.inject({
    url: `/api/v1/certificates/${certificateId}/emails`,
    headers: env.tenant.auth,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().data as {
    id: string;
    status: string;
    attempts: number;
    lastError: string | null;
    sentAt: string | null;
  }[];
}

function killChild(child: ChildProcess | undefined) {
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null)
    process.kill(child.pid, 'SIGKILL');
}

describe('email delivery retries and failures', () => {
  it('retries after SMTP 451 and ends sent with attempts 2', async () => {
    const env = await setup();
    const smtp = await startSmtpServer({ failFirst: { count: 1, code: 451 } });
    // A 2 s first retry keeps the intermediate state visible to the polling below.
    const w = startSmtpWorker(env.t.deps.db, smtp.url, { retryBaseMs: 2_000 });
    try {
      const [cert] = await issueMany(env, 1);
      const sendId = await queueSend(env, cert!.id);
      const waiting = await waitFor('the first attempt to be refused', async () => {
        const [s] = await history(env, cert!.id);
        return s && s.status === 'queued' && s.attempts === 1 ? s : undefined;
      });
      assert.match(waiting.lastError ?? '', /451/);
      assert.equal(waiting.sentAt, null);

      const row = await settled(env.t.deps.db, sendId);
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 2);
      const [s] = await history(env, cert!.id);
      assert.equal(s!.status, 'sent');
      assert.equal(s!.attempts, 2);
      assert.equal(s!.lastError, null);
      assert.ok(s!.sentAt);
      assert.equal(smtp.received.length, 1);
      assert.equal(smtp.dataStarted, 2);
    } finally {
      await w.stop();
      await smtp.close();
      await env.close();
    }
  });

  it('fails at once on SMTP 550 with attempts 1 and lastError naming 550', async () => {
    const env = await setup();
    const smtp = await startSmtpServer({ rcptResponseCode: 550 });
    const w = startSmtpWorker(env.t.deps.db, smtp.url);
    try {
      const [cert] = await issueMany(env, 1);
      const sendId = await queueSend(env, cert!.id);
      const row = await settled(env.t.deps.db, sendId);
      assert.equal(row.status, 'failed');
      assert.equal(row.attempts, 1);
      assert.match(row.last_error ?? '', /550/);
      const [s] = await history(env, cert!.id);
      assert.deepEqual(
        { status: s!.status, attempts: s!.attempts, sentAt: s!.sentAt },
        { status: 'failed', attempts: 1, sentAt: null },
      );
      assert.match(s!.lastError ?? '', /550/);
      assert.equal(smtp.received.length, 0);
      assert.equal(smtp.rcptCommands.length, 1, 'no second attempt');
    } finally {
      await w.stop();
      await smtp.close();
      await env.close();
    }
  });

  it('fails at once when the server refuses the message itself with 554 after DATA', async () => {
    const env = await setup();
    const smtp = await startSmtpServer({ failFirst: { count: 1, code: 554 } });
    const w = startSmtpWorker(env.t.deps.db, smtp.url);
    try {
      const [cert] = await issueMany(env, 1);
      const row = await settled(env.t.deps.db, await queueSend(env, cert!.id));
      assert.equal(row.status, 'failed');
      assert.equal(row.attempts, 1);
      assert.match(row.last_error ?? '', /554/);
      assert.equal(smtp.dataStarted, 1);
    } finally {
      await w.stop();
      await smtp.close();
      await env.close();
    }
  });

  it('delivers every queued send once SMTP comes back after being down', async () => {
    const env = await setup();
    const port = await freePort();
    // Nothing listens on the port yet: every attempt is a refused connection.
    const w = startSmtpWorker(env.t.deps.db, `smtp://127.0.0.1:${port}`, { retryBaseMs: 100 });
    let smtp: Awaited<ReturnType<typeof startSmtpServer>> | undefined;
    try {
      const certs = await issueMany(env, 10);
      const ids: string[] = [];
      for (const c of certs) ids.push(await queueSend(env, c.id));
      // Every send has failed twice and waits for its next try (none in flight).
      await waitFor('every send to have failed twice', async () => {
        const rows = await Promise.all(ids.map((id) => sendRow(env.t.deps.db, id)));
        return rows.every((r) => r.attempts >= 2 && r.status === 'queued') ? rows : undefined;
      });
      for (const id of ids) {
        const row = await sendRow(env.t.deps.db, id);
        assert.notEqual(row.status, 'sent');
        assert.ok(row.last_error, 'the connection failure is recorded');
      }
      smtp = await startSmtpServer({ port });
      for (const id of ids) {
        const row = await settled(env.t.deps.db, id);
        assert.equal(row.status, 'sent', `${id}: ${row.last_error}`);
        assert.ok(row.attempts >= 3);
      }
      const codes = new Set(smtp.received.map((m) => codeInMessage(m.raw)));
      assert.deepEqual([...codes].sort(), certs.map((c) => c.uniqueCode).sort());
    } finally {
      await w.stop();
      await smtp?.close();
      await env.close();
    }
  });

  it('redelivers a job whose worker died holding it, once the lease runs out', async () => {
    const env = await setup();
    const smtp = await startSmtpServer();
    let w: ReturnType<typeof startSmtpWorker> | undefined;
    try {
      const [cert] = await issueMany(env, 1);
      const sendId = await queueSend(env, cert!.id);
      // A worker claims the job and then "dies": it never records an outcome.
      const claimed = await claimJobs(env.t.deps.db, { limit: 10, leaseMs: 500 });
      assert.deepEqual(
        claimed.map((j) => [j.id, j.attempts]),
        [[sendId, 1]],
      );
      assert.equal((await sendRow(env.t.deps.db, sendId)).status, 'sending');
      w = startSmtpWorker(env.t.deps.db, smtp.url);
      const row = await settled(env.t.deps.db, sendId);
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 2);
      assert.deepEqual(
        smtp.received.map((m) => codeInMessage(m.raw)),
        [cert!.uniqueCode],
      );
    } finally {
      await w?.stop();
      await smtp.close();
      await env.close();
    }
  });

  it('redelivers after `certsvc worker` is killed with SIGKILL in the middle of a delivery', async () => {
    const env = await setup();
    const hanging = await startSmtpServer({ neverAnswerData: true });
    const good = await startSmtpServer();
    let child: ChildProcess | undefined;
    let w: ReturnType<typeof startSmtpWorker> | undefined;
    try {
      const [cert] = await issueMany(env, 1);
      const sendId = await queueSend(env, cert!.id);
      child = spawn(process.execPath, ['bin/certsvc.js', 'worker'], {
        cwd: root,
        stdio: 'ignore',
        env: {
          ...process.env,
          DATABASE_URL: env.db.url,
          DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'certsvc-worker-')),
          SMTP_URL: hanging.url,
          EMAIL_LEASE_MS: '1000',
          EMAIL_POLL_MS: '50',
          LOG_LEVEL: 'silent',
        },
      });
      await waitFor('the worker to be in the middle of DATA', () => hanging.dataStarted >= 1, 30_000);
      const during = await sendRow(env.t.deps.db, sendId);
      assert.deepEqual([during.status, during.attempts], ['sending', 1]);
      process.kill(child.pid!, 'SIGKILL');
      await waitFor('the worker to exit', () => child!.exitCode !== null || child!.signalCode !== null);

      w = startSmtpWorker(env.t.deps.db, good.url);
      const row = await settled(env.t.deps.db, sendId);
      assert.equal(row.status, 'sent');
      assert.equal(row.attempts, 2);
      assert.deepEqual(
        good.received.map((m) => codeInMessage(m.raw)),
        [cert!.uniqueCode],
      );
    } finally {
      killChild(child);
      await w?.stop();
      await hanging.close();
      await good.close();
      await env.close();
    }
  });

  it('delivers each of 50 sends exactly once with two workers side by side', async () => {
    const env = await setup();
    const smtp = await startSmtpServer({ delayMs: 2 });
    // Two workers with their own connection pools, as two processes would have.
    const dbA = createDb(env.db.url);
    const dbB = createDb(env.db.url);
    const a = startSmtpWorker(dbA, smtp.url, { batchSize: 5 });
    const b = startSmtpWorker(dbB, smtp.url, { batchSize: 5 });
    try {
      const certs = await issueMany(env, 50);
      const ids: string[] = [];
      for (const c of certs) ids.push(await queueSend(env, c.id));
      for (const id of ids) {
        const row = await settled(env.t.deps.db, id);
        assert.equal(row.status, 'sent');
        assert.equal(row.attempts, 1);
      }
      await a.stop();
      await b.stop();
      assert.equal(smtp.received.length, 50);
      const codes = smtp.received.map((m) => codeInMessage(m.raw));
      assert.deepEqual([...new Set(codes)].sort(), certs.map((c) => c.uniqueCode).sort());
    } finally {
      await a.stop().catch(() => undefined);
      await b.stop().catch(() => undefined);
      await dbA.close();
      await dbB.close();
      await smtp.close();
      await env.close();
    }
  });
});
