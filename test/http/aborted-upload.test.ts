import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/deps.js';
import { createTenant, startTestApp, type TestApp, type Tenant } from '../helpers/app.js';
import { httpRequest } from '../helpers/raw-http.js';

// docs/operations.md, Timeouts of the HTTP server: a client that closes its connection while its body is still coming in
// is a client's doing, logged at info; it is not a database outage (an error-level line that
// pages someone) and it does not count as one.

let t: TestApp;
let app: FastifyInstance;
let tenant: Tenant;
let port: number;
const lines: { level: number; msg: string; [k: string]: unknown }[] = [];

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  tenant = await createTenant(t.deps);
  const logger = createLogger(
    { ...t.deps.config, logLevel: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line)) },
  );
  app = await createApp({ ...t.deps, logger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as net.AddressInfo).port;
});
after(async () => {
  await app?.close();
  await t?.close();
});

function sendHalfThenDrop(): Promise<void> {
  const body = JSON.stringify({
    templateId: tenant.templateId,
    recipients: Array.from({ length: 400 }, (_, i) => ({
      name: `Recipient ${i}`,
      email: `r${i}@example.com`,
      data: { course: 'x'.repeat(900) },
    })),
  });
  const request = httpRequest(
    'POST',
    '/api/v1/certificates',
    { ...tenant.auth, 'Content-Type': 'application/json' },
    body,
  );
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(request.subarray(0, Math.floor(request.length / 2)), () => {
        // Long enough for the server to be reading the body, then the client goes away.
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 200);
      });
    });
    socket.on('error', reject);
  });
}

test('a client that drops its upload half way: an info line, no error, no database outage', async () => {
  await sendHalfThenDrop();
  const started = Date.now();
  while (!lines.some((l) => l.msg?.includes('aborted')) && Date.now() - started < 5_000) {
    await new Promise((r) => setTimeout(r, 50));
  }
  await new Promise((r) => setTimeout(r, 200));
  const errors = lines.filter((l) => l.level >= 50);
  assert.deepEqual(errors, [], 'no error-level line');
  assert.ok(
    lines.some((l) => l.level === 30 && /client aborted/i.test(l.msg)),
    `an info line says the client aborted: ${JSON.stringify(lines.map((l) => [l.level, l.msg]))}`,
  );
  assert.ok(!lines.some((l) => /database/i.test(l.msg)), 'nothing about the database');
  // The server is fine for the next client.
  const usage = await app.inject({ url: '/api/v1/usage', headers: tenant.auth });
  assert.equal(usage.statusCode, 200);
});
