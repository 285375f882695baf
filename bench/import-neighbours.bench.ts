import { SYSTEM } from '../src/platform/principal.js';
import { performance } from 'node:perf_hooks';
import { readDesignFile } from '../src/cli/design-file.js';
import { DEMO_DESIGN } from '../src/cli/demo.js';
import { MAX_IMPORT_ROWS } from '../src/modules/imports/imports.service.js';
import { parseRecipientsCsv } from '../src/modules/imports/recipients-csv.js';
import type { Design } from '../src/pdf/design.schema.js';
import { benchDatabase, percentile, startServer } from './support.js';

// Is the API still responsive for other accounts while an import runs (issue 20)? One server,
// `certsvc serve` with its workers as `npm start` runs it, imports a CSV for one account while
// another account issues single certificates and a member of the public verifies them, one request
// after the other. The same requests are timed first with the server idle.
// Usage: node dist/bench/import-neighbours.bench.js [rows] (default 20,000)

const rows = Number(process.argv[2] ?? 20_000);
const IDLE_REQUESTS = 200;
const MAX_SECONDS = 300;

const db = await benchDatabase();
const s = db.deps.services;
const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
const importer = await s.accounts.create({ name: 'Big MOOC', plan: 'Business', monthlyLimit: 1_000_000 });
const importTemplate = await s.templates.create(SYSTEM, importer.id, design);
const neighbour = await s.accounts.create({
  name: 'Small Academy',
  plan: 'Business',
  monthlyLimit: 1_000_000,
});
const neighbourTemplate = await s.templates.create(SYSTEM, neighbour.id, design);
const key = await s.keys.create(neighbour.id);
const server = await startServer({ DATABASE_URL: db.databaseUrl, DATA_DIR: db.dataDir }, { worker: true });
const headers = { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' };

let n = 0;
async function timed(url: string, init?: RequestInit): Promise<{ ms: number; body: unknown }> {
  const t0 = performance.now();
  const res = await fetch(url, init);
  const body = await res.json();
  const ms = performance.now() - t0;
  if (res.status >= 300) throw new Error(`${url} answered ${res.status}`);
  return { ms, body };
}
// One single issue of the neighbour, then a public verification of what it made.
async function neighbourRound(): Promise<{ issue: number; verify: number }> {
  n += 1;
  const issued = await timed(`${server.base}/api/v1/certificates`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      templateId: neighbourTemplate.id,
      recipient: { name: `Zoë Ångström ${n}`, email: `n${n}@example.com`, data: { course: 'Safe Lifting' } },
    }),
  });
  const code = (issued.body as { data: { uniqueCode: string } }).data.uniqueCode;
  const verified = await timed(`${server.base}/api/v1/verify/${code}`);
  return { issue: issued.ms, verify: verified.ms };
}

const f = (x: number) => x.toFixed(1);
const line = (label: string, xs: number[]) =>
  `${label.padEnd(44)} p50 ${f(percentile(xs, 50))} ms  p95 ${f(percentile(xs, 95))} ms  p99 ${f(percentile(xs, 99))} ms  max ${f(Math.max(...xs))} ms  (${xs.length})`;

try {
  for (let i = 0; i < 20; i++) await neighbourRound(); // warm-up
  const idle = { issue: [] as number[], verify: [] as number[] };
  for (let i = 0; i < IDLE_REQUESTS; i++) {
    const r = await neighbourRound();
    idle.issue.push(r.issue);
    idle.verify.push(r.verify);
  }

  const csv = Buffer.from(
    `name,email,course\n${Array.from({ length: rows }, (_, i) => `Learner ${i},l${i}@example.com,Safe Lifting`).join('\n')}\n`,
  );
  const imp = await s.imports.create(SYSTEM, {
    accountId: importer.id,
    templateId: importTemplate.id,
    fileName: 'neighbours.csv',
    createdBy: 'bench',
    rows: parseRecipientsCsv(csv, importTemplate.fields, MAX_IMPORT_ROWS),
  });
  const started = performance.now();
  const busy = { issue: [] as number[], verify: [] as number[] };
  let view = await s.imports.get(importer.id, imp.id);
  let lastCheck = 0;
  // Timed only while the server's worker is on the import (it polls for work every second).
  while (view.state !== 'done' && view.state !== 'failed') {
    if (performance.now() - started > MAX_SECONDS * 1000) throw new Error('import did not finish in time');
    const r = await neighbourRound();
    if (view.state === 'running') {
      busy.issue.push(r.issue);
      busy.verify.push(r.verify);
    }
    if (performance.now() - lastCheck > 500) {
      lastCheck = performance.now();
      view = await s.imports.get(importer.id, imp.id);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `import of ${rows.toLocaleString('en-US')} rows by the server's worker: ${view.state}, ${view.created.toLocaleString('en-US')} created, ${seconds.toFixed(1)} s`,
  );
  console.log('another account, one request after the other, server idle:');
  console.log(line('  POST /api/v1/certificates (single)', idle.issue));
  console.log(line('  GET /api/v1/verify/{code}', idle.verify));
  console.log('the same during the import:');
  console.log(line('  POST /api/v1/certificates (single)', busy.issue));
  console.log(line('  GET /api/v1/verify/{code}', busy.verify));
} finally {
  await server.stop();
  await db.close();
}
