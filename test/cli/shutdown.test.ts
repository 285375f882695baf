import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, testDatabaseUrl, type Tenant, type TestApp } from '../helpers/app.js';
import { request, type Reply } from '../cluster/client.js';
import { waitFor } from '../cluster/backing-services.js';
import { startApiInstance, type ServiceProcess } from '../cluster/processes.js';
import { cliEnv } from './run-cli.js';

// SIGTERM and SIGINT drain a real `certsvc serve` process (docs/operations.md, Shutdown).

let t: TestApp;
let tenant: Tenant;

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t.deps, { monthlyLimit: 100_000 });
});

after(async () => {
  await t.close();
});

const env = (extra: Record<string, string> = {}) =>
  cliEnv({
    DATABASE_URL: testDatabaseUrl(),
    RATE_LIMIT_MAX: '100000',
    PUBLIC_BASE_URL: 'http://certs.test',
    LOG_LEVEL: 'info',
    ...extra,
  });

function batch(base: string, count: number, agent?: http.Agent): Promise<Reply> {
  return request(`${base}/api/v1/certificates`, {
    method: 'POST',
    headers: tenant.auth,
    agent,
    body: {
      templateId: tenant.templateId,
      recipients: Array.from({ length: count }, (_, i) => ({
        name: `Drain ${i}`,
        email: `drain-${i}@example.com`,
        data: { course: 'Shutdown' },
      })),
    },
  });
}

// A request whose body never arrives: in flight until its 30 s request timeout.
function stuckRequest(server: ServiceProcess): net.Socket {
  const { port } = new URL(server.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(
    `POST /api/v1/certificates HTTP/1.1\r\nHost: x\r\nAuthorization: ${tenant.auth.authorization}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
  );
  return socket;
}

describe('graceful shutdown', () => {
  it('SIGTERM with batches in flight and keep-alive clients: every batch completes, then the process exits 0', async () => {
    const server = await startApiInstance('drain', env());
    const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
    // Warm keep-alive connections, which are idle at the signal.
    for (let i = 0; i < 4; i++) {
      assert.equal(
        (await request(`${server.url}/api/v1/usage`, { headers: tenant.auth, agent })).status,
        200,
      );
    }
    const batches = Array.from({ length: 6 }, () => batch(server.url, 20));
    await new Promise((r) => setTimeout(r, 300));
    const signalledAt = Date.now();
    process.kill(server.pid, 'SIGTERM');
    await waitFor('the drain to begin', async () => server.output().includes('"msg":"shutting down"'));
    // A request on a kept-alive connection once the drain has begun: the connection is closed, or
    // the request is refused in the envelope with Connection: close; never served, never left hanging.
    const late = await request(`${server.url}/api/v1/usage`, {
      headers: tenant.auth,
      agent,
      timeoutMs: 5_000,
    }).then(
      (res) => res,
      (err: Error) => err,
    );
    if (late instanceof Error) {
      assert.doesNotMatch(late.message, /no answer/, 'not left hanging');
    } else {
      assert.equal(late.status, 503, late.text);
      assert.equal(late.json<{ error: { code: string } }>().error.code, 'service_unavailable');
      assert.equal(late.headers.connection, 'close');
    }
    for (const res of await Promise.all(batches)) {
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json<{ data: { created: number } }>().data.created, 20);
    }
    const exit = await server.exited;
    agent.destroy();
    assert.equal(exit.code, 0, server.output());
    assert.ok(exit.at - signalledAt < 25_000, 'within the default deadline');
    assert.match(server.output(), /"msg":"shutting down"/);
  });

  it('SHUTDOWN_DELAY_S: at the signal /readyz turns 503 while the listener still serves; then it drains and exits 0', async () => {
    const server = await startApiInstance('delay', env({ SHUTDOWN_DELAY_S: '4' }));
    assert.equal((await request(`${server.url}/readyz`)).status, 200);
    const signalledAt = Date.now();
    process.kill(server.pid, 'SIGTERM');
    await waitFor('the drain to begin', async () => server.output().includes('"msg":"shutting down"'));
    // New connections are still accepted: readiness says go elsewhere, the API still answers.
    const ready = await request(`${server.url}/readyz`);
    assert.equal(ready.status, 503, ready.text);
    assert.equal(ready.json<{ error: { code: string } }>().error.code, 'service_unavailable');
    const usage = await request(`${server.url}/api/v1/usage`, { headers: tenant.auth });
    assert.equal(usage.status, 200, usage.text);
    assert.ok(Date.now() - signalledAt < 4_000, 'checked within the delay');
    const exit = await server.exited;
    assert.equal(exit.code, 0, server.output());
    assert.ok(exit.at - signalledAt >= 3_900, `exited ${exit.at - signalledAt} ms after the signal`);
    assert.ok(exit.at - signalledAt < 25_000, 'within the deadline');
  });

  it('a request that never ends does not keep the process: it exits 1 at SHUTDOWN_TIMEOUT_S', async () => {
    const server = await startApiInstance('stuck', env({ SHUTDOWN_TIMEOUT_S: '1', LOG_LEVEL: 'info' }));
    const socket = stuckRequest(server);
    await new Promise((r) => setTimeout(r, 200));
    const signalledAt = Date.now();
    process.kill(server.pid, 'SIGTERM');
    const exit = await server.exited;
    socket.destroy();
    assert.equal(exit.code, 1, server.output());
    assert.ok(exit.at - signalledAt < 15_000, `exited ${exit.at - signalledAt} ms after the signal`);
    assert.match(server.output(), /shutdown deadline passed/);
  });

  it('a second signal exits at once', async () => {
    const server = await startApiInstance('twice', env({ SHUTDOWN_TIMEOUT_S: '600', LOG_LEVEL: 'info' }));
    const socket = stuckRequest(server);
    await new Promise((r) => setTimeout(r, 200));
    process.kill(server.pid, 'SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    assert.ok(server.running(), 'still draining after the first signal');
    process.kill(server.pid, 'SIGINT');
    const exit = await server.exited;
    socket.destroy();
    assert.equal(exit.code, 1, server.output());
    assert.match(server.output(), /second signal/);
  });
});
