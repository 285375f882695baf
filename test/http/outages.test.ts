import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createDb, isDatabaseUnavailable } from '../../src/platform/db/db.js';
import { freePort } from '../../src/platform/net.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { portOpen } from '../cluster/backing-services.js';
import {
  createTenant,
  issueCertificate,
  startTestApp,
  testDatabaseUrl,
  type TestApp,
  type Tenant,
} from '../helpers/app.js';

// PostgreSQL or Redis down, hung or unreachable: every answer is a quick 503 with Retry-After in
// the envelope (HTML under /verify/), never a 500 and never a hang; nothing is served unlimited.

const REDIS = '/usr/bin/redis-server';

function assertUnavailable(res: LightMyRequestResponse, html = false): void {
  assert.equal(res.statusCode, 503, res.body);
  assert.ok(Number(res.headers['retry-after']) >= 1, 'Retry-After');
  if (html) {
    assert.match(String(res.headers['content-type']), /^text\/html/);
    return;
  }
  assert.equal(res.json().error.code, 'service_unavailable');
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check()) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// A TCP server that accepts connections and never says a word: a hung server or a dropped network.
async function blackHole(): Promise<{ url: (scheme: string) => string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: (scheme) => `${scheme}://u:p@127.0.0.1:${port}/x`,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

describe(
  'Redis stopped, hung and back',
  { skip: existsSync(REDIS) ? false : 'redis-server not installed' },
  () => {
    let port: number;
    let redis: ChildProcess | undefined;
    let t: TestApp;
    let tenant: Tenant;
    let code: string;

    async function startRedis() {
      redis = spawn(
        REDIS,
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        {
          stdio: 'ignore',
        },
      );
      await until('redis-server', () => portOpen(port));
    }

    async function stopRedis() {
      const child = redis!;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }

    const usage = () => t.app.inject({ url: '/api/v1/usage', headers: tenant.auth });

    before(async () => {
      port = await freePort();
      await startRedis();
      t = await startTestApp({ REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_MAX: '1000' });
      tenant = await createTenant(t.deps);
      code = (await issueCertificate(t.app, tenant)).uniqueCode;
    });

    after(async () => {
      await t?.close();
      if (redis && redis.exitCode === null) await stopRedis();
    });

    test('Redis stopped: 503 at once on the API, the verification JSON and page, and openapi.json; readiness 503', async () => {
      assert.equal((await usage()).statusCode, 200);
      await stopRedis();
      const answers = [
        await timed(usage),
        await timed(() => t.app.inject({ url: `/api/v1/verify/${code}` })),
        await timed(() => t.app.inject({ url: '/api/v1/openapi.json' })),
      ];
      for (const { value, ms } of answers) {
        assertUnavailable(value);
        assert.ok(ms < 1_000, `answered in ${Math.round(ms)} ms`);
      }
      assertUnavailable(await t.app.inject({ url: `/verify/${code}` }), true);
      const ready = await t.app.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      assert.deepEqual(ready.json().error.details.checks, { database: 'ok', redis: 'down' });
      // Nothing is served unlimited while the limiter cannot count.
      const during = await Promise.all(Array.from({ length: 20 }, usage));
      assert.equal(during.filter((r) => r.statusCode !== 503).length, 0);
      assert.equal((await t.app.inject({ url: '/healthz' })).statusCode, 200, 'alive all the same');

      await startRedis();
      const recoveredMs = await until('recovery', async () => (await usage()).statusCode === 200);
      assert.ok(recoveredMs < 5_000, `recovered after ${recoveredMs} ms`);
      assert.equal((await t.app.inject({ url: '/readyz' })).statusCode, 200);
    });

    test('Redis hung (SIGSTOP): 503 within the Redis timeout, not a hang; service resumes on SIGCONT', async () => {
      assert.equal((await usage()).statusCode, 200);
      redis!.kill('SIGSTOP');
      try {
        const { value, ms } = await timed(usage);
        assertUnavailable(value);
        assert.ok(ms < 2_000, `answered in ${Math.round(ms)} ms`);
      } finally {
        redis!.kill('SIGCONT');
      }
      await until('service after SIGCONT', async () => (await usage()).statusCode === 200);
    });
  },
);

describe('Redis unreachable behind a black hole', () => {
  let hole: Awaited<ReturnType<typeof blackHole>>;
  before(async () => {
    hole = await blackHole();
  });
  after(async () => {
    await hole.close();
  });

  test('a Redis that accepts and never answers: 503 quickly', async () => {
    const t = await startTestApp({ REDIS_URL: hole.url('redis'), REDIS_TIMEOUT_MS: '200' });
    try {
      const tenant = await createTenant(t.deps);
      const { value, ms } = await timed(() => t.app.inject({ url: '/api/v1/usage', headers: tenant.auth }));
      assertUnavailable(value);
      assert.ok(ms < 2_000, `answered in ${Math.round(ms)} ms`);
      const ready = await t.app.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      assert.equal(ready.json().error.details.checks.redis, 'down');
    } finally {
      await t.close();
    }
  });
});

describe('PostgreSQL hung, refusing, and back', () => {
  let proxy: FaultProxy;
  let t: TestApp;
  let tenant: Tenant;
  let code: string;
  const usage = () => t.app.inject({ url: '/api/v1/usage', headers: tenant.auth });

  before(async () => {
    proxy = await startFaultProxy(Number(new URL(testDatabaseUrl()).port));
    const url = new URL(testDatabaseUrl());
    url.port = String(proxy.port);
    t = await startTestApp({
      DATABASE_URL: url.href,
      DB_STATEMENT_TIMEOUT_MS: '500',
      DB_CONNECT_TIMEOUT_MS: '500',
    });
    tenant = await createTenant(t.deps);
    code = (await issueCertificate(t.app, tenant)).uniqueCode;
  });

  after(async () => {
    proxy.restore();
    await t?.close();
    await proxy?.close();
  });

  test('hung: 503 with Retry-After within the timeouts on the API and the verification page; readiness 503', async () => {
    assert.equal((await usage()).statusCode, 200);
    proxy.hang();
    try {
      const { value, ms } = await timed(usage);
      assertUnavailable(value);
      assert.ok(ms < 6_000, `answered in ${Math.round(ms)} ms`);
      assertUnavailable(await t.app.inject({ url: `/verify/${code}` }), true);
      const ready = await timed(() => t.app.inject({ url: '/readyz' }));
      assert.equal(ready.value.statusCode, 503);
      assert.equal(ready.value.json().error.details.checks.database, 'down');
      assert.ok(ready.ms < 3_000, `readiness answered in ${Math.round(ready.ms)} ms`);
    } finally {
      proxy.restore();
    }
    await until('service after the hang', async () => (await usage()).statusCode === 200);
  });

  test('refusing connections: 503 at once; back: 200', async () => {
    proxy.refuse();
    try {
      const { value, ms } = await timed(usage);
      assertUnavailable(value);
      assert.ok(ms < 2_000, `answered in ${Math.round(ms)} ms`);
      assertUnavailable(await t.app.inject({ url: `/api/v1/verify/${code}` }));
    } finally {
      proxy.restore();
    }
    await until('service after the outage', async () => (await usage()).statusCode === 200);
    assert.equal((await t.app.inject({ url: '/readyz' })).statusCode, 200);
  });
});

test('a statement past DB_STATEMENT_TIMEOUT_MS is cancelled and reads as "unavailable"', async () => {
  const db = createDb(testDatabaseUrl(), { max: 1, statementTimeoutMs: 200 });
  try {
    const err = await db.query('SELECT pg_sleep(5)').then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(err instanceof Error);
    assert.equal((err as { code?: string }).code, '57014');
    assert.ok(isDatabaseUnavailable(err));
    assert.equal(
      (await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one,
      1,
      'the pool still works',
    );
  } finally {
    await db.close();
  }
});

test('a connection that drops while its client is in use fails that work, and does not crash the process', async () => {
  const db = createDb(testDatabaseUrl(), { max: 2 });
  const admin = createDb(testDatabaseUrl(), { max: 1 });
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.prependListener('uncaughtException', onUncaught);
  try {
    const outcome = await db
      .transaction(async (tx) => {
        const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        // The server ends this connection while the transaction holds it between statements.
        await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx.query('SELECT 1');
      })
      .then(
        () => 'committed',
        (err: unknown) => (isDatabaseUnavailable(err) ? 'unavailable' : `other: ${String(err)}`),
      );
    assert.equal(outcome, 'unavailable');
    assert.deepEqual(uncaught, [], 'no uncaught exception');
    assert.equal(
      (await db.query<{ one: number }>('SELECT 1 AS one')).rows[0]!.one,
      1,
      'the pool still works',
    );
  } finally {
    process.removeListener('uncaughtException', onUncaught);
    await db.close();
    await admin.close();
  }
});
