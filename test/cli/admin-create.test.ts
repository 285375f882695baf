import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDeps, createLogger, type Deps } from '../../src/deps.js';
import { testConfig, testDatabaseUrl } from '../helpers/app.js';
import { cliEnv, runCli } from './run-cli.js';

// certsvc admin create: an operator of the instance (decisions 21), not of any account.

let dataDir: string;
let deps: Deps;
let env: NodeJS.ProcessEnv;

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-cli-admin-'));
  env = cliEnv({ DATABASE_URL: testDatabaseUrl(), DATA_DIR: dataDir });
  const config = testConfig();
  deps = await createDeps(config, { logger: createLogger(config) });
});
after(async () => {
  await deps.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('certsvc admin create', () => {
  it('makes an operator with the password from standard input, printing one JSON object', async () => {
    const email = `Ops-${process.pid}-${Date.now()}@Instance.test`;
    const r = await runCli(
      ['admin', 'create', '--email', email, '--json'],
      env,
      'a long operator password\n',
    );
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.split('\n').filter((l) => l !== '');
    assert.equal(lines.length, 1);
    const operator = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.equal(operator.email, email.toLowerCase());
    assert.equal(operator.twoFactor, false);
    assert.match(String(operator.id), /^[0-9a-f-]{36}$/);
    assert.equal(operator.password, undefined, 'a given password is not printed');
    const signedIn = await deps.services.operators.authenticate(email, 'a long operator password');
    assert.equal(signedIn?.id, operator.id);
    const { rows } = await deps.db.query('SELECT 1 FROM users WHERE email = $1', [email.toLowerCase()]);
    assert.equal(rows.length, 0, 'no account user');

    const again = await runCli(['admin', 'create', '--email', email], env, 'another long password\n');
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists/);
  });

  it('generates a password and prints it once; refuses a bad email or a short password', async () => {
    const email = `ops-gen-${process.pid}-${Date.now()}@instance.test`;
    const r = await runCli(['admin', 'create', '--email', email], env);
    assert.equal(r.code, 0, r.stderr);
    const password = /Password \(shown only now\): (\S+)/.exec(r.stdout)?.[1];
    assert.ok(password, r.stdout);
    assert.match(r.stdout, /\/admin/);
    assert.ok(await deps.services.operators.authenticate(email, password));

    const bad = await runCli(['admin', 'create', '--email', 'not-an-email', '--json'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /not a valid email address/);
    assert.equal(bad.stdout, '');
    const short = await runCli(['admin', 'create', '--email', `x${email}`], env, 'short\n');
    assert.equal(short.code, 1);
    assert.match(short.stderr, /at least 12 characters/);
    const missing = await runCli(['admin', 'create'], env);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--email is required/);
  });
});
