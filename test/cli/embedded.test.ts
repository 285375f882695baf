import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { BIN, cliEnv, REPO_ROOT, runCli } from './run-cli.js';
import { freePort } from '../../src/platform/net.js';

// The embedded PostgreSQL (no DATABASE_URL): created on first use under DATA_DIR, shared by every
// certsvc process on that data dir, surviving a killed process, stopped by the last one out.

const execFileP = promisify(execFile);
const WAIT_MS = 60_000; // a safety net against hanging, not an assertion on speed

let dataDir: string;
let clusterDir: string;
const children: ChildProcess[] = [];

function env(extra: Record<string, string> = {}) {
  return cliEnv({ DATABASE_URL: undefined, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...extra });
}

// Running, not a zombie (a daemonised postgres is reaped by PID 1, which in a container may not reap).
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>) {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The pid in postmaster.pid, or undefined when there is no such file.
async function postmasterPid(): Promise<number | undefined> {
  try {
    return Number((await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  } catch {
    return undefined;
  }
}

// Postmaster processes (the ones started with -D) serving this data dir.
async function postmasters(): Promise<number[]> {
  const { stdout } = await execFileP('ps', ['-eo', 'pid=,args=']);
  return stdout
    .split('\n')
    .filter((l) => l.includes(`-D ${clusterDir} `) || l.endsWith(`-D ${clusterDir}`))
    .filter((l) => /\bpostgres\b/.test(l))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

interface Server {
  child: ChildProcess;
  output: () => string;
  baseUrl: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startServe(port: number, extra: Record<string, string> = {}): Promise<Server> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: REPO_ROOT,
    env: env({ PORT: String(port), ...extra }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  await waitFor('the "listening" line', () => {
    if (gone) throw new Error(`serve exited before listening:\n${out}`);
    return /listening on http:\/\/\S+/.test(out);
  }).catch((err: Error) => {
    throw new Error(`${err.message}\n--- serve output ---\n${out}`);
  });
  const url = /listening on (http:\/\/\S+)/.exec(out)![1]!;
  return { child, output: () => out, baseUrl: url, exited };
}

// A query on the embedded database, over TCP.
async function ask<R extends pg.QueryResultRow>(sql: string): Promise<R[]> {
  const state = JSON.parse(await readFile(path.join(dataDir, 'embedded-postgres.json'), 'utf8')) as {
    password: string;
  };
  const port = Number((await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[3]);
  const client = new pg.Client({
    connectionString: `postgres://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${port}/certsvc`,
  });
  await client.connect();
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

async function countDemoAccounts(): Promise<number> {
  const rows = await ask<{ n: number }>(
    `SELECT count(*)::int AS n FROM accounts WHERE name = 'Demo Academy'`,
  );
  return rows[0]!.n;
}

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-embedded-'));
  clusterDir = path.join(dataDir, 'pg');
});

after(async () => {
  // Whatever happened: stop every process this test started, then the postgres they shared.
  for (const child of children) {
    if (child.pid && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  const pid = await postmasterPid();
  if (pid && alive(pid)) {
    process.kill(pid, 'SIGINT'); // fast shutdown
    await waitFor('postgres to stop', () => !alive(pid)).catch(() => process.kill(pid, 'SIGKILL'));
  }
  await rm(dataDir, { recursive: true, force: true });
});

describe('embedded PostgreSQL', { timeout: 5 * WAIT_MS }, () => {
  let demoKey: string;
  let firstPid: number;

  it('migrate in a fresh data dir creates the cluster and leaves no postgres running', async () => {
    assert.equal(existsSync(clusterDir), false);
    const r = await runCli(['migrate'], env());
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /up to date/);
    assert.ok(existsSync(path.join(clusterDir, 'PG_VERSION')), 'cluster created');
    assert.equal(await postmasterPid(), undefined, 'postmaster.pid is gone');
    assert.deepEqual(await postmasters(), [], 'no postmaster for this data dir');
    const log = await readFile(path.join(dataDir, 'postgres.log'), 'utf8');
    assert.match(log, /shut down|shutting down/, 'postgres was started and stopped');
  });

  it('serve: first start creates and prints the demo, then listens', async () => {
    const port = await freePort();
    const server = await startServe(port);
    try {
      const out = server.output();
      assert.match(out, /First start: created a demo account/);
      demoKey = /API key .*: (svc_live_[A-Za-z0-9]{32})/.exec(out)?.[1] ?? '';
      assert.ok(demoKey, out);
      assert.match(
        out,
        new RegExp(`curl -H "Authorization: Bearer ${demoKey}" http://localhost:${port}/api/v1/templates`),
      );
      // How to rename the demo organisation (issue 29): the CLI command and the dashboard page.
      assert.match(
        out,
        /Rename the demo organisation with\n {2}npx certsvc account update [0-9a-f-]{36} --name "/,
      );
      assert.ok(
        out.includes(`Settings > Organisation: http://localhost:${port}/dashboard/settings/organisation`),
        out,
      );
      assert.equal(server.baseUrl, `http://127.0.0.1:${port}`);

      const doc = await fetch(`${server.baseUrl}/api/v1/openapi.json`);
      assert.equal(doc.status, 200);
      assert.match(((await doc.json()) as { openapi: string }).openapi, /^3\.1\./);
      const usage = await fetch(`${server.baseUrl}/api/v1/usage`, {
        headers: { authorization: `Bearer ${demoKey}` },
      });
      assert.equal(usage.status, 200);
      assert.equal(((await usage.json()) as { data: { tier: string } }).data.tier, 'Business');

      const pid = await postmasterPid();
      assert.ok(pid && alive(pid), 'postgres runs');
      firstPid = pid;
      // The service's own connections come through the cluster folder's Unix socket (no address).
      const service = await ask<{ address: string | null }>(
        `SELECT client_addr::text AS address FROM pg_stat_activity WHERE application_name = 'certsvc'`,
      );
      assert.ok(service.length > 0, 'the service is connected');
      assert.deepEqual(
        service.filter((c) => c.address !== null),
        [],
        'none over TCP',
      );

      // A CLI command while the server runs: works on the same data, and leaves postgres running.
      const cli = await runCli(
        ['account', 'create', '--name', 'Alongside', '--plan', 'Business', '--json'],
        env(),
      );
      assert.equal(cli.code, 0, cli.stderr);
      assert.doesNotMatch(cli.stderr, /left running/, 'a server is on it: not a stray');
      assert.match(String((JSON.parse(cli.stdout) as { id: string }).id), /^[0-9a-f-]{36}$/);
      assert.equal(await postmasterPid(), firstPid);
      assert.ok(alive(firstPid), 'postgres still runs after the CLI left');
      const again = await fetch(`${server.baseUrl}/api/v1/templates`, {
        headers: { authorization: `Bearer ${demoKey}` },
      });
      assert.equal(again.status, 200, 'the server still reaches its database');

      // kill -9 the server: its postgres is a daemon and keeps running.
      server.child.kill('SIGKILL');
      assert.equal((await server.exited).signal, 'SIGKILL');
      assert.ok(alive(firstPid), 'postgres survives a killed server');
      assert.equal(await postmasterPid(), firstPid);
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('serve again: reuses the running postgres, no second demo; SIGTERM exits 0 and stops postgres', async () => {
    assert.ok(firstPid, 'the previous step ran');
    const port = await freePort();
    const server = await startServe(port, { LOG_LEVEL: 'warn' });
    try {
      assert.doesNotMatch(server.output(), /demo account|API key/, 'no second demo');
      // Not silently: the stray is named in the log.
      assert.match(server.output(), /"pid":\d+,"port":\d+.*"msg":"the embedded PostgreSQL was left running/);
      assert.equal(await postmasterPid(), firstPid, 'the same postmaster');
      assert.deepEqual(await postmasters(), [firstPid], 'only one postmaster for this data dir');
      assert.equal(await countDemoAccounts(), 1);

      const usage = await fetch(`${server.baseUrl}/api/v1/usage`, {
        headers: { authorization: `Bearer ${demoKey}` },
      });
      assert.equal(usage.status, 200);

      server.child.kill('SIGTERM');
      const { code, signal } = await server.exited;
      assert.equal(signal, null);
      assert.equal(code, 0, server.output());
      // The last process out stops postgres (pg_ctl stop -w: stopped before the process exits).
      assert.equal(alive(firstPid), false, 'postgres stopped');
      assert.equal(await postmasterPid(), undefined, 'postmaster.pid removed');
      assert.deepEqual(await postmasters(), []);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
