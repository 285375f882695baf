import { spawnSync } from 'node:child_process';
import path from 'node:path';

// npm run bench: each benchmark in its own process, one after the other.
const benches = ['pdf.bench.js', 'issue.bench.js', 'email.bench.js'];
let failed = 0;
for (const file of benches) {
  console.log(`\n== ${file.replace('.js', '')}`);
  const r = spawnSync(process.execPath, [path.join(import.meta.dirname, file)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
