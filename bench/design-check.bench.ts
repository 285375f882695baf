import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { Piscina } from 'piscina';

// What the checks of a design cost a dashboard Save or live preview since issue 27 moved them off
// the event loop into the file checker's threads (src/pdf/file-checker.ts), against running them on
// the main thread as before. Goal (issue 27): the checks add at most 1 ms to a design save or
// preview of the starting designs.
//
// For each starting design, in one process, in alternating rounds (every way measured a few times
// per round, the order turning from round to round, so that the machine's noise hits all alike):
//   a. `await designIssues(design)` on the main thread: the work the old code did in-thread;
//   b. `checker.design(design)` with a cache miss (the name differs on every call): the worker
//      round trip plus the same work;
//   c. `checker.design(design)` with a cache hit (the same JSON again): a Save right after a preview;
// and, to see where the time goes: the cache key (JSON.stringify), a structured clone of the design
// (what postMessage does to it, on both sides), and the same round trip through a bare piscina pool
// that answers at once (with the design, and with nothing). Each figure is a fresh copy of the
// design (made outside the timing), as a request's parsed body is.
//
// With the build of the code before issue 27 (`--old DIR`, a built git worktree of 3a4db91; by
// default .tmp/old when it has a dist/), also its `designIssues` (synchronous) and the whole
// `parseDesign` of both builds, and the studio's live preview end to end (POST preview.pdf with
// an unsaved design, each request moved by a fraction of a point so that neither the checker's
// cache nor the preview's answers) against a server of each build on the same database, in
// alternating rounds. Without it, the preview of the current build alone.
//
// `node dist/bench/design-check.bench.js [rounds] [--old DIR [--old-label NAME]] [--http ROUNDS] [--no-http]`

// This file is also the bare pool's worker: it answers what a design check answers, with no work.
export default function echo(task: { kind: string }): unknown {
  return task.kind === 'design' ? { kind: 'design', issues: [] } : null;
}

