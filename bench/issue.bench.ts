import { SYSTEM } from '../src/platform/principal.js';
import { BENCH_SIGNING_KEYS_SECRET } from './support.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/config.js';
import { createDeps, createLogger } from '../src/deps.js';
import { readDesignFile } from '../src/cli/design-file.js';
import { DEMO_DESIGN } from '../src/cli/demo.js';
import { startEmbeddedPostgres } from '../src/platform/db/embedded.js';
import { createPdfRenderer, type RenderValues } from '../src/pdf/pdf-renderer.js';
import type { Design } from '../src/pdf/design.schema.js';
import { designToHtml, startFontServer } from './chromium-html.js';
import { launchBrowser } from '../test/helpers/browser.js';
import { worldNames } from '../test/helpers/world-names.js';
import { freePort } from '../src/platform/net.js';

// Issuing over HTTP against the real server (a child process on the embedded PostgreSQL):
// single-issue latency, 500-recipient batches, the server's peak memory, and the same design
// rendered by headless Chromium for comparison. Run: npm run bench (or node dist/bench/issue.bench.js).

const root = path.resolve(import.meta.dirname, '../..');
const SINGLE = 200;
const BATCHES = 5;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function memoryKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-bench-'));
const pg = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres(dataDir);
const databaseUrl = process.env.DATABASE_URL ?? pg!.socketUrl ?? pg!.url;
const port = await freePort();
const env = {
  ...process.env,
  DATABASE_URL: databaseUrl,
  SIGNING_KEYS_SECRET: BENCH_SIGNING_KEYS_SECRET,
  PORT: String(port),
  LOG_LEVEL: 'warn',
  RATE_LIMIT_MAX: '1000000',
  DATA_DIR: dataDir,
};
const config = loadConfig(env);
const deps = await createDeps(config, { logger: createLogger({ ...config, logLevel: 'warn' }) });
const account = await deps.services.accounts.create({
  name: 'Bench Academy',
  plan: 'Business',
  monthlyLimit: 1_000_000,
});
const key = await deps.services.keys.create(account.id);
const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
const template = await deps.services.templates.create(SYSTEM, account.id, design);

