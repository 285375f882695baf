import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { createDeps, createLogger, type Deps } from '../../src/deps.js';
import { isWellFormedKey } from '../../src/modules/shared/key-format.js';
import { testConfig, testDatabaseUrl } from '../helpers/app.js';
import { cliEnv, REPO_ROOT, runCli, type CliResult } from './run-cli.js';
import { verifyPassword } from '../../src/modules/users/password.js';

// The `certsvc` command (README, The certsvc command), run as a real child process against the test database.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY = /^svc_live_[A-Za-z0-9]{32}$/;
const DESIGN = path.join(REPO_ROOT, 'examples/designs/course-completion.json');
const UNKNOWN_ID = '01890a5d-ac96-774b-bcce-b302099a8057';
const execFileP = promisify(execFile);

let dataDir: string;
let deps: Deps; // the same database, seen from the test: checks what the commands did
let env: NodeJS.ProcessEnv;

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-cli-'));
  env = cliEnv({ DATABASE_URL: testDatabaseUrl(), DATA_DIR: dataDir });
  const config = testConfig();
  deps = await createDeps(config, { logger: createLogger(config) });
});
after(async () => {
  await deps.close();
  await rm(dataDir, { recursive: true, force: true });
});

const certsvc = (...args: string[]) => runCli(args, env);

