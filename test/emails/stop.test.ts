import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDb, type Db } from '../../src/platform/db/db.js';
import { startSmtpServer, type ReceivedMail } from './smtp-test-server.js';
import {
  codeInMessage,
  issueMany,
  messageIdOf,
  queueSend,
  sendRow,
  settled,
  setup,
  startSmtpWorker,
  waitFor,
  type Env,
} from './support.js';

// A stopping worker (serve's shutdown) gives back the sends it holds: the ones it has not started at
// once, the ones in flight when they finish or when its grace runs out. Another worker takes them
// right away: its poll interval and the leases are 10 minutes here, so only the release (and its
// notification) can hand them over within the test's time. Each send is delivered exactly once.

const LONG_MS = 600_000;

/** Waits until `count` workers listen for new sends, so that none misses the release. */
async function listeners(env: Env, count: number): Promise<void> {
  const name = new URL(env.db.url).pathname.slice(1);
  await waitFor(`${count} listening workers`, async () => {
    const { rows } = await env.t.deps.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN %'`,
      [name],
    );
    return rows[0]!.n === count;
  });
}

function messageIds(received: ReceivedMail[]): (string | undefined)[] {
  return received.map((m) => messageIdOf(m.raw));
}

async function statuses(db: Db, ids: string[]) {
  return Promise.all(ids.map((id) => sendRow(db, id)));
}

describe('email worker stop()', () => {
  it('releases the sends it has not started at once and finishes the ones in flight', async () => {
    const env = await setup();
    // Holds every message after DATA until the gate opens: A's two sends stay in flight.
    const smtp = await startSmtpServer({ gated: true });
    const dbA = createDb(env.db.url);
    const dbB = createDb(env.db.url);
    const timings = { pollMs: 50, leaseMs: LONG_MS };
    let a: ReturnType<typeof startSmtpWorker> | undefined;
    let b: ReturnType<typeof startSmtpWorker> | undefined;
    try {
      const certs = await issueMany(env, 6);
      const ids: string[] = [];
      for (const c of certs) ids.push(await queueSend(env, c.id));
      // Started once all six are queued, so that it claims them in one batch.
      a = startSmtpWorker(dbA, smtp.url, { ...timings, concurrency: 2, stopGraceMs: LONG_MS });
      await waitFor('A to hold all six, two in flight', async () => {
        const rows = await statuses(env.t.deps.db, ids);
        return smtp.dataStarted === 2 && rows.every((r) => r.status === 'sending');
      });
      b = startSmtpWorker(dbB, smtp.url, { pollMs: LONG_MS, leaseMs: LONG_MS });
      await listeners(env, 2);

      const stopping = a.worker.stop();
      // B takes the four A never started, while A's two are still held by the server.
      await waitFor('B to take the four released sends', () => smtp.dataStarted === 6);
      const rows = await statuses(env.t.deps.db, ids);
      assert.deepEqual(
        rows.map((r) => [r.status, r.attempts]),
        ids.map(() => ['sending', 1]),
        'an attempt never made is given back',
      );
      smtp.openGate();
      await stopping;
      for (const id of ids) {
        const row = await settled(env.t.deps.db, id);
        assert.deepEqual([row.status, row.attempts], ['sent', 1]);
      }
      assert.equal(smtp.received.length, 6);
      assert.deepEqual(
        smtp.received.map((m) => codeInMessage(m.raw)).sort(),
        certs.map((c) => c.uniqueCode).sort(),
      );
      assert.deepEqual(messageIds(smtp.received).sort(), ids.map((id) => `<${id}@certsvc.test>`).sort());
    } finally {
      await a?.stop();
      await b?.stop();
      await dbA.close();
      await dbB.close();
      await smtp.close();
      await env.close();
    }
  });

  it('cuts a send that hangs past the grace and gives it back; another worker delivers it once', async () => {
    const env = await setup();
    const hanging = await startSmtpServer({ neverAnswerData: true });
    const good = await startSmtpServer();
    const dbA = createDb(env.db.url);
    const dbB = createDb(env.db.url);
    let a: ReturnType<typeof startSmtpWorker> | undefined;
    let b: ReturnType<typeof startSmtpWorker> | undefined;
    try {
      const certs = await issueMany(env, 3);
      const ids: string[] = [];
      for (const c of certs) ids.push(await queueSend(env, c.id));
      // SMTP's own timeout is far away: only stop() can end A's attempt.
      a = startSmtpWorker(
        dbA,
        hanging.url,
        { pollMs: 50, leaseMs: LONG_MS, concurrency: 1, stopGraceMs: 200 },
        { timeoutMs: LONG_MS },
      );
      await waitFor('A to be in the middle of DATA', async () => {
        const rows = await statuses(env.t.deps.db, ids);
        return hanging.dataStarted === 1 && rows.every((r) => r.status === 'sending');
      });
      b = startSmtpWorker(dbB, good.url, { pollMs: LONG_MS, leaseMs: LONG_MS });
      await listeners(env, 2);

      await a.stop();
      const rows = await Promise.all(ids.map((id) => settled(env.t.deps.db, id)));
      assert.deepEqual(
        rows.map((r) => r.status),
        ['sent', 'sent', 'sent'],
      );
      // The interrupted attempt counts; the two never started do not.
      assert.deepEqual(rows.map((r) => r.attempts).sort(), [1, 1, 2]);
      assert.equal(good.received.length, 3);
      assert.deepEqual(messageIds(good.received).sort(), ids.map((id) => `<${id}@certsvc.test>`).sort());
    } finally {
      await a?.stop();
      await b?.stop();
      await dbA.close();
      await dbB.close();
      await hanging.close();
      await good.close();
      await env.close();
    }
  });
});
