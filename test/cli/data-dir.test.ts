import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readdir, realpath, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { testDatabaseUrl } from '../helpers/app.js';
import { cliEnv, runCli } from './run-cli.js';

// Issue 33: on the embedded default (no DATABASE_URL) every command that opens the database says
// which data folder it uses, and only serve and migrate make a new database where there is none:
// the others refuse, create nothing, and need --create.

let cwd: string;
const embedded = (extra: Record<string, string | undefined> = {}) =>
  cliEnv({ DATABASE_URL: undefined, DATA_DIR: undefined, ...extra });

// The postgres left running by a failed step, if any (the CLI stops it itself when it exits).
function stopPostgres(dataDir: string) {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (pid) process.kill(pid, 'SIGINT');
  } catch {
    // no postmaster.pid: nothing runs
  }
}

before(async () => {
  // realpath: the CLI resolves DATA_DIR from its own working folder (/tmp may be a symlink).
  cwd = await realpath(await mkdtemp(path.join(os.tmpdir(), 'certsvc-datadir-')));
  // As root, PostgreSQL runs as `postgres`, which must reach the data folders inside this one.
  await chmod(cwd, 0o711);
});

after(async () => {
  stopPostgres(path.join(cwd, 'data'));
  stopPostgres(path.join(cwd, 'elsewhere'));
  stopPostgres(path.join(cwd, 'migrated'));
  await rm(cwd, { recursive: true, force: true });
});

describe('certsvc on the embedded database: which data folder', { timeout: 180_000 }, () => {
  it('without DATA_DIR and no database in ./data: refuses with exit 2 and creates nothing', async () => {
    for (const args of [['account', 'list'], ['account', 'list', '--json'], ['demo'], ['worker']]) {
      const r = await runCli(args, embedded(), undefined, cwd);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^certsvc: no database at \.\/data: start the server first, or set DATA_DIR/m);
      assert.match(r.stderr, /--create/);
      assert.equal(r.stdout, '');
    }
    assert.deepEqual(await readdir(cwd), [], 'the ./data folder stays absent');
  });

  it('a DATA_DIR with no database is refused the same way, and stays absent', async () => {
    const dir = path.join(cwd, 'elsewhere');
    const r = await runCli(
      ['key', 'list', '00000000-0000-7000-8000-000000000000'],
      embedded({ DATA_DIR: dir }),
      undefined,
      cwd,
    );
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /no database at \.\/elsewhere: start the server first, or set DATA_DIR/);
    assert.equal(existsSync(dir), false);
  });

  it('--create makes the database; then every command prints the data folder, in --json too', async () => {
    const dataDir = path.join(cwd, 'data');
    const created = await runCli(['account', 'list', '--create', '--json'], embedded(), undefined, cwd);
    assert.equal(created.code, 0, created.stderr);
    assert.match(
      created.stderr,
      /^certsvc: embedded database in \.\/data \(DATA_DIR unset: the default \.\/data\)$/m,
    );
    const body = JSON.parse(created.stdout) as { data: unknown[]; dataDir: string };
    assert.deepEqual(body, { data: [], dataDir });
    assert.ok(existsSync(path.join(dataDir, 'pg', 'PG_VERSION')), 'the cluster was created');
    assert.equal(existsSync(path.join(dataDir, 'pg', 'postmaster.pid')), false, 'and stopped on exit');

    // Now it exists: no --create needed, and the folder is named in text and JSON output alike.
    const account = await runCli(
      ['account', 'create', '--name', 'Here', '--plan', 'Pro', '--json'],
      embedded({ DATA_DIR: dataDir }),
      undefined,
      cwd,
    );
    assert.equal(account.code, 0, account.stderr);
    assert.match(account.stderr, /^certsvc: embedded database in \.\/data \(DATA_DIR\)$/m);
    assert.equal((JSON.parse(account.stdout) as { dataDir: string }).dataDir, dataDir);
    const list = await runCli(['account', 'list'], embedded(), undefined, cwd);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /\bPro +Here\b/);
    assert.match(list.stderr, /embedded database in \.\/data/);
  });

  it('migrate makes a new database without --create (preparing one is what it is for), and says where', async () => {
    const dir = path.join(cwd, 'migrated');
    const r = await runCli(['migrate', '--json'], embedded({ DATA_DIR: dir }), undefined, cwd);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /embedded database in \.\/migrated \(DATA_DIR\)/);
    assert.equal((JSON.parse(r.stdout) as { dataDir: string }).dataDir, dir);
    assert.ok(existsSync(path.join(dir, 'pg', 'PG_VERSION')));
  });

  it('with DATABASE_URL nothing changes: no data folder line, no dataDir field, nothing made in ./data', async () => {
    const r = await runCli(
      ['account', 'list', '--json'],
      cliEnv({ DATABASE_URL: testDatabaseUrl(), DATA_DIR: undefined }),
      undefined,
      cwd,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /embedded database|no database/);
    assert.equal('dataDir' in (JSON.parse(r.stdout) as object), false);
  });
});