const root = path.resolve(import.meta.dirname, '../..');
const SLUGS = ['course-completion', 'event-attendance', 'diploma-portrait', 'minimal-modern'];

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const f3 = (n: number) => `${n.toFixed(3)} ms`;
const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(3)} ms`;

function option(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
// The name of the other build in the output.
const OLD = option('--old-label') ?? '3a4db91';

type AnyDesign = { name: string; elements: { type: string; text?: string; x: number }[] };

interface Way {
  label: string;
  // Called with a fresh copy of the design (its name unique to the call); `setup` runs untimed
  // before a phase of calls.
  setup?: () => Promise<void>;
  call: (design: AnyDesign) => unknown;
  times: number[];
  active: number[]; // main-thread time (event loop utilization) per call
}

async function main() {
  const rounds = Number(process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 50);
  const perRound = 20;
  const oldDir = path.resolve(option('--old') ?? path.join(root, '.tmp/old'));
  const old = existsSync(path.join(oldDir, 'dist/src/pdf/design-issues.js')) ? oldDir : undefined;

  const { designIssues } = await import('../src/pdf/design-issues.js');
  const { createFileChecker } = await import('../src/pdf/file-checker.js');
  const { parseDesign } = await import('../src/modules/templates/template-design.js');
  type Design = Parameters<typeof designIssues>[0];
  const oldModule = (file: string) => import(pathToFileURL(path.join(old!, 'dist/src', file)).href);
  const oldIssues = old
    ? ((await oldModule('pdf/design-issues.js')) as { designIssues: (d: Design) => unknown[] }).designIssues
    : undefined;
  const oldParse = old
    ? (
        (await oldModule('modules/templates/templates.service.js')) as {
          parseDesign: (input: unknown, check?: (d: Design) => unknown[]) => Design;
        }
      ).parseDesign
    : undefined;

  const checker = createFileChecker();
  // The checker's pool, but with nothing to do: its threads, its limits, its timer per task.
  const bare = new Piscina({
    filename: import.meta.url,
    minThreads: 1,
    maxThreads: 2,
    idleTimeout: 30_000,
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 },
  });
  const viaBare = (task: unknown) => bare.run(task, { signal: AbortSignal.timeout(10_000) });

  const designs = SLUGS.map((slug) => ({
    slug,
    json: readFileSync(path.join(root, 'examples/designs', `${slug}.json`), 'utf8'),
  }));
  console.log(
    `design checks, ${rounds} rounds of ${perRound} calls per way and design (${rounds * perRound} each), ` +
      `Node ${process.version}, load average ${os.loadavg()[0]!.toFixed(2)}` +
      (old ? `; ${OLD}: ${path.relative(root, old) || old}` : '; no build of 3a4db91 (--old)'),
  );

  let serial = 0;
  const fresh = (json: string): AnyDesign => {
    const d = JSON.parse(json) as AnyDesign;
    d.name = `${d.name} #${++serial}`;
    return d;
  };

  for (const { slug, json } of designs) {
    const base = JSON.parse(json) as AnyDesign;
    if ((await designIssues(base as unknown as Design)).length > 0) throw new Error(`${slug} has issues`);
    let primed = ''; // the name of the design in the checker's cache, for 'c'
    const ways: Record<string, Way> = {};
    const way = (key: string, w: Omit<Way, 'times' | 'active'>) =>
      (ways[key] = { ...w, times: [], active: [] });
    way('a', {
      label: 'a. designIssues on the main thread',
      call: (d) => designIssues(d as unknown as Design),
    });
    way('b', {
      label: 'b. checker.design, cache miss',
      call: (d) => checker.design(d as unknown as Design),
    });
    way('c', {
      label: 'c. checker.design, cache hit',
      // One miss first (untimed), then the same JSON again and again.
      setup: async () => {
        const d = fresh(json);
        primed = d.name;
        await checker.design(d as unknown as Design);
      },
      call: (d) => checker.design(d as unknown as Design),
    });
    way('key', { label: 'JSON.stringify(design), the cache key', call: (d) => JSON.stringify(d) });
    way('clone', { label: 'structuredClone(design)', call: (d) => structuredClone(d) });
    way('echo', {
      label: 'bare pool round trip with the design',
      call: (d) => viaBare({ kind: 'design', design: d }),
    });
    way('ping', { label: 'bare pool round trip, empty task', call: () => viaBare({ kind: 'ping' }) });
    if (oldIssues && oldParse) {
      way('old', {
        label: `${OLD} designIssues (main thread)`,
        call: (d) => oldIssues(d as unknown as Design),
      });
      way('parseOld', {
        label: `${OLD} parseDesign with designIssues`,
        call: (d) => oldParse(d, oldIssues),
      });
      way('parseNew', {
        label: 'parseDesign with checker.design (miss)',
        call: (d) => parseDesign(d, (x) => checker.design(x)),
      });
    }
    const keys = Object.keys(ways);

    async function phase(w: Way, count: number, record: boolean) {
      // Fresh copies made before the timing; in 'c' the name is put back to the primed one.
      const inputs = Array.from({ length: count }, () => fresh(json));
      await w.setup?.();
      for (const d of inputs) {
        if (w === ways.c) d.name = primed;
        const elu = performance.eventLoopUtilization();
        const t0 = performance.now();
        await w.call(d);
        const t = performance.now() - t0;
        const active = performance.eventLoopUtilization(elu).active;
        if (record) {
          w.times.push(t);
          w.active.push(active);
        }
      }
    }

    for (const key of keys) await phase(ways[key]!, 50, false); // warm up (fonts and JIT in each thread)
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < keys.length; k++) await phase(ways[keys[(k + r) % keys.length]!]!, perRound, true);
    }

    const p50 = (k: string) => percentile(ways[k]!.times, 50);
    const p95 = (k: string) => percentile(ways[k]!.times, 95);
    console.log(`\n${slug} (${json.length} B of JSON, ${base.elements.length} elements)`);
    for (const key of keys) {
      const w = ways[key]!;
      console.log(
        `  ${w.label.padEnd(44)} p50 ${f3(p50(key)).padStart(9)}  p95 ${f3(p95(key)).padStart(9)}` +
          `  main thread p50 ${f3(percentile(w.active, 50)).padStart(9)}`,
      );
    }
    console.log(
      `  added by the checker: miss b - a  p50 ${signed(p50('b') - p50('a'))}, p95 ${signed(p95('b') - p95('a'))};` +
        ` hit c - a  p50 ${signed(p50('c') - p50('a'))}, p95 ${signed(p95('c') - p95('a'))}`,
    );
    if (ways.parseOld) {
      console.log(
        `  whole parseDesign, now - before: p50 ${signed(p50('parseNew') - p50('parseOld'))},` +
          ` p95 ${signed(p95('parseNew') - p95('parseOld'))}`,
      );
    }
  }
  await checker.close();
  await bare.destroy();

  if (!process.argv.includes('--no-http')) await preview(Number(option('--http') ?? 20), old);
}

// ---- The studio's live preview, end to end, against a server of each build ----

const PASSWORD = 'correct horse battery staple';

