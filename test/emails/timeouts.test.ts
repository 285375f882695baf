import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, it } from 'node:test';
import { createTenant, startTestApp } from '../helpers/app.js';
import { startSmtpServer } from './smtp-test-server.js';
import { createFreshDatabase, issueMany, queueSend, sendRow, waitFor } from './support.js';

// A hung SMTP server cannot hold a send (docs/operations.md, Email delivery): SMTP_TIMEOUT_MS bounds
// the connection, the greeting and every wait for an answer; the attempt fails as transient and the
// send waits for its retry.

/** A loopback TCP server that accepts connections and never says a word. */
async function silentServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function attemptTimesOut(smtpUrl: string): Promise<void> {
  const db = await createFreshDatabase();
  // The real composition root, configured as an operator would; the long retry delay keeps the
  // send waiting in the queue where the test can see it.
  const t = await startTestApp({
    DATABASE_URL: db.url,
    SMTP_URL: smtpUrl,
    SMTP_TIMEOUT_MS: '300',
    EMAIL_RETRY_BASE_MS: '600000',
    EMAIL_POLL_MS: '50',
  });
  const worker = t.deps.services.startEmailWorker();
  try {
    const tenant = await createTenant(t.deps);
    const [cert] = await issueMany({ t, tenant }, 1);
    const sendId = await queueSend({ t, tenant }, cert!.id);
    const row = await waitFor('the attempt to time out', async () => {
      const r = await sendRow(t.deps.db, sendId);
      return r.attempts === 1 && r.status === 'queued' ? r : undefined;
    });
    assert.match(row.last_error ?? '', /did not answer in time \(ETIMEDOUT\)/);
  } finally {
    await worker.stop();
    await t.close();
    await db.drop();
  }
}

describe('SMTP timeouts', () => {
  it('a server that accepts and never greets: the attempt times out and is retried', async () => {
    const silent = await silentServer();
    try {
      await attemptTimesOut(silent.url);
    } finally {
      await silent.close();
    }
  });

  it('a server that never answers DATA: the attempt times out and is retried', async () => {
    const smtp = await startSmtpServer({ neverAnswerData: true });
    try {
      await attemptTimesOut(smtp.url);
      assert.equal(smtp.dataStarted, 1);
    } finally {
      await smtp.close();
    }
  });
});
