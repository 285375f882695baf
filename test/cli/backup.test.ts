import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { BIN, cliEnv, REPO_ROOT, runCli, type CliResult } from './run-cli.js';
import { freePort } from '../../src/platform/net.js';

// `certsvc backup` while a service on the embedded default issues batches of 500, `certsvc restore`
// into a fresh folder, a second service on it: the same certificates, PDFs and credentials, and they
// verify. Real processes on loopback; only the processes started here are stopped.

const WAIT_MS = 120_000; // a safety net against hanging, not an assertion on speed
const BATCHES = 3; // of 500: the demo account's plan allows 2,000 a month, one is its sample

let work: string;
let sourceDir: string;
let restoredDir: string;
let backupFile: string;
const servers: Server[] = [];

interface Server {
  child: ChildProcess;
  base: string;
  output: () => string;
  exited: Promise<unknown>;
}

function env(dataDir: string, extra: Record<string, string | undefined> = {}) {
  // No SIGNING_KEYS_SECRET: the embedded default's own secret in DATA_DIR, which the backup carries.
  return cliEnv({
    DATABASE_URL: undefined,
    SIGNING_KEYS_SECRET: undefined,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    RATE_LIMIT_MAX: '100000',
    LOG_LEVEL: 'warn',
    ...extra,
  });
}

async function startServe(dataDir: string): Promise<Server> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve'], {
    cwd: REPO_ROOT,
    env: env(dataDir, { PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const server = { child, base: `http://127.0.0.1:${port}`, output: () => out, exited };
  servers.push(server);
  const deadline = Date.now() + WAIT_MS;
  while (!/listening on http/.test(out)) {
    if (child.exitCode !== null) throw new Error(`serve exited:\n${out}`);
    if (Date.now() > deadline) throw new Error(`serve did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return server;
}

async function stop(server: Server): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
  await server.exited;
}

// A query on a data folder's running embedded database, over TCP.
async function ask<R extends pg.QueryResultRow>(dataDir: string, sql: string): Promise<R[]> {
  const { password } = JSON.parse(await readFile(path.join(dataDir, 'embedded-postgres.json'), 'utf8')) as {
    password: string;
  };
  const pid = await readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8');
  const client = new pg.Client({
    connectionString: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${Number(pid.split('\n')[3])}/certsvc`,
  });
  await client.connect();
  try {
    return (await client.query<R>(sql)).rows;
  } finally {
    await client.end();
  }
}

interface Row {
  id: string;
  unique_code: string;
  recipient_email: string;
  row: unknown;
  sha256: string;
  pdf_hash: string;
  credential_hash: string | null;
}

// Every certificate with its whole row, its PDF's recorded hash and the hashes of the stored bytes.
const CERTIFICATES = `
  SELECT c.id, c.unique_code, c.recipient_email, to_jsonb(c) AS row, p.sha256,
         encode(sha256(p.pdf), 'hex') AS pdf_hash, encode(sha256(cr.body), 'hex') AS credential_hash
  FROM certificates c JOIN certificate_pdfs p ON p.certificate_id = c.id
  LEFT JOIN credentials cr ON cr.certificate_id = c.id
  ORDER BY c.id`;

function entries(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

before(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'certsvc-backup-'));
  await chmod(work, 0o711); // as root PostgreSQL runs as `postgres`, which must pass through
  sourceDir = path.join(work, 'source');
  restoredDir = path.join(work, 'restored');
  backupFile = path.join(work, 'certsvc.backup.tar');
});

after(async () => {
  for (const server of servers) await stop(server);
  await rm(work, { recursive: true, force: true });
});

