// CPU time per certificate of batches of 500 through the issue service (render threads, both
// proofs, the transaction's statements on the embedded PostgreSQL), and the main thread's share
// spent in the garbage collector. `node dist/bench/batch-cpu.bench.js [--against ROOT]
// [--rounds N] [--batches N] [--warm-up N]`: each round runs one process per build (this one, and with --against
// another checkout's build, e.g. a worktree of the commit before a change), in alternating order,
// on one database. Each process issues `--warm-up` batches (half of them world names), then
// `--batches` batches of world names (19 names in turn) and as many of unique names (each name with
// its number), and reports per certificate, counted from after the warm-up: the process's CPU (every
// thread: process.cpuUsage), its threads' CPU by group (/proc/self/task: the main thread, the threads
// the first batch started, i.e. the PDF threads, and the threads the process started with, i.e. V8's
// GC helpers and optimizing compiler), the main thread's GC pauses (perf_hooks 'gc' entries) and
// PostgreSQL's CPU (/proc). The warm-up is more than one batch because V8 still compiles hot
// functions of the PDF threads during the second and third thousand certificates.
// BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=prof") go to the processes' node.
// Goal (issue 34, item 3): at most 1.5 ms of CPU per certificate in batches.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { SYSTEM } from '../src/platform/principal.js';
import { readDesignFile } from '../src/cli/design-file.js';
import { DEMO_DESIGN } from '../src/cli/demo.js';
import type { Design } from '../src/pdf/design.schema.js';
import type { Deps } from '../src/deps.js';
import { worldNames } from '../test/helpers/world-names.js';
import { BENCH_SIGNING_KEYS_SECRET, benchDatabase, cpuSeconds, postmasterPid } from './support.js';

const BATCH = 500;
type Workload = 'world names' | 'unique names';
const workloads: Workload[] = ['world names', 'unique names'];
interface Figures {
  cpu: number; // ms per certificate, the whole process
  main: number; // ms per certificate, the main thread
  started: number; // ms per certificate, the threads started by the first batch (the PDF threads)
  helpers: number; // ms per certificate, the other threads (V8's GC helpers and compiler, libuv's)
  gc: number; // ms per certificate of GC pauses on the main thread (wall time: waits included)
  minor: number; // the main thread's collections per batch: scavenges
  major: number; // and mark-compacts
  postgres: number; // ms per certificate
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] ? (process.argv[at + 1] as string) : fallback;
}

