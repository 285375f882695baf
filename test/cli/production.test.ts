import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { freePort } from '../../src/platform/net.js';
import { portOpen, waitFor } from '../cluster/backing-services.js';
import { createFreshDatabase, type FreshDatabase } from '../emails/support.js';
import { cliEnv, REPO_ROOT, runCli } from './run-cli.js';

// A production install: build once, ship dist/ (docs/deploy.md, Install); the first start on a
// real database; the PUBLIC_BASE_URL guard; `npm start` and signals.

let fresh: FreshDatabase;
before(async () => {
  fresh = await createFreshDatabase();
});
after(async () => {
  await fresh.drop();
});

async function accountCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts')).rows[0]!.n;
  } finally {
    await client.end();
  }
}

// dist/, bin/ and package.json, with node_modules beside them: no src/, no examples/, no compiler
// when `withCompiler` is false (each package linked, except typescript).
function shippedCopy(opts: { withDist: boolean; withCompiler: boolean }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-shipped-'));
  for (const entry of ['bin', 'package.json', 'scripts', ...(opts.withDist ? ['dist'] : [])]) {
    cpSync(path.join(REPO_ROOT, entry), path.join(dir, entry), { recursive: true });
  }
  rmSync(path.join(dir, 'dist/test'), { recursive: true, force: true });
  rmSync(path.join(dir, 'dist/bench'), { recursive: true, force: true });
  if (opts.withCompiler) {
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  } else {
    mkdirSync(path.join(dir, 'node_modules'));
    for (const name of readdirSync(path.join(REPO_ROOT, 'node_modules'))) {
      if (name === 'typescript' || name === '.bin') continue;
      symlinkSync(path.join(REPO_ROOT, 'node_modules', name), path.join(dir, 'node_modules', name));
    }
  }
  return dir;
}

function run(cwd: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; out: string }>((resolve) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.once('exit', (code) => resolve({ code, out }));
  });
}

describe('a shipped dist/', () => {
  it('migrates, creates from the shipped sample designs and serves, with no src/ and no examples/', async () => {
    const dir = shippedCopy({ withDist: true, withCompiler: false });
    try {
      assert.ok(!existsSync(path.join(dir, 'src')) && !existsSync(path.join(dir, 'examples')));
      assert.ok(existsSync(path.join(dir, 'dist/src/platform/db/migrations/001_init.sql')));
      const env = cliEnv({ DATABASE_URL: fresh.url, PUBLIC_BASE_URL: 'https://certs.example.org' });
      const bin = path.join(dir, 'bin/certsvc.js');
      const migrated = await run(dir, [bin, 'migrate', '--json'], env);
      assert.equal(migrated.code, 0, migrated.out);
      const demo = await run(dir, [bin, 'demo', '--json'], env);
      assert.equal(demo.code, 0, demo.out);
      const account = (JSON.parse(demo.out) as { account: { id: string } }).account.id;
      const template = await run(
        dir,
        [
          bin,
          'template',
          'create',
          account,
          '--file',
          'dist/examples/designs/event-attendance.json',
          '--json',
        ],
        env,
      );
      assert.equal(template.code, 0, template.out);
      // The npm step of a production install on a machine with this dist/: no compiler, no failure.
      const prepare = await run(dir, ['scripts/prepare.js'], env);
      assert.equal(prepare.code, 0, prepare.out);
      assert.match(prepare.out, /using the dist\/ built before/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without dist/ and without the compiler, the install says how to build instead of failing obscurely', async () => {
    const dir = shippedCopy({ withDist: false, withCompiler: false });
    try {
      const prepare = await run(dir, ['scripts/prepare.js'], cliEnv({}));
      assert.equal(prepare.code, 1);
      assert.match(prepare.out, /npm ci && npm run build && npm prune --omit=dev/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('first start on a real database', () => {
  it('creates no demo account with DATABASE_URL and says how to create the first one', async () => {
    const db = await createFreshDatabase();
    try {
      const port = await freePort();
      const child = spawn(
        process.execPath,
        [path.join(REPO_ROOT, 'bin/certsvc.js'), 'serve', '--no-worker'],
        {
          cwd: REPO_ROOT,
          env: cliEnv({
            DATABASE_URL: db.url,
            PORT: String(port),
            PUBLIC_BASE_URL: 'https://certs.example.org',
          }),
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
      const exited = new Promise((r) => child.once('exit', r));
      await waitFor('serve to listen', async () => out.includes('listening on'), 60_000);
      child.kill('SIGTERM');
      await exited;
      assert.match(out, /no account yet/);
      assert.match(out, /certsvc account create/);
      assert.doesNotMatch(out, /API key|svc_live_/);
      assert.match(out, /Verification links and QR codes in new certificates: https:\/\/certs\.example\.org/);
      assert.equal(await accountCount(db.url), 0);
    } finally {
      await db.drop();
    }
  });
});

describe('PUBLIC_BASE_URL', () => {
  it('serve on a reachable HOST without it refuses to start, before creating anything', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-nobase-'));
    try {
      const res = await runCli(
        ['serve'],
        cliEnv({ HOST: '0.0.0.0', DATA_DIR: dataDir, DATABASE_URL: undefined }),
      );
      assert.equal(res.code, 1);
      assert.match(res.stderr, /PUBLIC_BASE_URL is not set/);
      assert.match(res.stderr, /http:\/\/localhost:3000/);
      assert.deepEqual(readdirSync(dataDir), [], 'no embedded database was created');
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('loopback hosts may use the default, and the CLI commands other than serve are not affected', async () => {
    const res = await runCli(
      ['account', 'list', '--json'],
      cliEnv({ HOST: '0.0.0.0', DATABASE_URL: fresh.url }),
    );
    assert.equal(res.code, 0, res.stderr);
  });
});

describe('npm start', () => {
  it('passes SIGTERM to the server: nothing is left running and the port is free', async () => {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-npmstart-'));
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: REPO_ROOT,
      env: cliEnv({
        DATABASE_URL: fresh.url,
        PORT: String(port),
        DATA_DIR: dataDir,
        PUBLIC_BASE_URL: 'http://certs.test',
        LOG_LEVEL: 'info',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    npm.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise((r) => npm.once('exit', r));
    try {
      await waitFor('the server to listen', () => portOpen(port), 60_000);
      npm.kill('SIGTERM');
      await exited;
      // An orphaned server would keep listening.
      await waitFor('the port to be free', async () => !(await portOpen(port)), 30_000);
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
    assert.match(out, /"msg":"shutting down"/, 'the server itself got the signal');
  });
});
