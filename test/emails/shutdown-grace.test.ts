import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startWorker } from '../cluster/processes.js';
import { cliEnv } from '../cli/run-cli.js';
import { startSmtpServer } from './smtp-test-server.js';
import { issueMany, MAIL_FROM, queueSend, sendRow, setup, waitFor } from './support.js';

// A short SHUTDOWN_TIMEOUT_S shortens the worker's grace for sends in flight, so that it still hands
// them back and exits cleanly within the deadline (docs/operations.md, Shutdown).

test('certsvc worker with SHUTDOWN_TIMEOUT_S=3 and a hung SMTP send: exits 0 in time and the send is back in the queue', async () => {
  const env = await setup();
  const smtp = await startSmtpServer({ neverAnswerData: true });
  try {
    const [cert] = await issueMany(env, 1);
    const sendId = await queueSend(env, cert!.id);
    const worker = await startWorker(
      'grace',
      cliEnv({
        DATABASE_URL: env.db.url,
        SMTP_URL: smtp.url,
        MAIL_FROM,
        SHUTDOWN_TIMEOUT_S: '3',
        EMAIL_POLL_MS: '50',
        EMAIL_LEASE_MS: '600000',
        LOG_LEVEL: 'info',
      }),
    );
    await waitFor('the message to reach the SMTP server', async () => smtp.dataStarted >= 1, 30_000);
    assert.equal((await sendRow(env.t.deps.db, sendId)).status, 'sending');
    const signalledAt = Date.now();
    process.kill(worker.pid, 'SIGTERM');
    const exit = await worker.exited;
    assert.equal(exit.code, 0, worker.output());
    assert.ok(exit.at - signalledAt < 3_000 + 1_000, `exited ${exit.at - signalledAt} ms after the signal`);
    const row = await sendRow(env.t.deps.db, sendId);
    assert.equal(row.status, 'queued', 'handed back, not left to its 10-minute lease');
    assert.match(row.last_error ?? '', /interrupted/);
  } finally {
    await smtp.close();
    await env.close();
  }
});
