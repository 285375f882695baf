/* eslint-disable no-control-regex -- terminal output is matched with its escape sequences */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, testDatabaseUrl, type TestApp } from '../helpers/app.js';
import { BIN, cliEnv, REPO_ROOT, runCli } from '../cli/run-cli.js';

// certsvc import (decisions section 20): the same job as the dashboard's, from a terminal: a bar on
// a terminal (a pseudo-terminal from util-linux's `script`), plain lines otherwise, one JSON object
// with --json; exit 1 when rows failed.

let dir: string;
let t: TestApp;

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-import-cli-'));
  t = await startTestApp();
});
after(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const env = () =>
  cliEnv({ DATABASE_URL: testDatabaseUrl(), DATA_DIR: dir, PUBLIC_BASE_URL: 'http://certs.test' });

async function roster(name: string, rows: number, bad?: number): Promise<string> {
  const file = path.join(dir, name);
  const lines = Array.from({ length: rows }, (_, i) =>
    i === bad ? `Bad ${i},not-an-email,C` : `Learner ${i},l${i}@example.com,Course`,
  );
  await writeFile(file, `name,email,course\n${lines.join('\n')}\n`);
  return file;
}

// Runs the command on a pseudo-terminal: `script` gives it a TTY for standard output.
function onTerminal(args: string[]): Promise<{ code: number | null; output: string }> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], {
      cwd: REPO_ROOT,
      env: env(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

describe('certsvc import', () => {
  it('prints one JSON object with --json, and exits 0 when every row was issued', async () => {
    const tenant = await createTenant(t.deps);
    const file = await roster('ok.csv', 1_100);
    const res = await runCli(
      ['import', tenant.accountId, '--template', tenant.templateId, '--csv', file, '--json'],
      env(),
    );
    assert.equal(res.code, 0, res.stderr);
    const out = JSON.parse(res.stdout) as {
      id: string;
      state: string;
      rows: number;
      created: number;
      failed: number;
    };
    assert.deepEqual(
      { ...out, id: undefined },
      { id: undefined, state: 'done', rows: 1100, created: 1100, failed: 0 },
    );
    const list = await t.deps.services.imports.list(tenant.accountId);
    assert.deepEqual(
      list.map((i) => [i.id, i.state, i.created]),
      [[out.id, 'done', 1100]],
    );
  });

  it('prints plain lines when not on a terminal, and exits 1 when rows failed', async () => {
    const tenant = await createTenant(t.deps);
    const file = await roster('bad-row.csv', 1_001, 500);
    const res = await runCli(
      ['import', tenant.accountId, '--template', tenant.templateId, '--csv', file],
      env(),
    );
    assert.equal(res.code, 1, res.stderr);
    assert.doesNotMatch(res.stdout, /\r|\u001b/);
    const lines = res.stdout.trim().split('\n');
    assert.match(lines[0]!, /^Import [0-9a-f-]{36}: 1,001 rows from bad-row\.csv$/);
    assert.ok(
      lines.some((l) => /^0\/1,001 rows · 0 created · 0 failed$/.test(l)),
      res.stdout,
    );
    assert.ok(
      lines.some((l) => /^1,001\/1,001 rows · 1,000 created · 1 failed/.test(l)),
      res.stdout,
    );
    assert.match(lines.at(-1)!, /^Import done: 1,000 created, 1 failed/);
  });

  it('draws a progress bar in place on a terminal', async () => {
    const tenant = await createTenant(t.deps);
    const file = await roster('tty.csv', 1_200);
    const res = await onTerminal([
      'import',
      tenant.accountId,
      '--template',
      tenant.templateId,
      '--csv',
      file,
    ]);
    assert.equal(res.code, 0, res.output);
    assert.match(res.output, /\r\u001b\[2K\[#{0,30}-*\] \d+% /);
    assert.match(res.output, /\[#{30}\] 100% 1,200\/1,200 rows · 1,200 created · 0 failed/);
    assert.match(res.output, /Import done: 1,200 created, 0 failed/);
  });

  it('refuses a bad file before anything is issued', async () => {
    const tenant = await createTenant(t.deps);
    const file = path.join(dir, 'nul.csv');
    await writeFile(file, 'name,email,course\nA,a@x.test,C\nB\u0000,b@x.test,C\n');
    const res = await runCli(
      ['import', tenant.accountId, '--template', tenant.templateId, '--csv', file],
      env(),
    );
    assert.equal(res.code, 2);
    assert.match(res.stderr, /Row 3, column name: the value contains a NUL character/);
    assert.equal((await t.deps.services.imports.list(tenant.accountId)).length, 0);
  });
});
