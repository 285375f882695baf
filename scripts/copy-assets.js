// Part of `npm run build`: copies what the compiled code reads at run time into dist/, so that a
// shipped dist/ (with production node_modules) needs neither src/ nor examples/: the database
// migrations and the sample designs (docs/deploy.md, Install).
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const copies = [
  ['src/platform/db/migrations', 'dist/src/platform/db/migrations', '.sql'],
  ['examples/designs', 'dist/examples/designs', '.json'],
];
// Each target is emptied first: a migration renamed or removed in src/ must not linger in dist/ (the
// migrator would apply it).
for (const [from, to, ext] of copies) {
  rmSync(path.join(root, to), { recursive: true, force: true });
  mkdirSync(path.join(root, to), { recursive: true });
  for (const name of readdirSync(path.join(root, from)).filter((n) => n.endsWith(ext))) {
    cpSync(path.join(root, from, name), path.join(root, to, name));
  }
}
