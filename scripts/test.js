// Runs the whole suite on real parts: an embedded PostgreSQL (a fresh database per run) and, when
// Debian's redis-server is installed, a Redis on a free loopback port. Expects a built dist/.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../dist/src/platform/db/embedded.js';
import { freePort } from '../dist/src/platform/net.js';
import { sweepSignedPdfs } from './pdf-sweep.js';

const root = path.resolve(import.meta.dirname, '..');
const only = process.argv.slice(2);

function findTests(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return findTests(full);
    return name.endsWith('.test.js') ? [full] : [];
  });
}

async function startRedis() {
  const bin = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((b) => existsSync(b));
  if (!bin) {
    console.log('# redis-server not installed: Redis tests will be skipped');
    return undefined;
  }
  const port = await freePort();
  const child = spawn(
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  for (let i = 0; i < 50; i++) {
    const ok = await new Promise((r) => {
      const s = net.connect(port, '127.0.0.1', () => (s.destroy(), r(true))).on('error', () => r(false));
    });
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

// Only compiled tests whose TypeScript source still exists (dist/ may hold deleted tests).
const hasSource = (f) =>
  existsSync(path.join(root, path.relative(path.join(root, 'dist'), f)).replace(/\.js$/, '.ts'));
const files = findTests(path.join(root, 'dist/test'))
  .filter(hasSource)
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
const pgServer = await startEmbeddedPostgres(path.join(root, '.tmp/test-data'));
const admin = new pg.Client({ connectionString: pgServer.url });
await admin.connect();
// A database of its own per run, so that runs side by side never share tables.
const dbName = `certsvc_test_${process.pid}_${Date.now()}`;
await admin.query(`CREATE DATABASE ${dbName}`);
const redis = await startRedis();

const env = {
  ...process.env,
  TEST_DATABASE_URL: pgServer.url.replace(/\/certsvc$/, `/${dbName}`),
  ...(redis ? { REDIS_TEST_URL: redis.url } : {}),
};
const result = spawnSync(
  process.execPath,
  ['--enable-source-maps', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { stdio: 'inherit', env, cwd: root },
);
redis?.stop();
let status = result.status ?? 1;
if (process.env.PDF_SWEEP === 'off') {
  console.log('# PDF_SWEEP=off: the sweep of the signed PDFs with pdfsig was skipped');
} else if (existsSync('/usr/bin/pdfsig')) {
  const started = Date.now();
  const { checked, signed, failures } = await sweepSignedPdfs(env.TEST_DATABASE_URL);
  console.log(
    `# pdfsig: ${checked} of the ${signed} signed PDFs frozen by the suite checked in ${Math.round((Date.now() - started) / 1000)} s, ${failures.length} not valid`,
  );
  for (const f of failures.slice(0, 20)) console.log(`#   ${f}`);
  if (failures.length > 0) status = 1;
} else {
  console.log('# pdfsig not installed (poppler-utils): the signed PDFs of the suite were not checked');
}
await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
await admin.end();
await pgServer.release();
process.exit(status);
