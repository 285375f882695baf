// npm's `prepare` step (run by `npm ci` and `npm install`): builds dist/ when the dev packages are
// there. A production install (`npm ci --omit=dev`) has no TypeScript compiler: it keeps the dist/
// built beforehand (docs/deploy.md, Install) instead of failing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  const built = ['dist/src/cli/main.js', 'dist/browser/manifest.json'];
  if (built.every((file) => existsSync(path.join(root, file)))) {
    console.log('certsvc: no dev packages (--omit=dev): using the dist/ built before');
    process.exit(0);
  }
  console.error(
    'certsvc: dist/ is missing and the dev packages are not installed: build first with\n' +
      '  npm ci && npm run build && npm prune --omit=dev',
  );
  process.exit(1);
}
const steps = [
  [tsc, '-p', 'tsconfig.json'],
  [path.join(root, 'scripts/copy-assets.js')],
  [path.join(root, 'scripts/build-browser.js')],
];
for (const args of steps) {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
