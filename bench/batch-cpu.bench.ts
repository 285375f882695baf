// CPU time per certificate of batches of 500 through the issue service (render threads, both
// proofs, the transaction's statements on the embedded PostgreSQL), and the main thread's share
// spent in the garbage collector. `node dist/bench/batch-cpu.bench.js [--against ROOT]
// [--rounds N] [--batches N]`: each round runs one process per build (this one, and with --against
// another checkout's build, e.g. a worktree of the commit before a change), in alternating order,
// on one database. Each process issues a warm-up batch, then `--batches` batches of world names
// (19 names in turn) and as many of unique names (each name with its number), and reports per
// certificate: the process's CPU (every thread: process.cpuUsage), the main thread's CPU
// (/proc/self/task), its GC pauses (perf_hooks 'gc' entries) and PostgreSQL's CPU (/proc).
// BENCH_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=prof") go to the processes' node.
// Goal (issue 34, item 3): at most 1.5 ms of CPU per certificate in batches.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
  gc: number; // ms per certificate of GC pauses on the main thread (wall time: waits included)
  minor: number; // the main thread's collections per batch: scavenges
  major: number; // and mark-compacts
  postgres: number; // ms per certificate
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] ? (process.argv[at + 1] as string) : fallback;
}

// The main thread's CPU seconds (its task in /proc: utime + stime, clock ticks of 10 ms).
function mainThreadSeconds(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
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
  await issue('unique names'); // warm up: the threads' fonts, the statements, the keys
  const out: Partial<Record<Workload, Figures>> = {};
  for (const workload of workloads) {
    const start = process.cpuUsage();
    const main = mainThreadSeconds();
    const pgStart = pg ? cpuSeconds(pg) : 0;
    gcMs = 0;
    collections.minor = collections.major = 0;
    counting = true;
    for (let b = 0; b < batches; b++) await issue(workload);
    await new Promise((resolve) => setImmediate(resolve)); // the last GC entries
    counting = false;
    const used = process.cpuUsage(start);
    const n = batches * BATCH;
    out[workload] = {
      cpu: (used.user + used.system) / 1000 / n,
      main: ((mainThreadSeconds() - main) * 1000) / n,
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
  const child = spawn(process.execPath, [...args, '--batches', option('--batches', '3')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${root}: exited ${code}`));
      resolve(JSON.parse(output.trim().split('\n').at(-1)!) as Record<Workload, Figures>);
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
      const line = workloads.map((w) => `${w} ${figures[w].cpu.toFixed(3)}`).join(', ');
      console.log(`  round ${r + 1}, ${build.label}: ${line} ms CPU per certificate`);
    }
  }
  await bench.close();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const fmt = (n: number) => n.toFixed(3);
  console.log(
    `batches of ${BATCH}, ${option('--batches', '3')} per workload and round, ${rounds} rounds (ms per certificate, median of rounds):`,
  );
  for (const build of builds) {
    for (const w of workloads) {
      const xs = samples.get(build.label)!.map((f) => f[w]);
      const cpu = median(xs.map((f) => f.cpu));
      const share = median(xs.map((f) => f.gc / f.main));
      console.log(
        `  ${build.label.padEnd(28)} ${w.padEnd(13)} CPU ${fmt(cpu)} (rounds ${xs.map((f) => fmt(f.cpu)).join(', ')}), ` +
          `main thread ${fmt(median(xs.map((f) => f.main)))}, its GC ${fmt(median(xs.map((f) => f.gc)))} ` +
          `(${(share * 100).toFixed(1)}% of it; collections per batch: ${median(xs.map((f) => f.minor))} minor, ` +
          `${median(xs.map((f) => f.major))} major), PostgreSQL ${fmt(median(xs.map((f) => f.postgres)))}` +
          (build.label === 'this build' ? `; goal at most 1.5: ${cpu <= 1.5 ? 'met' : 'not met'}` : ''),
      );
    }
  }
}

if (process.argv.includes('--child')) await child();
else await parent();
