import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { demoLines, type DemoResult } from '../../src/cli/demo.js';
import { createTenant, startTestApp, testDatabaseUrl, type TestApp } from '../helpers/app.js';
import { cliEnv, runCli } from '../cli/run-cli.js';

// certsvc account update (decisions 21): the same accounts service as Settings > Organisation.

let dataDir: string;
let t: TestApp;

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-account-update-'));
  t = await startTestApp();
});
after(async () => {
  await t.close();
  await rm(dataDir, { recursive: true, force: true });
});

const env = () =>
  cliEnv({ DATABASE_URL: testDatabaseUrl(), DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://certs.test' });

describe('certsvc account update', () => {
  it('renames with --json printing one object, and records account.updated by the CLI', async () => {
    const tenant = await createTenant(t.deps, { name: 'Demo Academy' });
    const res = await runCli(
      [
        'account',
        'update',
        tenant.accountId,
        '--name',
        'Northwind Academy',
        '--website',
        'https://northwind.example',
        '--contact-email',
        'office@northwind.example',
        '--json',
      ],
      env(),
    );
    assert.equal(res.code, 0, res.stderr);
    const account = JSON.parse(res.stdout) as Record<string, unknown>;
    assert.equal(account.id, tenant.accountId);
    assert.equal(account.name, 'Northwind Academy');
    assert.equal(account.website, 'https://northwind.example/');
    assert.equal(account.contactEmail, 'office@northwind.example');

    const { rows } = await t.deps.db.query<{ action: string; actor_type: string; changes: object }>(
      "SELECT action, actor_type, changes FROM audit_events WHERE account_id = $1 AND action = 'account.updated'",
      [tenant.accountId],
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.action, 'account.updated');
    assert.equal(rows[0]!.actor_type, 'cli');
    assert.deepEqual(rows[0]!.changes, {
      name: { from: 'Demo Academy', to: 'Northwind Academy' },
      website: { from: null, to: 'https://northwind.example/' },
      contactEmail: { from: null, to: 'office@northwind.example' },
    });

    // A bad value: refused with the reason, nothing changed, nothing recorded.
    for (const args of [
      ['--website', 'http://northwind.example'],
      ['--contact-email', 'not-an-email'],
      ['--name', ''],
    ]) {
      const bad = await runCli(['account', 'update', tenant.accountId, ...args, '--json'], env());
      assert.notEqual(bad.code, 0, args.join(' '));
      assert.match(bad.stderr, /https:\/\/|not an email address|name must be/, bad.stderr);
    }
    const after = await t.deps.services.accounts.get(tenant.accountId);
    assert.equal(after.name, 'Northwind Academy');
    assert.equal(after.website, 'https://northwind.example/');
    const count = await t.deps.db.query(
      "SELECT 1 FROM audit_events WHERE account_id = $1 AND action = 'account.updated'",
      [tenant.accountId],
    );
    assert.equal(count.rowCount, 1);
  });

  it("the first start's message says how to rename the demo organisation", () => {
    const demo: DemoResult = {
      account: { id: '0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6d', name: 'Demo Academy', plan: 'Business' },
      key: 'svc_live_x',
      keyId: 'k',
      template: { id: 't', name: 'Course completion' },
      certificate: { id: 'c', uniqueCode: 'ABCD', verificationUrl: 'http://localhost:3000/verify/ABCD' },
      curl: [],
      rename: {
        command: 'npx certsvc account update 0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6d --name "Your Organisation"',
        page: 'http://localhost:3000/dashboard/settings/organisation',
      },
    };
    const text = demoLines(demo).join('\n');
    assert.match(text, /Rename the demo organisation/);
    assert.ok(text.includes(demo.rename.command), text);
    assert.ok(
      text.includes('Settings > Organisation: http://localhost:3000/dashboard/settings/organisation'),
      text,
    );
  });
});
