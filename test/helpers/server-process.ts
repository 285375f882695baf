import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createDeps, createLogger } from '../../src/deps.js';
import { createTenant, TEST_SIGNING_KEYS_SECRET, testConfig, testDatabaseUrl } from './app.js';

// A real `certsvc serve` as a child process (for crash tests): started on a database and data
// folder of the test's own, ready when it answers; killed with SIGKILL.

const root = path.resolve(import.meta.dirname, '../../..');

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  output: () => string;
}

export async function startServer(opts: {
  port: number;
  databaseUrl: string;
  dataDir: string;
  worker?: boolean;
  children: Set<ChildProcess>;
}): Promise<ServerProcess> {
  let output = '';
  const child = spawn(
    process.execPath,
    ['bin/certsvc.js', 'serve', ...(opts.worker ? [] : ['--no-worker'])],
    {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        SIGNING_KEYS_SECRET: TEST_SIGNING_KEYS_SECRET,
        DATABASE_URL: opts.databaseUrl,
        DATA_DIR: opts.dataDir,
        PORT: String(opts.port),
        HOST: '127.0.0.1',
        PUBLIC_BASE_URL: 'http://certs.test',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_MAX: '100000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  opts.children.add(child);
  child.stdout!.on('data', (d) => (output += String(d)));
  child.stderr!.on('data', (d) => (output += String(d)));
  child.on('exit', () => opts.children.delete(child));
  const base = `http://127.0.0.1:${opts.port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}): ${output}`);
    const ok = await fetch(`${base}/api/v1/openapi.json`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { child, base, output: () => output };
    await sleep(100);
  }
  throw new Error(`server did not start: ${output}`);
}

export function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

// A database of the test's own (and a data folder) for server processes it starts and kills, with
// its service deps and one tenant; `close` kills what is left, drops the database and the folder.
export async function crashSetting(name: string) {
  const dbName = `certsvc_${name}_${process.pid}_${Date.now()}`;
  const adminUrl = testDatabaseUrl();
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const databaseUrl = url.toString();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `certsvc-${name}-`));
  const children = new Set<ChildProcess>();
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query(sql);
    await client.end();
  };
  await admin(`CREATE DATABASE ${dbName}`);
  const config = testConfig({ DATABASE_URL: databaseUrl });
  const deps = await createDeps(config, { logger: createLogger(config) });
  const tenant = await createTenant(deps, { monthlyLimit: 100_000 });
  return {
    databaseUrl,
    dataDir,
    children,
    deps,
    tenant,
    async close() {
      for (const child of children) await killHard(child);
      await deps.close();
      await admin(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
