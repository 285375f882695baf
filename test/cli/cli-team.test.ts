import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDeps, createLogger, type Deps } from '../../src/deps.js';
import { testConfig, testDatabaseUrl } from '../helpers/app.js';
import { cliEnv, runCli, type CliResult } from './run-cli.js';

// The team from the terminal (issue 29, decisions 21): user create --role, list, role, remove,
// reset-password; each with --json printing one JSON object, each change an audit event of `cli`.

let dataDir: string;
let deps: Deps;
let env: NodeJS.ProcessEnv;

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-cli-team-'));
  env = cliEnv({
    DATABASE_URL: testDatabaseUrl(),
    DATA_DIR: dataDir,
    PUBLIC_BASE_URL: 'https://certs.example',
  });
  const config = testConfig();
  deps = await createDeps(config, { logger: createLogger(config) });
});
after(async () => {
  await deps.close();
  await rm(dataDir, { recursive: true, force: true });
});

function json(r: CliResult, what: string): Record<string, unknown> {
  assert.equal(r.code, 0, `${what}: exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `${what}: one line of JSON, got ${JSON.stringify(r.stdout)}`);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

function failed(r: CliResult, what: string, message: RegExp) {
  assert.notEqual(r.code, 0, `${what}: should fail\nstdout: ${r.stdout}`);
  assert.equal(r.stdout, '', `${what}: nothing on stdout`);
  assert.match(r.stderr, message, `${what}: stderr was ${JSON.stringify(r.stderr)}`);
}

const certsvc = (...args: string[]) => runCli([...args, '--json'], env);

describe('certsvc user list|role|remove|reset-password', () => {
  it('changes and removes users of an account that has no owner yet (no owner is taken away)', async () => {
    const accountId = (await deps.services.accounts.create({ name: 'No owner yet', plan: 'Business' })).id;
    const issuer = `issuer-${randomBytes(4).toString('hex')}@example.com`;
    json(await certsvc('user', 'create', accountId, '--email', issuer, '--role', 'issuer'), 'create issuer');
    const changed = json(
      await certsvc('user', 'role', accountId, '--email', issuer, '--role', 'viewer'),
      'role',
    );
    assert.equal((changed.user as { role: string }).role, 'viewer');
    json(await certsvc('user', 'remove', accountId, '--email', issuer), 'remove');
  });

  it('runs the team, keeping an owner, and records each change as cli', async () => {
    const accountId = (await deps.services.accounts.create({ name: 'CLI team', plan: 'Business' })).id;
    const owner = `owner-${randomBytes(4).toString('hex')}@example.com`;
    const issuer = `issuer-${randomBytes(4).toString('hex')}@example.com`;
    const created = json(await certsvc('user', 'create', accountId, '--email', owner), 'create owner');
    assert.equal(created.role, 'owner', 'owner by default');
    json(await certsvc('user', 'create', accountId, '--email', issuer, '--role', 'issuer'), 'create issuer');
    failed(
      await certsvc('user', 'create', accountId, '--email', `x-${issuer}`, '--role', 'emperor'),
      'unknown role',
      /role must be one of owner, admin, issuer, designer, viewer/,
    );

    const list = json(await certsvc('user', 'list', accountId), 'list');
    const users = list.data as {
      email: string;
      role: string;
      lastSignInAt: string | null;
      twoFactor: boolean;
    }[];
    assert.deepEqual(
      users.map((u) => [u.email, u.role, u.lastSignInAt, u.twoFactor]),
      [
        [owner, 'owner', null, false],
        [issuer, 'issuer', null, false],
      ],
    );

    // The last owner stays an owner.
    failed(
      await certsvc('user', 'role', accountId, '--email', owner, '--role', 'viewer'),
      'demote last owner',
      /at least one owner/,
    );
    failed(
      await certsvc('user', 'remove', accountId, '--email', owner),
      'remove last owner',
      /at least one owner/,
    );
    const promoted = json(
      await certsvc('user', 'role', accountId, '--email', issuer, '--role', 'owner'),
      'role',
    );
    assert.equal((promoted.user as { role: string }).role, 'owner');
    assert.equal(promoted.previousRole, 'issuer');
    const removed = json(
      await certsvc('user', 'remove', accountId, '--email', owner.toUpperCase()),
      'remove',
    );
    assert.equal((removed.removed as { email: string }).email, owner);
    failed(await certsvc('user', 'remove', accountId, '--email', owner), 'remove again', /not found/i);

    // A reset link: single use, one hour, under PUBLIC_BASE_URL.
    const reset = json(
      await certsvc('user', 'reset-password', accountId, '--email', issuer),
      'reset-password',
    );
    assert.match(
      String(reset.url),
      /^https:\/\/certs\.example\/dashboard\/reset-password\/[A-Za-z0-9_-]{43}$/,
    );
    const hour = new Date(String(reset.expiresAt)).getTime() - Date.now();
    assert.ok(hour > 59 * 60_000 && hour <= 3600_000, `valid one hour, got ${hour} ms`);

    const { rows } = await deps.db.query<{
      action: string;
      actor_type: string;
      changes: Record<string, unknown>;
    }>('SELECT action, actor_type, changes FROM audit_events WHERE account_id = $1 ORDER BY seq', [
      accountId,
    ]);
    assert.deepEqual(
      rows.map((r) => [r.action, r.actor_type]),
      [
        ['user.joined', 'cli'],
        ['user.joined', 'cli'],
        ['user.role_changed', 'cli'],
        ['user.removed', 'cli'],
      ],
    );
    assert.deepEqual(rows[2]!.changes, { from: 'issuer', to: 'owner' });
  });

  it('keys made by the CLI say cli', async () => {
    const accountId = (await deps.services.accounts.create({ name: 'CLI keys', plan: 'Business' })).id;
    const key = json(await certsvc('key', 'create', accountId, '--name', 'ci'), 'key create');
    assert.equal(key.createdBy, 'cli');
    const revoked = json(await certsvc('key', 'revoke', String(key.id)), 'key revoke');
    assert.ok(revoked.revokedAt);
    const { rows } = await deps.db.query<{ action: string; actor_type: string }>(
      'SELECT action, actor_type FROM audit_events WHERE account_id = $1 ORDER BY seq',
      [accountId],
    );
    assert.deepEqual(
      rows.map((r) => [r.action, r.actor_type]),
      [
        ['key.created', 'cli'],
        ['key.revoked', 'cli'],
      ],
    );
  });
});