class Browser {
  jar = new Map<string, string>();
  constructor(readonly base: string) {}
  remember(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
  }
  cookie = () => [...this.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  async get(url: string): Promise<string> {
    const res = await fetch(this.base + url, { headers: { cookie: this.cookie() }, redirect: 'manual' });
    this.remember(res);
    return res.text();
  }
  async post(url: string, fields: Record<string, string>): Promise<Response> {
    const res = await fetch(this.base + url, {
      method: 'POST',
      headers: { cookie: this.cookie(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
    this.remember(res);
    return res;
  }
}
const token = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)![1]!;

async function preview(rounds: number, old: string | undefined) {
  const { benchDatabase, startServer } = await import('./support.js');
  const perRound = 10;
  const bench = await benchDatabase();
  const s = bench.deps.services;
  const account = await s.accounts.create({
    name: 'Design Check Bench',
    plan: 'Business',
    monthlyLimit: null,
  });
  const email = 'designer@bench.test';
  await s.users.create({ accountId: account.id, email, password: PASSWORD });
  const env = { DATABASE_URL: bench.databaseUrl, DATA_DIR: bench.dataDir };
  const builds = [{ label: 'now', dir: root }, ...(old ? [{ label: OLD, dir: old }] : [])];
  const servers: { label: string; stop(): Promise<void>; browser: Browser; csrf: string }[] = [];
  try {
    for (const b of builds) {
      const server = await startServer(env, { root: b.dir });
      const browser = new Browser(server.base);
      servers.push({ label: b.label, stop: server.stop, browser, csrf: '' });
      await browser.post('/dashboard/sign-in', {
        _csrf: token(await browser.get('/dashboard')),
        email,
        password: PASSWORD,
      });
    }
    // One template per starting design, made through the current server.
    const first = servers[0]!.browser;
    const templates: { slug: string; id: string; design: AnyDesign; moved: { x: number }; x0: number }[] = [];
    for (const slug of SLUGS) {
      const made = await first.post('/dashboard/templates/new', {
        _csrf: token(await first.get('/dashboard/templates/new')),
        design: slug,
      });
      const id = /templates\/([0-9a-f-]{36})\/edit/.exec(made.headers.get('location') ?? '')?.[1];
      if (!id) throw new Error(`no template made from ${slug} (${made.status})`);
      const design = structuredClone(
        (await s.templates.working(account.id, id)).design,
      ) as unknown as AnyDesign;
      const moved =
        design.elements.find((e) => e.text?.includes('{{recipient.name}}')) ??
        design.elements.find((e) => e.type === 'text')!;
      templates.push({ slug, id, design, moved, x0: moved.x });
    }
    for (const server of servers) {
      server.csrf = token(await server.browser.get(`/dashboard/templates/${templates[0]!.id}/edit`));
    }
    const times = new Map<string, number[]>();
    let n = 0;
    async function request(server: (typeof servers)[number], t: (typeof templates)[number], record: boolean) {
      // A new position each time (a thousandth of a point to the left, cycling over 400): neither
      // the checker's cache nor the preview's (32 each) has it.
      n++;
      t.moved.x = t.x0 - ((n % 400) + 1) / 1000;
      const t0 = performance.now();
      const res = await fetch(`${server.browser.base}/dashboard/templates/${t.id}/preview.pdf`, {
        method: 'POST',
        headers: {
          cookie: server.browser.cookie(),
          'content-type': 'application/json',
          'x-csrf-token': server.csrf,
        },
        body: JSON.stringify({
          design: t.design,
          sample: { recipientName: 'مريم الحسيني', data: {} },
        }),
      });
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200 || body.subarray(0, 5).toString() !== '%PDF-')
        throw new Error(
          `${server.label}: preview of ${t.slug} answered ${res.status}: ${body.subarray(0, 300)}`,
        );
      const key = `${t.slug} ${server.label}`;
      if (record) times.set(key, [...(times.get(key) ?? []), performance.now() - t0]);
    }
    for (const server of servers)
      for (const t of templates) for (let i = 0; i < 20; i++) await request(server, t, false);
    for (let r = 0; r < rounds; r++) {
      for (const t of templates) {
        for (let k = 0; k < servers.length; k++) {
          const server = servers[(k + r) % servers.length]!;
          for (let i = 0; i < perRound; i++) await request(server, t, true);
        }
      }
    }
    console.log(
      `\nstudio live preview end to end (POST preview.pdf, unsaved design, sequential), ` +
        `${rounds} rounds of ${perRound} requests per build and design (${rounds * perRound} each):`,
    );
    for (const t of templates) {
      const line = servers.map((server) => {
        const ts = times.get(`${t.slug} ${server.label}`)!;
        return `${server.label} p50 ${f3(percentile(ts, 50))} p95 ${f3(percentile(ts, 95))}`;
      });
      console.log(`  ${t.slug.padEnd(18)} ${line.join('   ')}`);
      if (servers.length === 2) {
        const [a, b] = servers.map((server) => times.get(`${t.slug} ${server.label}`)!);
        // Paired by round: each round's median of one build minus the other's, the same minutes.
        const median = (ts: number[], r: number) =>
          percentile(ts.slice(r * perRound, (r + 1) * perRound), 50);
        const paired = Array.from({ length: rounds }, (_, r) => median(a!, r) - median(b!, r));
        console.log(
          `  ${''.padEnd(18)} now - before: p50 ${signed(percentile(a!, 50) - percentile(b!, 50))};` +
            ` per round (median of ${perRound}) ${signed(percentile(paired, 50))},` +
            ` quartiles ${signed(percentile(paired, 25))} to ${signed(percentile(paired, 75))}`,
        );
      }
    }
  } finally {
    for (const server of servers) await server.stop();
    await bench.close();
  }
}

if (isMainThread) await main();
