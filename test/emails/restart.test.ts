import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createTenant,
  startTestApp,
  TEST_SIGNING_KEYS_SECRET,
  type Tenant,
  type TestApp,
} from '../helpers/app.js';
import { startSmtpServer, type TestSmtpServer } from './smtp-test-server.js';
import { codeInMessage, createFreshDatabase, freePort, waitFor, type FreshDatabase } from './support.js';

// A send answered 202 is never lost (docs/api.md, Email): the real server, as a child process, is killed with
// SIGKILL in the middle of delivering 200 sends and started again; every send ends sent and every
// one reached the SMTP server at least once.

const root = path.resolve(import.meta.dirname, '../../..');
const COUNT = 200;

let db: FreshDatabase;
let t: TestApp;
let tenant: Tenant;
let smtp: TestSmtpServer;
const children: ChildProcess[] = [];

before(async () => {
  db = await createFreshDatabase();
  // In-process deps on the same database: migrations, the account and its key, and reading outcomes.
  t = await startTestApp({ DATABASE_URL: db.url });
  tenant = await createTenant(t.deps);
  // Slowed down a little, and held shut until every send has been accepted, so that the kill
  // lands in the middle of delivery rather than after it.
  smtp = await startSmtpServer({ delayMs: 25, gated: true });
});

after(async () => {
  for (const child of children) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
      process.kill(child.pid, 'SIGKILL');
  }
  await t?.close();
  await smtp?.close();
  await db?.drop();
});

async function startServer(port: number): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['bin/certsvc.js', 'serve'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      SIGNING_KEYS_SECRET: TEST_SIGNING_KEYS_SECRET,
      DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'certsvc-restart-')),
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      SMTP_URL: smtp.url,
      EMAIL_POLL_MS: '100',
      EMAIL_LEASE_MS: '2000',
      RATE_LIMIT_MAX: '100000',
      LOG_LEVEL: 'warn',
    },
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  await waitFor(
    'the server to listen',
    async () => {
      if (child.exitCode !== null) throw new Error(`server exited: ${out}`);
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`);
      return res.ok;
    },
    30_000,
  );
  return { child, output: () => out };
}

async function statusCounts(): Promise<Record<string, number>> {
  const { rows } = await t.deps.db.query<{ status: string; n: number }>(
    'SELECT status, count(*)::int AS n FROM email_sends WHERE account_id = $1 GROUP BY status',
    [tenant.accountId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

describe('durable email queue across a crash', () => {
  it(`delivers all ${COUNT} accepted sends after the server is killed mid-delivery and restarted`, async (ctx) => {
    const port = await freePort();
    const first = await startServer(port);
    const base = `http://127.0.0.1:${port}/api/v1`;
    const headers = { ...tenant.auth, 'content-type': 'application/json' };

    const issued = await fetch(`${base}/certificates`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        templateId: tenant.templateId,
        recipients: Array.from({ length: COUNT }, (_, i) => ({
          name: `Crash Tester ${i}`,
          email: `crash${i}@example.com`,
          data: { course: 'Durability' },
        })),
      }),
    });
    assert.equal(issued.status, 201);
    const batch = (await issued.json()) as {
      data: { created: number; results: { certificate: { id: string; uniqueCode: string } }[] };
    };
    assert.equal(batch.data.created, COUNT);
    const certs = batch.data.results.map((r) => r.certificate);

    const sendIds: string[] = [];
    for (let i = 0; i < certs.length; i += 20) {
      const chunk = await Promise.all(
        certs.slice(i, i + 20).map(async (c) => {
          const res = await fetch(`${base}/certificates/${c.id}/send`, {
            method: 'POST',
            headers,
            body: '{}',
          });
          assert.equal(res.status, 202, await res.clone().text());
          return ((await res.json()) as { data: { id: string } }).data.id;
        }),
      );
      sendIds.push(...chunk);
    }
    assert.equal(new Set(sendIds).size, COUNT);

    smtp.openGate();
    await waitFor('delivery to be under way', () => smtp.received.length >= 40, 30_000);
    process.kill(first.child.pid!, 'SIGKILL');
    await waitFor(
      'the server to die',
      () => first.child.signalCode !== null || first.child.exitCode !== null,
    );
    const deliveredBeforeCrash = smtp.received.length;
    const atCrash = await statusCounts();
    assert.ok(
      deliveredBeforeCrash < COUNT,
      `the crash came before the end (${deliveredBeforeCrash} delivered)`,
    );
    assert.ok((atCrash.sent ?? 0) < COUNT, `not all sent at the crash: ${JSON.stringify(atCrash)}`);

    ctx.diagnostic(
      `at the crash: ${deliveredBeforeCrash} messages received, sends ${JSON.stringify(atCrash)}`,
    );

    const second = await startServer(port);
    const final = await waitFor(
      `all ${COUNT} sends to be sent`,
      async () => {
        const counts = await statusCounts();
        return counts.sent === COUNT ? counts : undefined;
      },
      90_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${second.output()}`);
    });
    assert.deepEqual(final, { sent: COUNT });

    const received = new Set(smtp.received.map((m) => codeInMessage(m.raw)));
    const missing = certs.filter((c) => !received.has(c.uniqueCode)).map((c) => c.uniqueCode);
    assert.deepEqual(missing, [], 'every send reached the SMTP server at least once');
    assert.ok(smtp.received.length >= COUNT);
    ctx.diagnostic(`after the restart: ${smtp.received.length} messages received for ${COUNT} sends`);

    // The history over HTTP agrees, for a sample.
    for (const c of [certs[0]!, certs[COUNT - 1]!]) {
      const res = await fetch(`${base}/certificates/${c.id}/emails`, { headers: tenant.auth });
      const body = (await res.json()) as { data: { status: string; attempts: number }[] };
      assert.equal(body.data[0]!.status, 'sent');
      assert.ok(body.data[0]!.attempts >= 1);
    }

    process.kill(second.child.pid!, 'SIGTERM');
    await waitFor(
      'the server to stop',
      () => second.child.exitCode !== null || second.child.signalCode !== null,
      30_000,
    );
  });
});
