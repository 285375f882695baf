// `npm run test:cluster`: the deployment of docs/deploy.md on this machine (Debian's postgresql,
// redis-server and nginx on loopback, three API instances, two workers). Expects a built dist/.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { debianPackagesMissing } from '../dist/test/cluster/backing-services.js';

const root = path.resolve(import.meta.dirname, '..');
const missing = debianPackagesMissing();
if (missing.length > 0) {
  console.error(`test:cluster needs Debian's ${missing.join(', ')}: apt-get install ${missing.join(' ')}`);
  process.exit(1);
}
const dir = path.join(root, 'dist/test/cluster');
const files = readdirSync(dir)
  .filter(
    (f) =>
      f.endsWith('.cluster.js') && existsSync(path.join(root, 'test/cluster', f.replace(/\.js$/, '.ts'))),
  )
  .map((f) => path.join(dir, f));
const result = spawnSync(
  process.execPath,
  ['--enable-source-maps', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files],
  { stdio: 'inherit', cwd: root },
);
process.exit(result.status ?? 1);