const server = spawn(process.execPath, [path.join(root, 'bin/certsvc.js'), 'serve', '--no-worker'], {
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise<void>((resolve, reject) => {
  server.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve());
  server.once('exit', (code) => reject(new Error(`server exited ${code}`)));
});
const base = `http://127.0.0.1:${port}`;
const headers = { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' };
const recipient = (i: number) => ({
  name: `Zoë Ångström ${i}`,
  email: `r${i}@example.com`,
  data: { course: 'Safe Lifting', hours: 12 },
});
async function issue(body: unknown): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${base}/api/v1/certificates`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  if (res.status !== 201) throw new Error(`issue answered ${res.status}`);
  return performance.now() - t0;
}

// A batch whose names cycle through every covered writing system (test/helpers/world-names.ts).
const mixedRecipient = (i: number) => ({
  name: worldNames[i % worldNames.length]!.name,
  email: `m${i}@example.com`,
  data: { course: 'Safe Lifting', hours: 12 },
});

async function batchRuns(make: (i: number) => unknown): Promise<number[]> {
  const runs: number[] = [];
  for (let b = 0; b < BATCHES; b++) {
    runs.push(
      await issue({ templateId: template.id, recipients: Array.from({ length: 500 }, (_, i) => make(i)) }),
    );
  }
  return runs;
}

// Rendering alone, per document: our renderer vs headless Chromium page.pdf() on the same design,
// names and fonts (Chromium at its best: one page loaded once, only the content swapped).
async function perDocument(names: (i: number) => string) {
  const values: RenderValues[] = Array.from({ length: 100 }, (_, i) => ({
    recipientName: names(i),
    issuedAt: new Date().toISOString(),
    uniqueCode: 'ABCDEFGHJKMNPQRS',
    verificationUrl: `${base}/verify/ABCDEFGHJKMNPQRS`,
    data: { course: 'Safe Lifting', hours: 12 },
  }));
  const renderer = createPdfRenderer();
  await renderer.render({ id: 'b', version: '1', design }, values.slice(0, 20));
  let t0 = performance.now();
  const outcomes = await renderer.render({ id: 'b', version: '1', design }, values);
  const ours = (performance.now() - t0) / values.length;
  await renderer.close();

  const fonts = await startFontServer(design);
  const browser = await launchBrowser();
  const page = await browser.newPage();
  const html = await Promise.all(values.slice(0, 30).map((v) => designToHtml(design, v)));
  const fill = (h: string) =>
    page.evaluate((inner) => (document.querySelector('.page')!.innerHTML = inner), h);
  await page.goto(fonts.url);
  for (const h of html.slice(0, worldNames.length)) {
    await fill(h); // every font loaded once before timing
    await page.evaluate(() => document.fonts.ready);
    await page.pdf({ preferCSSPageSize: true, printBackground: true });
  }
  t0 = performance.now();
  for (const h of html) {
    await fill(h);
    await page.pdf({ preferCSSPageSize: true, printBackground: true });
  }
  const chromium = (performance.now() - t0) / html.length;
  await browser.close();
  await fonts.close();
  return { ours, chromium, outcomes, values };
}

try {
  const rssIdle = memoryKb(server.pid!, 'VmRSS');
  for (let i = 0; i < 20; i++) await issue({ templateId: template.id, recipient: recipient(i) }); // warm-up
  const single: number[] = [];
  for (let i = 0; i < SINGLE; i++)
    single.push(await issue({ templateId: template.id, recipient: recipient(i) }));
  const batches = await batchRuns(recipient);
  const peakLatin = memoryKb(server.pid!, 'VmHWM');

  for (let i = 0; i < worldNames.length; i++) {
    await issue({ templateId: template.id, recipient: mixedRecipient(i) }); // warm-up: fonts loaded
  }
  const mixedBatches = await batchRuns(mixedRecipient);
  const peakMixed = memoryKb(server.pid!, 'VmHWM');

  const latin = await perDocument((i) => `Zoë Ångström ${i}`);
  const mixed = await perDocument((i) => worldNames[i % worldNames.length]!.name);
  const cjk = mixed.outcomes.filter(
    (o, i) =>
      o.ok && /\p{Script=Han}|\p{Script=Hangul}|\p{Script=Hiragana}/u.test(mixed.values[i]!.recipientName),
  );
  const cjkSize = cjk.reduce((sum, o) => sum + (o.ok ? o.pdf.length : 0), 0) / cjk.length;
  const latinSize =
    latin.outcomes.reduce((sum, o) => sum + (o.ok ? o.pdf.length : 0), 0) / latin.outcomes.length;

  const f = (n: number) => n.toFixed(1);
  const mib = (kb: number) => (kb / 1024).toFixed(0);
  console.log(
    `single issue over HTTP (${SINGLE} sequential, Latin): p50 ${f(percentile(single, 50))} ms, p95 ${f(percentile(single, 95))} ms`,
  );
  console.log(
    `batch of 500 over HTTP, Latin names (${BATCHES} runs): ${batches.map(f).join(', ')} ms; median ${f(percentile(batches, 50))} ms`,
  );
  console.log(
    `batch of 500 over HTTP, names in ${worldNames.length} scripts (${BATCHES} runs): ${mixedBatches.map(f).join(', ')} ms; median ${f(percentile(mixedBatches, 50))} ms`,
  );
  console.log(
    `server memory: idle RSS ${mib(rssIdle)} MiB, peak RSS (VmHWM) ${mib(peakLatin)} MiB after the Latin runs, ${mib(peakMixed)} MiB after the mixed batches`,
  );
  for (const [label, r] of [
    ['Latin names', latin],
    ['names in every script', mixed],
  ] as const) {
    console.log(
      `rendering per document, ${label}: certsvc ${f(r.ours)} ms (worker pool, 100 docs), Chromium page.pdf() ${f(r.chromium)} ms (one warm page, same fonts loaded once, 30 docs): ${(r.chromium / r.ours).toFixed(1)}x faster`,
    );
  }
  console.log(
    `mean PDF size: Latin name ${Math.round(latinSize)} bytes, CJK name ${Math.round(cjkSize)} bytes`,
  );
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  await deps.close();
  await pg?.release();
  rmSync(dataDir, { recursive: true, force: true });
}
