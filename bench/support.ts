import { SYSTEM } from '../src/platform/principal.js';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { readDesignFile } from '../src/cli/design-file.js';
import { DEMO_DESIGN } from '../src/cli/demo.js';
import { loadConfig } from '../src/config.js';
import { createDeps, createLogger, type Deps } from '../src/deps.js';
import { startEmbeddedPostgres } from '../src/platform/db/embedded.js';
import { freePort } from '../src/platform/net.js';
import type { Design } from '../src/pdf/design.schema.js';

// What the HTTP benchmarks share: the real server as a child process, and latency figures.

const root = path.resolve(import.meta.dirname, '../..');

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface BenchServer {
  base: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

// One master key for the signing keys of a bench run, shared by its servers and its setup.
export const BENCH_SIGNING_KEYS_SECRET = randomBytes(32).toString('hex');

// `certsvc serve --no-worker` (or with its workers) on a free loopback port, on the given database, with the limits raised
// so that the limiter never refuses a bench request (RATE_LIMIT_MAX).
// `opts.worker`: with its workers (email and imports), as `certsvc serve` runs by default.
// `opts.root`: the checkout whose build runs (another one, e.g. a worktree of an older commit).
export async function startServer(
  env: Record<string, string | undefined>,
  opts: { worker?: boolean; root?: string } = {},
): Promise<BenchServer> {
  const port = await freePort();
  // BENCH_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=prof", go to the server's node for profiling.
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      path.join(opts.root ?? root, 'bin/certsvc.js'),
      'serve',
      ...(opts.worker ? [] : ['--no-worker']),
    ],
    {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        RATE_LIMIT_MAX: '1000000',
        SIGNING_KEYS_SECRET: BENCH_SIGNING_KEYS_SECRET,
        ...env,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return {
    base: `http://127.0.0.1:${port}`,
    process: child,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await new Promise((r) => child.once('exit', r));
    },
  };
}

// `count` requests one after the other over keep-alive; each must answer 200. Times in ms.
export async function sequential(url: string, headers: Record<string, string>, count: number) {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
    times.push(performance.now() - t0);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), times };
}

export const ms = (n: number) => `${n.toFixed(2)} ms`;

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  failures: number; // connection errors, timeouts and non-2xx answers
}

// autocannon for `seconds` at `connections` keep-alive connections; `next` makes each request.
export async function load(opts: {
  base: string;
  next: () => { path: string; headers?: Record<string, string> };
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  const r = await autocannon({
    url: opts.base,
    connections: opts.connections,
    duration: opts.seconds,
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, ...opts.next() }) }],
  });
  return {
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    failures: r.errors + r.timeouts + r.non2xx,
  };
}

export const loadLine = (label: string, r: LoadResult) =>
  `${label.padEnd(44)} ${Math.round(r.rps).toString().padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  (${r.requests} requests, ${r.failures} failures)`;

export interface BenchDatabase {
  deps: Deps;
  databaseUrl: string;
  dataDir: string;
  close(): Promise<void>;
}

// DATABASE_URL when set, otherwise an embedded PostgreSQL in a temporary folder removed at the end.
export async function benchDatabase(): Promise<BenchDatabase> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-bench-'));
  const pg = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres(dataDir);
  const databaseUrl = process.env.DATABASE_URL ?? pg!.socketUrl ?? pg!.url;
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SIGNING_KEYS_SECRET: BENCH_SIGNING_KEYS_SECRET,
  });
  const deps = await createDeps(config, { logger: createLogger({ ...config, logLevel: 'warn' }) });
  return {
    deps,
    databaseUrl,
    dataDir,
    async close() {
      await deps.close();
      await pg?.release();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// An account on the Business plan with its template (the sample design) and `count` certificates,
// issued by the issue service in batches of 500 (real PDFs).
export async function issuedAccount(deps: Deps, count: number) {
  const s = deps.services;
  const account = await s.accounts.create({ name: 'Bench Academy', plan: 'Business', monthlyLimit: null });
  const key = await s.keys.create(account.id);
  const template = await s.templates.create(
    SYSTEM,
    account.id,
    (await readDesignFile(DEMO_DESIGN.pathname)) as Design,
  );
  const principal = (await s.keys.authenticate(key.key))!;
  const certificates: { id: string; uniqueCode: string }[] = [];
  for (let done = 0; done < count; done += 500) {
    const recipients = Array.from({ length: Math.min(500, count - done) }, (_, i) => ({
      name: `Zoë Ångström ${done + i}`,
      email: `r${done + i}@example.com`,
      data: { course: 'Safe Lifting', hours: 12 },
    }));
    const outcome = await s.issue.issueBatch(principal, template.id, recipients);
    for (const r of outcome.results) if (r.status === 'created') certificates.push(r.certificate);
  }
  return { accountId: account.id, key: key.key, certificates };
}

// CPU seconds used so far by a process and its children (utime + stime of /proc/<pid>/stat, in
// clock ticks of 10 ms), e.g. PostgreSQL's postmaster and its backends: those running, and through
// the process's cutime + cstime those that have ended (else a backend that exits between two
// readings would take its CPU out of the difference).
export function cpuSeconds(rootPid: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    const ppid = Number(fields[1]);
    if (pid === rootPid || ppid === rootPid) ticks += Number(fields[11]) + Number(fields[12]);
    if (pid === rootPid) ticks += Number(fields[13]) + Number(fields[14]);
  }
  return ticks / 100;
}

// The postmaster of the embedded PostgreSQL under DATA_DIR (undefined with DATABASE_URL).
export function postmasterPid(dataDir: string): number | undefined {
  try {
    return Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

// Runs `fn` and returns the CPU seconds that each of `pids` (with its children) used meanwhile.
export async function cpuDuring<T>(
  pids: number[],
  fn: () => Promise<T>,
): Promise<{ value: T; cpu: number[] }> {
  const before = pids.map(cpuSeconds);
  const value = await fn();
  return { value, cpu: pids.map((pid, i) => cpuSeconds(pid) - before[i]!) };
}