describe('certsvc backup and restore (embedded default)', { timeout: 10 * WAIT_MS }, () => {
  let key: string;
  let templateId: string;

  it('backs up while batches of 500 are issued; the restored service has the same certificates', async (t) => {
    const source = await startServe(sourceDir);
    key = /API key .*: (svc_live_\w+)/.exec(source.output())![1]!;
    templateId = /Template: .* ([0-9a-f-]{36})/.exec(source.output())![1]!;
    // The WAL the embedded default keeps is bounded (docs/operations.md).
    const settings = await ask<{ name: string; setting: string; unit: string | null }>(
      sourceDir,
      `SELECT name, setting, unit FROM pg_settings WHERE name IN ('max_wal_size', 'min_wal_size') ORDER BY name`,
    );
    assert.deepEqual(
      settings.map((s) => `${s.name}=${s.setting}${s.unit}`),
      ['max_wal_size=256MB', 'min_wal_size=64MB'],
    );

    const issue = async (batch: number) => {
      const recipients = Array.from({ length: 500 }, (_, i) => ({
        name: `Learner ${batch}-${i} ${(batch * 7919 + i * 104729).toString(36)}`,
        email: `b${batch}-${i}@example.test`,
        data: { course: `Course ${batch}` },
      }));
      const res = await fetch(`${source.base}/api/v1/certificates`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ templateId, recipients }),
      });
      const body = (await res.json()) as { data: { created: number } };
      assert.equal(res.status, 201, JSON.stringify(body));
      assert.equal(body.data.created, 500);
    };
    await issue(1);
    const before = await ask<Row>(sourceDir, CERTIFICATES);
    assert.equal(before.length, 501);

    // The next batch is in flight when the backup starts; more follow while it runs.
    let batch = 2;
    let backupDone = false;
    const issuing = (async () => {
      await issue(batch);
      while (!backupDone && batch < BATCHES) await issue(++batch);
    })();
    // Single issues one after another meanwhile: small commits that land while the files are
    // copied, which the WAL in the backup must bring in order (at most 200: the plan's quota).
    const singles: string[] = [];
    const issuingSingles = (async () => {
      for (let i = 0; !backupDone && i < 200; i++) {
        const res = await fetch(`${source.base}/api/v1/certificates`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            templateId,
            recipient: { name: `Single ${i}`, email: `s-${i}@example.test`, data: { course: 'One' } },
          }),
        });
        assert.equal(res.status, 201);
        singles.push(((await res.json()) as { data: { id: string } }).data.id);
      }
    })();
    const backup = await runCli(['backup', '--out', backupFile, '--json'], env(sourceDir)).finally(
      () => (backupDone = true),
    );
    await Promise.all([issuing, issuingSingles]);
    assert.equal(backup.code, 0, backup.stderr);
    const made = JSON.parse(backup.stdout) as { out: string; included: string[]; bytes: number };
    assert.equal(made.out, backupFile);
    assert.deepEqual(made.included, ['embedded-postgres.json', 'signing-keys.secret']);
    assert.ok(made.bytes > 501 * 30_000, `${made.bytes} bytes for more than 501 PDFs`);
    const sourceRows = new Map((await ask<Row>(sourceDir, CERTIFICATES)).map((r) => [r.id, r]));
    assert.equal(sourceRows.size, 1 + 500 * batch + singles.length);

    const restore = await runCli(['restore', '--from', backupFile, '--json'], env(restoredDir));
    assert.equal(restore.code, 0, restore.stderr);
    const restored = await startServe(restoredDir);
    const rows = await ask<Row>(restoredDir, CERTIFICATES);
    assert.equal((JSON.parse(restore.stdout) as { certificates: number }).certificates, rows.length);

    // A consistent copy: everything issued before the backup, every batch whole or absent, and
    // every certificate, PDF and credential the same as the source's, byte for byte.
    for (const r of before)
      assert.ok(
        rows.some((x) => x.id === r.id),
        `${r.unique_code} before the backup`,
      );
    for (let b = 1; b <= batch; b++) {
      const n = rows.filter((r) => r.recipient_email.startsWith(`b${b}-`)).length;
      assert.ok(n === 0 || n === 500, `batch ${b}: ${n} of 500 restored`);
    }
    // The single issues committed one after another: the backup holds a first part of them.
    const restoredIds = new Set(rows.map((r) => r.id));
    const held = singles.filter((id) => restoredIds.has(id)).length;
    assert.deepEqual(
      singles.map((id) => restoredIds.has(id)),
      singles.map((_, i) => i < held),
      `the first ${held} of ${singles.length} single issues, and no later one`,
    );
    t.diagnostic(
      `restored ${rows.length} of ${sourceRows.size}: ${held} of ${singles.length} single issues, ` +
        `batches ${Array.from({ length: batch }, (_, i) => rows.filter((r) => r.recipient_email.startsWith(`b${i + 1}-`)).length).join('/')}`,
    );
    for (const r of rows) {
      assert.deepEqual(r, sourceRows.get(r.id), `certificate ${r.unique_code}`);
      assert.equal(r.pdf_hash, r.sha256, 'the stored PDF is the one its hash names');
      assert.ok(r.credential_hash, 'with its credential');
    }

    // The restored service verifies each of them, and can sign new ones (its keys open).
    for (const r of rows) {
      const res = await fetch(`${restored.base}/api/v1/verify/${r.unique_code}`);
      assert.equal(res.status, 200);
      const { data } = (await res.json()) as { data: { valid: boolean; pdfSha256: string } };
      assert.equal(data.valid, true, r.unique_code);
      assert.equal(data.pdfSha256, r.sha256);
    }
    const single = await fetch(`${restored.base}/api/v1/certificates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        templateId,
        recipient: { name: 'After Restore', email: 'after@example.test', data: { course: 'Restore' } },
      }),
    });
    assert.equal(single.status, 201, await single.text());
    await stop(restored);
  });

  it('refuses to restore into a folder that is not empty, and changes nothing there', async () => {
    const target = path.join(work, 'not-empty');
    await mkdir(target);
    await writeFile(path.join(target, 'notes.txt'), 'keep me');
    const r = await runCli(['restore', '--from', backupFile], env(target));
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /is not empty \(1 entry, e\.g\. notes\.txt\): restore only into an empty or new folder/,
    );
    assert.deepEqual(entries(target), ['notes.txt']);
    assert.equal(readFileSync(path.join(target, 'notes.txt'), 'utf8'), 'keep me');
  });

  it('refuses a backup cut short, leaving the folder as it was (absent)', async () => {
    const cut = path.join(work, 'cut.tar');
    await copyFile(backupFile, cut);
    await truncate(cut, Math.floor((await readFile(backupFile)).length / 2));
    const target = path.join(work, 'from-cut');
    const r = await runCli(['restore', '--from', cut], env(target));
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /incomplete|ends inside/);
    assert.equal(existsSync(target), false);
  });

  it('never overwrites: backup --out to an existing file is refused and the file stays', async () => {
    const existing = path.join(work, 'existing.tar');
    await writeFile(existing, 'an older backup');
    const r: CliResult = await runCli(['backup', '--out', existing], env(sourceDir));
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /exists: give a new file name \(a backup never overwrites\)/);
    assert.equal(readFileSync(existing, 'utf8'), 'an older backup');
  });

  it('backs up with the service stopped: PostgreSQL runs for the copy only', async () => {
    for (const server of servers) await stop(server);
    const pidFile = path.join(sourceDir, 'pg', 'postmaster.pid');
    assert.equal(existsSync(pidFile), false, 'no PostgreSQL on the folder');
    const file = path.join(work, 'stopped.tar');
    const r = await runCli(['backup', '--out', file], env(sourceDir));
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(`to ${file}: `), r.stdout);
    assert.equal(existsSync(pidFile), false, 'stopped again');
    assert.deepEqual(
      entries(work).filter((n) => n.endsWith('.partial')),
      [],
    );
  });

  it('with DATABASE_URL, backup names pg_dump and restore pg_restore', async () => {
    const url = 'postgres://nobody@127.0.0.1:1/none';
    const b = await runCli(
      ['backup', '--out', path.join(work, 'x.tar')],
      env(sourceDir, { DATABASE_URL: url }),
    );
    assert.equal(b.code, 2);
    assert.match(b.stderr, /embedded database only; with DATABASE_URL set, use pg_dump --format=custom/);
    const r = await runCli(
      ['restore', '--from', backupFile],
      env(path.join(work, 'y'), { DATABASE_URL: url }),
    );
    assert.equal(r.code, 2);
    assert.match(r.stderr, /use pg_restore/);
    assert.equal(existsSync(path.join(work, 'x.tar')), false);
  });
});
