import { performance } from 'node:perf_hooks';
import { readDesignFile } from '../src/cli/design-file.js';
import { DEMO_DESIGN } from '../src/cli/demo.js';
import { MAX_IMPORT_ROWS } from '../src/modules/imports/imports.service.js';
import { parseRecipientsCsv } from '../src/modules/imports/recipients-csv.js';
import type { Design } from '../src/pdf/design.schema.js';
import { worldNames } from '../test/helpers/world-names.js';
import { SYSTEM } from '../src/platform/principal.js';
import { benchDatabase } from './support.js';

// Large imports (issue 20, goal: 50,000 rows with PDFs and credentials in at most 2 minutes on this
// 2-core machine, memory flat). One process plays the server: it reads and stores the CSV as the
// dashboard's upload does, then its import worker issues the chunks (signed credentials and signed
// PDFs) while the process's resident memory is sampled every 100 ms.
// Usage: node dist/bench/import.bench.js [rows]

const rows = Number(process.argv[2] ?? MAX_IMPORT_ROWS);
const db = await benchDatabase();
const s = db.deps.services;
const account = await s.accounts.create({ name: 'Bench Academy', plan: 'Business', monthlyLimit: 1_000_000 });
const template = await s.templates.create(
  SYSTEM,
  account.id,
  (await readDesignFile(DEMO_DESIGN.pathname)) as Design,
);
const names = worldNames.map((w) => w.name);
const csv = Buffer.from(
  `name,email,course,hours\n${Array.from(
    { length: rows },
    (_, i) => `"${names[i % names.length]} ${i}",learner${i}@example.com,Safe Lifting,12`,
  ).join('\n')}\n`,
);

s.warmUp();
await s.issue.issueBatch(await s.accounts.actingPrincipal(account.id, 'bench', SYSTEM), template.id, [
  { name: 'Warm Up', email: 'w@example.com', data: { course: 'Warm-up' } },
]);

const mib = (n: number) => `${Math.round(n / 1024 / 1024)} MiB`;
const uploadStart = performance.now();
const parsed = parseRecipientsCsv(csv, template.fields, MAX_IMPORT_ROWS);
const imp = await s.imports.create(SYSTEM, {
  accountId: account.id,
  templateId: template.id,
  fileName: 'bench.csv',
  createdBy: 'bench',
  rows: parsed,
});
const uploadMs = performance.now() - uploadStart;
console.log(
  `CSV of ${rows.toLocaleString('en-US')} rows (${mib(csv.length)}) read and stored in ${Math.round(uploadMs)} ms`,
);

global.gc?.();
const rssAtStart = process.memoryUsage().rss;
let peak = rssAtStart;
const samples: number[] = [];
const sampler = setInterval(() => {
  const rss = process.memoryUsage().rss;
  peak = Math.max(peak, rss);
  samples.push(rss);
}, 100);
const started = performance.now();
const worker = s.startImportWorker();
let view = await s.imports.get(account.id, imp.id);
let lastPrint = 0;
while (view.state !== 'done' && view.state !== 'failed') {
  await new Promise((r) => setTimeout(r, 250));
  view = await s.imports.get(account.id, imp.id);
  if (performance.now() - lastPrint > 10_000) {
    lastPrint = performance.now();
    const m = process.memoryUsage();
    console.log(
      `  ${view.done.toLocaleString('en-US')} rows, ${Math.round(view.rowsPerSecond ?? 0)} rows/s, RSS ${mib(m.rss)} ` +
        `(JS heap ${mib(m.heapUsed)} of ${mib(m.heapTotal)}, external ${mib(m.external)}, of which array buffers ${mib(m.arrayBuffers)})`,
    );
  }
}
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
await worker.stop();
const late = samples.slice(Math.floor(samples.length / 2));
console.log(
  `import of ${rows.toLocaleString('en-US')} rows: ${view.state}, ${view.created.toLocaleString('en-US')} created, ${view.failed} failed, ` +
    `${seconds.toFixed(1)} s (${Math.round(rows / seconds)} rows/s; goal for 50,000: at most 120 s)`,
);
console.log(
  `memory: RSS ${mib(rssAtStart)} at the start, peak ${mib(peak)}, ` +
    `median of the second half ${mib(late.sort((a, b) => a - b)[Math.floor(late.length / 2)] ?? 0)}`,
);
await db.close();
process.exit(view.state === 'done' && view.failed === 0 ? 0 : 1);
