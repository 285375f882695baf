import { spawnSync } from 'node:child_process';
import path from 'node:path';

// npm run bench: each benchmark in its own process, one after the other. The list bench makes an
// account of 100,000 certificates here; `npm run bench -- --big` makes it 1,000,000 (about 3 more
// minutes and 1.5 GB of disk).
const big = process.argv.includes('--big');
const benches: [string, ...string[]][] = [
  ['pdf.bench.js'],
  ['pdf-cpu.bench.js'],
  ['typst.bench.js'],
  ['credential.bench.js'],
  ['claim.bench.js'],
  ['signed-cpu.bench.js'],
  ['batch-cpu.bench.js'],
  ['issue.bench.js'],
  ['import.bench.js'],
  ['import-neighbours.bench.js'],
  ['import-rounds.bench.js'],
  ['email.bench.js'],
  ['studio.bench.js'],
  ['design-check.bench.js'],
  ['verify.bench.js', '5'],
  ['verify-flood.bench.js', '15'],
  ['reads.bench.js', '5'],
  ['list.bench.js', '--big', big ? '1000000' : '100000'],
];
let failed = 0;
for (const [file, ...args] of benches) {
  console.log(`\n== ${file.replace('.js', '')} ${args.join(' ')}`);
  const r = spawnSync(process.execPath, [path.join(import.meta.dirname, file), ...args], {
    stdio: 'inherit',
  });
  if (r.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
