import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

// A proxy that keeps idle connections to the service longer than the service does may send a
// request on a connection at the moment the service closes it: a POST then gets a 502 from the
// proxy (nginx never retries a POST elsewhere). The documented nginx drops its idle upstream
// connections first, and the service's keep-alive timeout is settable (HTTP_KEEP_ALIVE_TIMEOUT_MS)
// for proxies that need the reverse (one that keeps them 60 s: set it above that).

const root = path.resolve(import.meta.dirname, '../../..');
const apps: TestApp[] = [];
after(async () => {
  for (const app of apps) await app.close();
});

function seconds(value: string): number {
  const m = /^(\d+)(ms|s|m)?$/.exec(value);
  if (!m) throw new Error(`not an nginx time: ${value}`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n / 1000 : m[2] === 'm' ? n * 60 : n;
}

// Milliseconds from the end of an answer on a kept-alive connection until the server closes it.
async function idleCloseMs(port: number, limitMs: number): Promise<number> {
  const socket = net.connect(port, '127.0.0.1');
  socket.setEncoding('utf8');
  let answeredAt = 0;
  let text = '';
  const closed = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open ${limitMs} ms after the answer`));
    }, limitMs);
    socket.on('data', (d: string) => {
      text += d;
      if (!answeredAt && text.includes('\r\n\r\n') && text.includes('"status"')) answeredAt = Date.now();
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - answeredAt);
    });
    socket.on('error', () => undefined);
  });
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
  const ms = await closed;
  assert.match(text, /^HTTP\/1\.1 200/);
  assert.doesNotMatch(text, /connection: close/i, 'kept alive, not closed with the answer');
  return ms;
}

describe('idle kept-alive connections', () => {
  it("docs/deploy/nginx.conf drops idle upstream connections before the service's keep-alive timeout", () => {
    const conf = readFileSync(path.join(root, 'docs/deploy/nginx.conf'), 'utf8');
    const upstream = /^upstream certsvc \{([^}]*)\}/m.exec(conf)?.[1];
    assert.ok(upstream, 'an upstream block');
    // nginx's default for upstream connections is 60 s.
    const set = /^\s*keepalive_timeout\s+(\S+);/m.exec(upstream)?.[1];
    const proxyS = set === undefined ? 60 : seconds(set);
    const serviceS = loadConfig({}).httpTimeouts.keepAliveMs / 1000;
    assert.ok(
      proxyS <= serviceS - 1,
      `nginx keeps idle upstream connections ${proxyS} s, the service ${serviceS} s: nginx must drop them at least 1 s sooner`,
    );
  });

  it('HTTP_KEEP_ALIVE_TIMEOUT_MS sets when the service closes an idle kept-alive connection', async () => {
    const t = await startTestApp({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '1500' });
    apps.push(t);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const ms = await idleCloseMs(port, 4_500);
    // Timers and the connection check run on a busy machine: a generous upper bound, well below the
    // 5 s default.
    assert.ok(ms >= 1_300 && ms < 4_000, `closed ${ms} ms after the answer`);
  });
});