// Each thread's CPU seconds by its id (its task in /proc: utime + stime, clock ticks of 10 ms).
function threadSeconds(): Map<string, number> {
  const out = new Map<string, number>();
  for (const task of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(task, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

// The CPU seconds of three groups of threads between two readings of threadSeconds().
function threadGroups(before: Map<string, number>, after: Map<string, number>, first: Set<string>) {
  const groups = { main: 0, started: 0, helpers: 0 };
  for (const [task, seconds] of after) {
    const used = seconds - (before.get(task) ?? 0);
    if (task === String(process.pid)) groups.main += used;
    else if (first.has(task)) groups.helpers += used;
    else groups.started += used;
  }
  return groups;
}

function recipients(first: number, workload: Workload) {
  return Array.from({ length: BATCH }, (_, k) => {
    const i = first + k;
    const name = worldNames[i % worldNames.length]!.name;
    return {
      name: workload === 'unique names' ? `${name} ${i}` : name,
      email: `r${i}@example.com`,
      data: { course: 'Advanced TypeScript for Services', hours: 12 + (i % 5) },
    };
  });
}

// One build's process: issues the batches and prints its figures as the last line of JSON.
async function child(): Promise<void> {
  const root = option('--root', '');
  const url = (file: string) => pathToFileURL(path.join(root, 'dist/src', file)).href;
  const { loadConfig } = (await import(url('config.js'))) as typeof import('../src/config.js');
  const { createDeps, createLogger } = (await import(url('deps.js'))) as typeof import('../src/deps.js');
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn' });
  const deps: Deps = await createDeps(config, { logger: createLogger({ ...config, logLevel: 'warn' }) });
  const principal = (await deps.services.keys.authenticate(process.env.BENCH_KEY!))!;
  const templateId = process.env.BENCH_TEMPLATE!;
  const batches = Number(option('--batches', '3'));
  let gcMs = 0;
  const collections = { minor: 0, major: 0 };
  let counting = false;
  new PerformanceObserver((list) => {
    if (!counting) return;
    for (const e of list.getEntries()) {
      gcMs += e.duration;
      const kind = (e as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) collections.minor++;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) collections.major++;
    }
  }).observe({ entryTypes: ['gc'] });
  const pg = postmasterPid(process.env.DATA_DIR!);
  let next = Number(option('--first', '0'));
  const issue = async (workload: Workload) => {
    const outcome = await deps.services.issue.issueBatch(principal, templateId, recipients(next, workload));
    next += BATCH;
    if (outcome.created !== BATCH) {
      const failed = outcome.results.find((r) => r.status === 'failed');
      throw new Error(`${outcome.failed} failed: ${JSON.stringify(failed)}`);
    }
  };
  const nodeArgs = Boolean(process.env.BENCH_NODE_ARGS);
  const startedWith = new Set(threadSeconds().keys());
  // Warm up: the threads' fonts and compiled code, the statements, the keys.
  const warmUp = Number(option('--warm-up', '4'));
  for (let b = 0; b < warmUp; b++) await issue(workloads[b % 2]!);
  const out: Partial<Record<Workload, Figures>> = {};
  for (const workload of workloads) {
    if (nodeArgs) console.log(`-- timed batches of ${workload}`);
    const start = process.cpuUsage();
    const threads = threadSeconds();
    const pgStart = pg ? cpuSeconds(pg) : 0;
    gcMs = 0;
    collections.minor = collections.major = 0;
    counting = true;
    for (let b = 0; b < batches; b++) await issue(workload);
    await new Promise((resolve) => setImmediate(resolve)); // the last GC entries
    counting = false;
    const used = process.cpuUsage(start);
    const n = batches * BATCH;
    const groups = threadGroups(threads, threadSeconds(), startedWith);
    out[workload] = {
      cpu: (used.user + used.system) / 1000 / n,
      main: (groups.main * 1000) / n,
      started: (groups.started * 1000) / n,
      helpers: (groups.helpers * 1000) / n,
      gc: gcMs / n,
      minor: collections.minor / batches,
      major: collections.major / batches,
      postgres: pg ? ((cpuSeconds(pg) - pgStart) * 1000) / n : 0,
    };
  }
  await deps.close();
  console.log(JSON.stringify(out));
}

function runChild(
  root: string,
  env: Record<string, string>,
  first: number,
): Promise<Record<Workload, Figures>> {
  const nodeArgs = process.env.BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const args = [...nodeArgs, import.meta.filename, '--child', '--root', root, '--first', String(first)];
  const counts = ['--batches', option('--batches', '3'), '--warm-up', option('--warm-up', '4')];
  const child = spawn(process.execPath, [...args, ...counts], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${root}: exited ${code}`));
      // The figures are the last line of JSON; the rest (e.g. what BENCH_NODE_ARGS="--trace-opt"
      // made V8 print, with the child's marks of the timed batches) goes to stderr.
      const lines = output.trim().split('\n');
      const figures = lines.map((line) => line.startsWith('{')).lastIndexOf(true);
      process.stderr.write(lines.filter((_, i) => i !== figures).join('\n') + '\n');
      resolve(JSON.parse(lines[figures]!) as Record<Workload, Figures>);
    });
  });
}

async function parent(): Promise<void> {
  const rounds = Number(option('--rounds', '3'));
  const against = option('--against', '');
  const bench = await benchDatabase();
  const s = bench.deps.services;
  const account = await s.accounts.create({
    name: 'Bench Academy',
    plan: 'Business',
    monthlyLimit: 100_000_000,
  });
  const key = await s.keys.create(account.id);
  const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
  const template = await s.templates.create(SYSTEM, account.id, design);
  const env = {
    DATABASE_URL: bench.databaseUrl,
    DATA_DIR: bench.dataDir,
    SIGNING_KEYS_SECRET: BENCH_SIGNING_KEYS_SECRET,
    BENCH_KEY: key.key,
    BENCH_TEMPLATE: template.id,
  };
  const builds = [{ label: 'this build', root: path.resolve(import.meta.dirname, '../..') }];
  if (against) builds.push({ label: `--against ${against}`, root: path.resolve(against) });
  const samples = new Map(builds.map((b) => [b.label, [] as Record<Workload, Figures>[]]));
  let first = 0;
  for (let r = 0; r < rounds; r++) {
    for (const build of r % 2 === 0 ? builds : [...builds].reverse()) {
      const figures = await runChild(build.root, env, first);
      first += 1_000_000;
      samples.get(build.label)!.push(figures);
      const line = workloads
        .map((w) => {
          const f = figures[w];
          const parts = [f.main, f.started, f.helpers].map((x) => x.toFixed(2)).join(' + ');
          return `${w} ${f.cpu.toFixed(3)} (main + PDF threads + V8 helpers: ${parts})`;
        })
        .join(', ');
      console.log(`  round ${r + 1}, ${build.label}: ${line} ms CPU per certificate`);
    }
  }
  await bench.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const fmt = (n: number) => n.toFixed(3);
  console.log(
    `batches of ${BATCH}, ${option('--batches', '3')} per workload and round after ${option('--warm-up', '4')} to warm up, ` +
      `${rounds} rounds (ms per certificate, median of rounds):`,
  );
  for (const build of builds) {
    for (const w of workloads) {
      const xs = samples.get(build.label)!.map((f) => f[w]);
      const cpu = median(xs.map((f) => f.cpu));
      const share = median(xs.map((f) => f.gc / f.main));
      console.log(
        `  ${build.label.padEnd(28)} ${w.padEnd(13)} CPU ${fmt(cpu)} (rounds ${xs.map((f) => fmt(f.cpu)).join(', ')}), ` +
          `main thread ${fmt(median(xs.map((f) => f.main)))}, PDF threads ${fmt(median(xs.map((f) => f.started)))}, ` +
          `V8 helpers ${fmt(median(xs.map((f) => f.helpers)))}, main thread's GC ${fmt(median(xs.map((f) => f.gc)))} ` +
          `(${(share * 100).toFixed(1)}% of it; collections per batch: ${median(xs.map((f) => f.minor))} minor, ` +
          `${median(xs.map((f) => f.major))} major), PostgreSQL ${fmt(median(xs.map((f) => f.postgres)))}` +
          (build.label === 'this build' ? `; goal at most 1.5: ${cpu <= 1.5 ? 'met' : 'not met'}` : ''),
      );
    }
  }
}

if (process.argv.includes('--child')) await child();
else await parent();
