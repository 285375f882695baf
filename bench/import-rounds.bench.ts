import { SYSTEM } from '../src/platform/principal.js';
import v8 from 'node:v8';
import vm from 'node:vm';
import { readDesignFile } from '../src/cli/design-file.js';
import { DEMO_DESIGN } from '../src/cli/demo.js';
import { MAX_IMPORT_ROWS } from '../src/modules/imports/imports.service.js';
import { parseRecipientsCsv } from '../src/modules/imports/recipients-csv.js';
import type { Design } from '../src/pdf/design.schema.js';
import { benchDatabase } from './support.js';

// Does memory stay flat over imports (issue 20)? One process plays the server and imports `rounds`
// CSVs of `rows` rows one after the other; after each, a full collection, then its RSS, JS heap and
// external memory. Memory that imports kept would show as growth from one round to the next.
// Usage: node dist/bench/import-rounds.bench.js [rows] [rounds] (default 40,000 x 3)

v8.setFlagsFromString('--expose-gc');
const fullCollection = vm.runInNewContext('gc') as () => void;
const rows = Number(process.argv[2] ?? 40_000);
const rounds = Number(process.argv[3] ?? 3);
const db = await benchDatabase();
const s = db.deps.services;
const account = await s.accounts.create({
  name: 'Bench Academy',
  plan: 'Business',
  monthlyLimit: 10_000_000,
});
const template = await s.templates.create(
  SYSTEM,
  account.id,
  (await readDesignFile(DEMO_DESIGN.pathname)) as Design,
);
const mib = (n: number) => `${Math.round(n / 1024 / 1024)} MiB`;
const worker = s.startImportWorker();
let failed = false;
try {
  for (let round = 1; round <= rounds; round++) {
    const csv = Buffer.from(
      `name,email,course\n${Array.from({ length: rows }, (_, i) => `Learner ${round}-${i},l${round}-${i}@example.com,Safe Lifting`).join('\n')}\n`,
    );
    const imp = await s.imports.create(SYSTEM, {
      accountId: account.id,
      templateId: template.id,
      fileName: `round-${round}.csv`,
      createdBy: 'bench',
      rows: parseRecipientsCsv(csv, template.fields, MAX_IMPORT_ROWS),
    });
    worker.wake();
    let view = await s.imports.get(account.id, imp.id);
    while (view.state !== 'done' && view.state !== 'failed') {
      await new Promise((r) => setTimeout(r, 500));
      view = await s.imports.get(account.id, imp.id);
    }
    failed ||= view.state !== 'done' || view.failed > 0;
    fullCollection();
    const m = process.memoryUsage();
    console.log(
      `after import ${round} (${(round * rows).toLocaleString('en-US')} rows in all): ${view.state}, ` +
        `RSS ${mib(m.rss)}, JS heap ${mib(m.heapUsed)}, external ${mib(m.external)}`,
    );
  }
} finally {
  await worker.stop();
  await db.close();
}
process.exit(failed ? 1 : 0);
