import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDeps, createLogger, type Deps } from '../../src/deps.js';
import { testConfig, testDatabaseUrl } from '../helpers/app.js';
import { cliEnv, REPO_ROOT, runCli, type CliResult } from './run-cli.js';

// The operator's read and update commands: template list/show/update, account list/show.

const DESIGN = path.join(REPO_ROOT, 'examples/designs/course-completion.json');
const UNKNOWN_ID = '01890a5d-ac96-774b-bcce-b302099a8057';

let dataDir: string;
let deps: Deps;
let env: NodeJS.ProcessEnv;

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-cli-manage-'));
  env = cliEnv({ DATABASE_URL: testDatabaseUrl(), DATA_DIR: dataDir });
  const config = testConfig();
  deps = await createDeps(config, { logger: createLogger(config) });
});
after(async () => {
  await deps.close();
  await rm(dataDir, { recursive: true, force: true });
});

const certsvc = (...args: string[]) => runCli(args, env);

function json(r: CliResult, what: string): Record<string, unknown> {
  assert.equal(r.code, 0, `${what}: exit ${r.code}\n${r.stderr}`);
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `${what}: one line of JSON, got ${JSON.stringify(r.stdout)}`);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

async function newAccount(name = 'CLI Manage Academy'): Promise<string> {
  const a = json(
    await certsvc('account', 'create', '--name', name, '--plan', 'Business', '--json'),
    'account',
  );
  return String(a.id);
}

describe('certsvc template list/show/update', () => {
  it('lists every template of the account with its status; shows one with its design', async () => {
    const accountId = await newAccount();
    const first = json(await certsvc('template', 'create', accountId, '--file', DESIGN, '--json'), 'create');
    const second = json(await certsvc('template', 'create', accountId, '--file', DESIGN, '--json'), 'create');
    json(await certsvc('template', 'archive', String(first.id), '--json'), 'archive');

    const list = json(await certsvc('template', 'list', accountId, '--json'), 'list');
    const rows = list.data as { id: string; status: string; name: string }[];
    assert.deepEqual(
      rows.map((r) => [r.id, r.status]),
      [
        [second.id, 'active'],
        [first.id, 'archived'],
      ],
    );
    const text = await certsvc('template', 'list', accountId);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`${String(second.id)}\\s+active\\s+Course completion`));

    const shown = json(await certsvc('template', 'show', String(second.id), '--json'), 'show');
    assert.equal(shown.accountId, accountId);
    assert.equal(shown.status, 'active');
    assert.equal((shown.design as { title: string }).title, '{{data.course}}');
    const shownText = await certsvc('template', 'show', String(second.id));
    assert.match(shownText.stdout, /Title: \{\{data\.course\}\}/);

    const emptyAccount = await newAccount('No Templates');
    assert.match((await certsvc('template', 'list', emptyAccount)).stdout, /No templates/);
    assert.match((await certsvc('template', 'show', UNKNOWN_ID)).stderr, /Template not found|not found/i);
  });

  it('update keeps the id, validates like create, and is refused for archived templates', async () => {
    const accountId = await newAccount();
    const created = json(
      await certsvc('template', 'create', accountId, '--file', DESIGN, '--json'),
      'create',
    );
    const design = JSON.parse(await readFile(DESIGN, 'utf8')) as Record<string, unknown>;
    const file = path.join(dataDir, 'renamed.json');
    await writeFile(
      file,
      JSON.stringify({ ...design, name: 'Course completed', title: 'Course: {{data.course}}' }),
    );
    const updated = json(
      await certsvc('template', 'update', String(created.id), '--file', file, '--json'),
      'update',
    );
    assert.equal(updated.id, created.id);
    assert.equal(updated.name, 'Course completed');
    assert.notEqual(updated.updatedAt, created.updatedAt);
    const stored = await deps.services.templates.show(String(created.id));
    assert.equal(stored.design.title, 'Course: {{data.course}}');

    const bad = path.join(dataDir, 'bad.json');
    await writeFile(bad, JSON.stringify({ ...design, title: '{{data.unknown}}' }));
    const refused = await certsvc('template', 'update', String(created.id), '--file', bad);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /title .*data\.unknown/);
    assert.equal(
      (await deps.services.templates.show(String(created.id))).design.title,
      'Course: {{data.course}}',
    );

    json(await certsvc('template', 'archive', String(created.id), '--json'), 'archive');
    const archived = await certsvc('template', 'update', String(created.id), '--file', file);
    assert.notEqual(archived.code, 0);
    assert.match(archived.stderr, /archived/);
  });
});

describe('certsvc account list/show', () => {
  it('list shows the accounts; show gives plan, limits, contract, keys and usage', async () => {
    const accountId = await newAccount('Shown Academy');
    const list = json(await certsvc('account', 'list', '--json'), 'account list');
    const found = (list.data as { id: string; name: string; plan: string }[]).find((a) => a.id === accountId);
    assert.deepEqual(found && { name: found.name, plan: found.plan }, {
      name: 'Shown Academy',
      plan: 'Business',
    });
    assert.match(
      (await certsvc('account', 'list')).stdout,
      new RegExp(`${accountId}\\s+Business\\s+Shown Academy`),
    );

    await deps.services.keys.create(accountId, {});
    const revoked = await deps.services.keys.create(accountId, {});
    await deps.services.keys.revoke(revoked.id);
    const shown = json(await certsvc('account', 'show', accountId, '--json'), 'account show');
    assert.equal(shown.plan, 'Business');
    assert.equal(shown.apiAccess, true);
    assert.equal(shown.contract, null);
    assert.deepEqual(shown.keys, { active: 1, revoked: 1 });
    const usage = shown.usage as { used: number; limit: number; remaining: number; resetAt: string };
    assert.equal(usage.used, 0);
    assert.equal(usage.limit, usage.remaining);
    assert.match(usage.resetAt, /^\d{4}-\d{2}-01T00:00:00\.000Z$/);

    const contract = await deps.services.contracts.create({ accountId });
    const partner = json(await certsvc('account', 'show', accountId, '--json'), 'account show');
    assert.equal((partner.contract as { id: string }).id, contract.id);
    assert.equal((partner.usage as { limit: null }).limit, null);
    const text = await certsvc('account', 'show', accountId);
    assert.match(text.stdout, /Keys: 1 active, 1 revoked/);
    assert.match(text.stdout, new RegExp(`Contract: ${contract.id}`));
    assert.notEqual((await certsvc('account', 'show', UNKNOWN_ID)).code, 0);
  });
});