function ok(r: CliResult, what: string) {
  assert.equal(r.code, 0, `${what}: exit ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
}

// --json: exactly one JSON object on stdout, nothing else.
function json(r: CliResult, what: string): Record<string, unknown> {
  ok(r, what);
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `${what}: one line of JSON, got ${JSON.stringify(r.stdout)}`);
  const value = JSON.parse(lines[0]!) as unknown;
  assert.ok(value && typeof value === 'object' && !Array.isArray(value), `${what}: a JSON object`);
  return value as Record<string, unknown>;
}

function failed(r: CliResult, what: string, message: RegExp) {
  assert.notEqual(r.code, 0, `${what}: should fail\nstdout: ${r.stdout}`);
  assert.equal(r.signal, null, `${what}: exits by itself`);
  assert.equal(r.stdout, '', `${what}: nothing on stdout`);
  assert.match(r.stderr, message, `${what}: stderr was ${JSON.stringify(r.stderr)}`);
  assert.doesNotMatch(r.stderr, /\n\s+at .*\(.*:\d+:\d+\)/, `${what}: no stack trace`);
}

async function newAccount(plan = 'Business'): Promise<string> {
  return (await deps.services.accounts.create({ name: 'CLI test', plan })).id;
}

describe('certsvc: help and migrate', () => {
  it('bad configuration in the environment: a clear message, no stack trace', async () => {
    for (const [name, value, message] of [
      ['PORT', 'abc', /PORT must be an integer/],
      ['RATE_LIMIT_MAX', '0', /RATE_LIMIT_MAX must be between/],
      ['PUBLIC_BASE_URL', 'not a url', /PUBLIC_BASE_URL is not a URL/],
      ['CORS_PARTNER_DOMAINS', 'https://x.test', /CORS_PARTNER_DOMAINS/],
      ['PLANS_JSON', '[{"name":"X"}]', /PLANS_JSON\[0\]/],
    ] as const) {
      failed(await runCli(['migrate'], { ...env, [name]: value }), `${name}=${value}`, message);
    }
  });

  it('--help lists every command and exits 0', async () => {
    const r = await certsvc('--help');
    ok(r, '--help');
    for (const c of [
      'serve',
      'worker',
      'migrate',
      'account create',
      'account set-plan',
      'contract create',
      'contract end',
      'key create',
      'key list',
      'key revoke',
      'template create',
      'template archive',
      'template preview',
      'user create',
      'admin create',
      'demo',
      'signing-key list',
      'signing-key rotate',
      'credentials backfill',
    ]) {
      assert.ok(r.stdout.includes(`  ${c}`), `help lists ${c}`);
    }
    const sub = await certsvc('account', 'create', '--help');
    ok(sub, 'account create --help');
    assert.match(sub.stdout, /Usage: certsvc account create --name NAME --plan PLAN/);
  });

  it('migrate reports the applied migrations; --json gives one object', async () => {
    const r = await certsvc('migrate');
    ok(r, 'migrate');
    assert.match(r.stdout, /up to date .*001_init\.sql/);
    const j = json(await certsvc('migrate', '--json'), 'migrate --json');
    assert.deepEqual(j.applied, []);
    assert.ok((j.migrations as string[]).includes('001_init.sql'));
  });
});

describe('certsvc account', () => {
  it('account create (text) prints the id, and the account exists', async () => {
    const r = await certsvc('account', 'create', '--name', 'Text Academy', '--plan', 'Business');
    ok(r, 'account create');
    const m = /Created account Text Academy \(Business\): (\S+)/.exec(r.stdout);
    assert.ok(m, r.stdout);
    assert.match(m[1]!, UUID);
    const account = await deps.services.accounts.get(m[1]!);
    assert.equal(account.name, 'Text Academy');
  });

  it('account create --json: one object with id; plan names are matched case-insensitively', async () => {
    const j = json(
      await certsvc('account', 'create', '--name', 'Json Academy', '--plan', 'business', '--json'),
      'account create --json',
    );
    assert.match(String(j.id), UUID);
    assert.equal(j.name, 'Json Academy');
    assert.equal(j.plan, 'Business');
    assert.equal(j.monthlyLimit, null);
  });

  it('account create --monthly-limit sets the custom limit', async () => {
    const j = json(
      await certsvc(
        'account',
        'create',
        '--name',
        'Limited',
        '--plan',
        'Pro',
        '--monthly-limit',
        '75',
        '--json',
      ),
      'account create --monthly-limit',
    );
    assert.equal(j.monthlyLimit, 75);
    assert.equal((await deps.services.accounts.get(String(j.id))).monthlyLimit, 75);
  });

  it('account set-plan changes the plan', async () => {
    const id = await newAccount('Free');
    const r = await certsvc('account', 'set-plan', id, 'Business');
    ok(r, 'set-plan');
    assert.match(r.stdout, new RegExp(`${id} is now on Business`));
    assert.equal((await deps.services.accounts.get(id)).plan, 'Business');
    const j = json(await certsvc('account', 'set-plan', id, 'pro', '--json'), 'set-plan --json');
    assert.equal(j.id, id);
    assert.equal(j.plan, 'Pro');
    assert.equal((await deps.services.accounts.get(id)).plan, 'Pro');
  });
});

describe('certsvc contract', () => {
  it('contract create with --starts, --ends and --no-email', async () => {
    const id = await newAccount('Free');
    const j = json(
      await certsvc(
        'contract',
        'create',
        id,
        '--starts',
        '2026-01-01',
        '--ends',
        '2030-06-30T12:00:00Z',
        '--no-email',
        '--json',
      ),
      'contract create --json',
    );
    assert.match(String(j.id), UUID);
    assert.equal(j.accountId, id);
    assert.equal(j.status, 'active');
    assert.equal(j.startsAt, '2026-01-01T00:00:00.000Z');
    assert.equal(j.endsAt, '2030-06-30T12:00:00.000Z');
    assert.equal(j.emailDelivery, false);
  });

  it('contract create without options: starts now, no end, email on (text output)', async () => {
    const id = await newAccount('Free');
    const r = await certsvc('contract', 'create', id);
    ok(r, 'contract create');
    assert.match(r.stdout, /Created partner contract \S+ for account/);
    assert.match(r.stdout, /until further notice, email delivery on/);
  });

  it('contract end ends it; ending it again is an error', async () => {
    const accountId = await newAccount('Free');
    const contract = await deps.services.contracts.create({ accountId });
    const r = await certsvc('contract', 'end', contract.id, '--json');
    const j = json(r, 'contract end');
    assert.equal(j.id, contract.id);
    assert.equal(j.status, 'ended');
    assert.ok(j.endsAt);
    const { rows } = await deps.db.query('SELECT status FROM contracts WHERE id = $1', [contract.id]);
    assert.equal(rows[0].status, 'ended');

    failed(await certsvc('contract', 'end', contract.id), 'second contract end', /already ended/);
  });

  it('account create, contract create and contract end each write an audit event of the account, as the CLI', async () => {
    const made = json(
      await certsvc('account', 'create', '--name', 'Audited Academy', '--plan', 'Business', '--json'),
      'account create',
    );
    const accountId = String(made.id);
    const contract = json(await certsvc('contract', 'create', accountId, '--json'), 'contract create');
    json(await certsvc('contract', 'end', String(contract.id), '--json'), 'contract end');
    failed(await certsvc('contract', 'end', String(contract.id)), 'second contract end', /already ended/);
    const { rows } = await deps.db.query<{
      action: string;
      actor_type: string;
      changes: Record<string, unknown>;
    }>('SELECT action, actor_type, changes FROM audit_events WHERE account_id = $1 ORDER BY seq', [
      accountId,
    ]);
    assert.deepEqual(
      rows.map((r) => [r.action, r.actor_type, Object.keys(r.changes)[0]]),
      [
        ['account.updated', 'cli', 'created'],
        ['account.updated', 'cli', 'contract'],
        ['account.updated', 'cli', 'contract'],
      ],
      'the refused second end writes nothing',
    );
    assert.deepEqual(rows[2]!.changes, { contract: { ended: contract.id } });
  });
});

describe('certsvc key', () => {
  it('key create --json shows the full key once, in the key format, and it authenticates', async () => {
    const accountId = await newAccount();
    const j = json(await certsvc('key', 'create', accountId, '--name', 'ci', '--json'), 'key create --json');
    assert.match(String(j.key), KEY);
    assert.ok(isWellFormedKey(String(j.key)), 'checksum is valid');
    assert.match(String(j.id), UUID);
    assert.equal(j.name, 'ci');
    assert.equal(j.prefix, String(j.key).slice(0, 17));
    assert.deepEqual(j.scopes, ['templates:read', 'certificates:read', 'certificates:write']);
    const principal = await deps.services.keys.authenticate(String(j.key));
    assert.equal(principal?.accountId, accountId);
    assert.equal(principal?.keyId, j.id);
  });

  it('key create --name holds the name to the rule the dashboard shows (plain text, 1-100)', async () => {
    const accountId = await newAccount();
    for (const name of ['x\u202Ey', 'tab\there', 'n'.repeat(101)]) {
      failed(
        await certsvc('key', 'create', accountId, '--name', name),
        `--name ${JSON.stringify(name)}`,
        /The name must/,
      );
    }
    assert.equal((await deps.services.keys.list(accountId)).length, 0, 'no key was made');
    const trimmed = json(await certsvc('key', 'create', accountId, '--name', '  LMS  ', '--json'), 'trimmed');
    assert.equal(trimmed.name, 'LMS');
  });

  it('key create (text) prints the key; --scopes limits the scopes', async () => {
    const accountId = await newAccount();
    const r = await certsvc('key', 'create', accountId, '--scopes', 'templates:read,certificates:read');
    ok(r, 'key create --scopes');
    const key = /(svc_live_[A-Za-z0-9]{32})/.exec(r.stdout)?.[1];
    assert.ok(key, r.stdout);
    assert.match(r.stdout, /\(templates:read, certificates:read\)/);
    const principal = await deps.services.keys.authenticate(key);
    assert.deepEqual(principal?.scopes, ['templates:read', 'certificates:read']);
  });

  it('key list shows prefixes, never the full key; key revoke stops the key', async () => {
    const accountId = await newAccount();
    const key = await deps.services.keys.create(accountId, { name: 'listed' });

    const list = await certsvc('key', 'list', accountId);
    ok(list, 'key list');
    assert.ok(list.stdout.includes(key.id));
    assert.ok(list.stdout.includes(key.prefix));
    assert.ok(!list.stdout.includes(key.key), 'the full key is not listed');
    assert.match(list.stdout, /last used never/);

    const listed = json(await certsvc('key', 'list', accountId, '--json'), 'key list --json');
    const data = listed.data as Record<string, unknown>[];
    assert.equal(data.length, 1);
    assert.equal(data[0]!.id, key.id);
    assert.equal(data[0]!.key, undefined);
    assert.ok(!JSON.stringify(listed).includes(key.key));

    assert.ok(await deps.services.keys.authenticate(key.key));
    const revoked = json(await certsvc('key', 'revoke', key.id, '--json'), 'key revoke');
    assert.equal(revoked.id, key.id);
    assert.ok(revoked.revokedAt);
    assert.equal(await deps.services.keys.authenticate(key.key), undefined, 'revoked key no longer works');
    assert.match((await certsvc('key', 'list', accountId)).stdout, /revoked \d{4}-/);
  });
});

describe('certsvc template', () => {
  it('template create from examples/designs/course-completion.json', async () => {
    const accountId = await newAccount();
    const j = json(
      await certsvc('template', 'create', accountId, '--file', DESIGN, '--json'),
      'template create',
    );
    assert.match(String(j.id), UUID);
    assert.equal(j.name, 'Course completion');
    assert.deepEqual(j.fields, [
      { key: 'course', label: 'Course title', required: true },
      { key: 'hours', label: 'Hours of instruction', required: false },
    ]);
    const stored = await deps.services.templates.get(accountId, String(j.id));
    assert.equal(stored.name, 'Course completion');

    const text = await certsvc(
      'template',
      'create',
      accountId,
      '--file',
      'examples/designs/course-completion.json',
    );
    ok(text, 'template create (relative path, text)');
    assert.match(text.stdout, /Created template Course completion: [0-9a-f-]{36}/);
  });

  it('template archive: the template is no longer active', async () => {
    const accountId = await newAccount();
    const tpl = await deps.services.templates.create(
      SYSTEM,
      accountId,
      JSON.parse(await readFile(DESIGN, 'utf8')) as unknown,
    );
    const r = await certsvc('template', 'archive', tpl.id);
    ok(r, 'template archive');
    assert.match(r.stdout, new RegExp(`Archived template ${tpl.id}`));
    await assert.rejects(deps.services.templates.get(accountId, tpl.id), /not found/);
  });

  it('template create with an invalid design: clear message, nothing created', async () => {
    const accountId = await newAccount();
    const dir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-design-'));
    try {
      const bad = path.join(dir, 'bad.json');
      const design = JSON.parse(await readFile(DESIGN, 'utf8')) as { elements: { text?: string }[] };
      design.elements.find((e) => e.text === '{{data.course}}')!.text = '{{data.nope}}';
      await writeFile(bad, JSON.stringify(design));
      failed(await certsvc('template', 'create', accountId, '--file', bad), 'bad design', /data\.nope/);
      failed(
        await certsvc('template', 'create', accountId, '--file', path.join(dir, 'missing.json')),
        'missing design file',
        /cannot read design file/,
      );
      const { rows } = await deps.db.query('SELECT count(*)::int AS n FROM templates WHERE account_id = $1', [
        accountId,
      ]);
      assert.equal(rows[0].n, 0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('template preview --file --out writes a PDF with the sample values', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-preview-'));
    try {
      const out = path.join(dir, 'preview.pdf');
      const r = await certsvc('template', 'preview', '--file', DESIGN, '--out', out);
      ok(r, 'template preview');
      assert.match(r.stdout, /Wrote .*preview\.pdf \(\d+ bytes/);
      const pdf = await readFile(out);
      assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
      const { stdout: text } = await execFileP('pdftotext', ['-enc', 'UTF-8', out, '-']);
      assert.match(text, /Certificate of Completion/);
      assert.match(text, /Zoë Ångström/); // the sample recipient
      // Realistic sample values, not the field labels (issue 18).
      assert.match(text, /Safe Lifting Techniques/);
      assert.match(text, /Hours of instruction: 12/);
      assert.doesNotMatch(text, /Course title/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it('template preview shows a design with its own font file, inlined from beside the design', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-preview-font-'));
    try {
      const fontDir = path.join(
        path.dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')),
        'ttf',
      );
      await copyFile(path.join(fontDir, 'DejaVuSansMono.ttf'), path.join(dir, 'brand.ttf'));
      const design = JSON.parse(await readFile(DESIGN, 'utf8')) as {
        fonts?: unknown;
        elements: { type: string; font?: string }[];
      };
      design.fonts = [{ name: 'brand', src: 'brand.ttf', fallback: 'serif-bold' }];
      for (const element of design.elements) if (element.type === 'text') element.font = 'brand';
      await writeFile(path.join(dir, 'design.json'), JSON.stringify(design));
      const out = path.join(dir, 'preview.pdf');
      ok(
        await certsvc('template', 'preview', '--file', path.join(dir, 'design.json'), '--out', out),
        'template preview',
      );
      const { stdout: fonts } = await execFileP('pdffonts', [out]);
      assert.match(fonts, /\+DejaVuSansMono /);
      assert.doesNotMatch(fonts, /DejaVuSerif/, 'every text is in the design font');
      const { stdout: text } = await execFileP('pdftotext', ['-enc', 'UTF-8', out, '-']);
      assert.match(text, /Zoë Ångström/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe(
  'certsvc: mistakes give a clear message on stderr, nothing on stdout, a non-zero exit',
  { concurrency: 4 },
  () => {
    const cases: [string, () => Promise<string[]>, RegExp][] = [
      [
        'unknown command',
        async () => ['acount', 'create'],
        /unknown command "acount"\. Did you mean "account"\?/,
      ],
      [
        'unknown subcommand',
        async () => ['key', 'crate', UNKNOWN_ID],
        /unknown command "key crate"\. Did you mean "key create"\?/,
      ],
      [
        'missing subcommand',
        async () => ['template'],
        /"template" needs a subcommand: create, list, show, update, archive, preview/,
      ],
      [
        'unknown option',
        async () => ['account', 'create', '--nam', 'X', '--plan', 'Business'],
        /Unknown option '--nam'/,
      ],
      ['missing --name', async () => ['account', 'create', '--plan', 'Business'], /--name is required/],
      ['missing --plan', async () => ['account', 'create', '--name', 'X'], /--plan is required/],
      [
        'unknown plan',
        async () => ['account', 'create', '--name', 'X', '--plan', 'Gold'],
        /Unknown plan "Gold" \(known: Free, Pro, Business\)/,
      ],
      [
        'unknown plan on set-plan',
        async () => ['account', 'set-plan', await newAccount(), 'Gold'],
        /Unknown plan "Gold"/,
      ],
      [
        'a non-UUID id',
        async () => ['account', 'set-plan', 'abc', 'Pro'],
        /ACCOUNT_ID must be a UUID, got "abc"/,
      ],
      ['a non-UUID key id', async () => ['key', 'revoke', '12345'], /KEY_ID must be a UUID/],
      [
        'unknown account on set-plan',
        async () => ['account', 'set-plan', UNKNOWN_ID, 'Pro'],
        /Account not found/,
      ],
      ['unknown account on key create', async () => ['key', 'create', UNKNOWN_ID], /Account not found/],
      [
        'unknown account on contract create',
        async () => ['contract', 'create', UNKNOWN_ID],
        /Account not found/,
      ],
      [
        'unknown account on template create',
        async () => ['template', 'create', UNKNOWN_ID, '--file', DESIGN],
        /Account not found/,
      ],
      ['unknown key on revoke', async () => ['key', 'revoke', UNKNOWN_ID], /API key not found/],
      ['unknown contract on end', async () => ['contract', 'end', UNKNOWN_ID], /Contract not found/],
      ['unknown template on archive', async () => ['template', 'archive', UNKNOWN_ID], /Template not found/],
      ['missing positional', async () => ['key', 'create'], /missing ACCOUNT_ID/],
      ['extra positional', async () => ['key', 'list', UNKNOWN_ID, 'extra'], /unexpected argument "extra"/],
      [
        'bad --monthly-limit',
        async () => ['account', 'create', '--name', 'X', '--plan', 'Pro', '--monthly-limit', '1.5'],
        /--monthly-limit must be a whole number/,
      ],
      [
        'negative --monthly-limit',
        async () => ['account', 'create', '--name', 'X', '--plan', 'Pro', '--monthly-limit=-5'],
        /--monthly-limit must be a whole number/,
      ],
      [
        'bad date',
        async () => ['contract', 'create', await newAccount(), '--starts', 'yesterday'],
        /--starts must be an ISO 8601 date/,
      ],
      [
        'impossible date',
        async () => ['contract', 'create', await newAccount(), '--ends', '2027-02-30'],
        /--ends must be an ISO 8601 date/,
      ],
      [
        'end before start',
        async () => [
          'contract',
          'create',
          await newAccount(),
          '--starts',
          '2027-01-01',
          '--ends',
          '2026-01-01',
        ],
        /end must be after the start/,
      ],
      [
        'unknown scope',
        async () => ['key', 'create', await newAccount(), '--scopes', 'templates:read,certificates:delete'],
        /Unknown scope: certificates:delete/,
      ],
      [
        'an empty --scopes (it would otherwise mean every scope)',
        async () => ['key', 'create', await newAccount(), '--scopes', ''],
        /--scopes must name at least one scope/,
      ],
      [
        'an empty entry in --scopes',
        async () => ['key', 'create', await newAccount(), '--scopes', 'templates:read,,'],
        /Unknown scope: \(empty\)/,
      ],
      [
        'template preview without --out',
        async () => ['template', 'preview', '--file', DESIGN],
        /--out is required/,
      ],
      [
        'an error with --json still prints nothing on stdout',
        async () => ['account', 'create', '--name', 'X', '--plan', 'Gold', '--json'],
        /Unknown plan/,
      ],
    ];
    for (const [what, args, message] of cases) {
      it(what, async () => {
        failed(await certsvc(...(await args())), what, message);
      });
    }
  },
);

describe('certsvc: after the mistakes', () => {
  it('nothing was created by the failed commands', async () => {
    const { rows } = await deps.db.query(`SELECT count(*)::int AS n FROM accounts WHERE name = 'X'`);
    assert.equal(rows[0].n, 0);
  });
});

describe('certsvc user create', () => {
  async function storedHash(email: string): Promise<string> {
    const { rows } = await deps.db.query<{ password_hash: string }>(
      'SELECT password_hash FROM users WHERE email = $1',
      [email],
    );
    return rows[0]!.password_hash;
  }

  it('generates a password, prints it once, and stores only its scrypt hash', async () => {
    const accountId = await newAccount();
    const email = `gen-${randomBytes(4).toString('hex')}@example.com`;
    const j = json(
      await runCli(['user', 'create', accountId, '--email', email.toUpperCase(), '--json'], env),
      'user create',
    );
    assert.match(String(j.id), UUID);
    assert.equal(j.email, email);
    assert.equal(j.accountId, accountId);
    assert.match(String(j.password), /^[A-Za-z0-9]{20}$/);
    const hash = await storedHash(email);
    assert.doesNotMatch(hash, new RegExp(String(j.password)));
    assert.equal(await verifyPassword(String(j.password), hash), true);
    assert.equal(await verifyPassword('wrong password!', hash), false);
  });

  it('reads the password from standard input', async () => {
    const accountId = await newAccount();
    const email = `stdin-${randomBytes(4).toString('hex')}@example.com`;
    const r = await runCli(
      ['user', 'create', accountId, '--email', email, '--json'],
      env,
      'correct horse battery staple\n',
    );
    const j = json(r, 'user create with stdin');
    assert.equal(j.password, undefined, 'a given password is never printed');
    assert.equal(await verifyPassword('correct horse battery staple', await storedHash(email)), true);
  });

  it('refuses a short password, a bad email, a taken email and an unknown account', async () => {
    const accountId = await newAccount();
    const email = `dup-${randomBytes(4).toString('hex')}@example.com`;
    failed(
      await runCli(['user', 'create', accountId, '--email', email], env, 'short\n'),
      'short password',
      /at least 12/,
    );
    failed(
      await certsvc('user', 'create', accountId, '--email', 'not-an-email'),
      'bad email',
      /not a valid email/,
    );
    ok(await certsvc('user', 'create', accountId, '--email', email), 'first user');
    failed(await certsvc('user', 'create', accountId, '--email', email), 'taken email', /already exists/);
    failed(
      await certsvc('user', 'create', '01a1fc9b-c0f0-7000-9deb-02e3c196834a', '--email', 'x@example.com'),
      'unknown account',
      /not found/i,
    );
    failed(await certsvc('user', 'create', accountId), 'missing --email', /--email is required/);
  });
});

describe('certsvc demo', () => {
  it('on a database that has accounts: refused', async () => {
    await newAccount();
    failed(await certsvc('demo'), 'demo on a non-empty database', /only runs on an empty database/);
  });

  // A fresh, empty database on the test server, dropped afterwards.
  async function withFreshDatabase(fn: (url: string) => Promise<void>) {
    const name = `certsvc_cli_demo_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
      const url = new URL(testDatabaseUrl());
      url.pathname = `/${name}`;
      await fn(url.toString());
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  }

  it('on a fresh database: prints the key and the curl commands to try', async () => {
    await withFreshDatabase(async (url) => {
      const r = await runCli(
        ['demo'],
        cliEnv({ DATABASE_URL: url, DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://certs.example:8080' }),
      );
      ok(r, 'demo');
      const key = /API key .*: (svc_live_[A-Za-z0-9]{32})/.exec(r.stdout)?.[1];
      assert.ok(key && isWellFormedKey(key), r.stdout);
      assert.match(r.stdout, /Demo account: .* \(Business\)/);
      assert.match(r.stdout, /Template: Course completion [0-9a-f-]{36}/);
      const curls = r.stdout.split('\n').filter((l) => l.trim().startsWith('curl '));
      assert.ok(curls.length >= 3, r.stdout);
      assert.ok(
        curls.some(
          (c) => c.includes(`Bearer ${key}`) && c.includes('http://certs.example:8080/api/v1/templates'),
        ),
      );
      assert.ok(curls.some((c) => c.includes('http://certs.example:8080/api/v1/certificates')));
      // A second demo on the same database is refused.
      failed(
        await runCli(['demo'], cliEnv({ DATABASE_URL: url, DATA_DIR: dataDir })),
        'second demo',
        /empty database/,
      );
    });
  });

  it('--json: one object with id, key and template; the key works on that account', async () => {
    await withFreshDatabase(async (url) => {
      const j = json(
        await runCli(['demo', '--json'], cliEnv({ DATABASE_URL: url, DATA_DIR: dataDir })),
        'demo --json',
      );
      assert.match(String(j.id), UUID);
      assert.match(String(j.key), KEY);
      const template = j.template as { id: string; name: string };
      assert.match(template.id, UUID);
      assert.equal(template.name, 'Course completion');
      assert.ok(Array.isArray(j.curl) && (j.curl as string[]).every((c) => c.startsWith('curl ')));

      const config = loadConfig({ DATABASE_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
      const demoDeps = await createDeps(config, { logger: createLogger(config) });
      try {
        const principal = await demoDeps.services.keys.authenticate(String(j.key));
        assert.equal(principal?.accountId, j.id);
        assert.equal(principal?.plan, 'Business');
        assert.equal(principal?.entitled, true);
        assert.equal((await demoDeps.services.templates.get(String(j.id), template.id)).id, template.id);
        // ... and a sample certificate issued from that template, verifiable by its code.
        const sample = j.certificate as { id: string; uniqueCode: string; verificationUrl: string };
        const cert = await demoDeps.services.certificates.get(String(j.id), sample.id);
        assert.equal(cert.templateId, template.id);
        assert.equal(cert.status, 'Issued');
        assert.equal(sample.verificationUrl, `${config.publicBaseUrl}/verify/${sample.uniqueCode}`);
        assert.equal((await demoDeps.services.verify.verify(sample.uniqueCode)).valid, true);
      } finally {
        await demoDeps.close();
      }
    });
  });
});
