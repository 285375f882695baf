import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { parse } from 'csv-parse/sync';
import { recordAudit } from '../../src/modules/audit/audit-log.js';
import type { Doer } from '../../src/platform/principal.js';
import {
  createTenant,
  issueCertificate,
  startTestApp,
  testDatabaseUrl,
  type TestApp,
} from '../helpers/app.js';
import { cliEnv, runCli } from '../cli/run-cli.js';
import { signedInMember } from '../dashboard/form-client.js';

// The audit trail's doors: GET /api/v1/audit-events (scope audit:read), Settings > Audit log and its
// CSV export, and `certsvc audit verify` after a superuser edits a row.

const AUDITOR = ['templates:read', 'certificates:read', 'certificates:write', 'audit:read'];
const ALICE: Doer = {
  actor: { type: 'user', id: '0190f0a0-0000-7000-8000-00000000a11c', label: 'alice@example.com' },
  origin: { ip: '192.0.2.7', requestId: 'req-a' },
};
const BOB: Doer = { actor: { type: 'cli', id: null, label: 'bob' } };

describe('audit trail: API, dashboard, CLI', () => {
  let t: TestApp;
  let superuser: pg.Client;
  before(async () => {
    t = await startTestApp();
    superuser = new pg.Client({ connectionString: testDatabaseUrl() });
    await superuser.connect();
  });
  after(async () => {
    await superuser.end();
    await t.close();
  });

  const list = (auth: Record<string, string>, query = '') =>
    t.app.inject({ method: 'GET', url: `/api/v1/audit-events${query}`, headers: auth });

  // An account with events at known times: 3 of Alice's, 2 of Bob's.
  async function seeded() {
    const seededTenant = await createTenant(t.deps, { scopes: AUDITOR });
    const base = await list(seededTenant.auth);
    const before = base.json().pagination.total as number;
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute));
    for (let i = 0; i < 3; i++) {
      await recordAudit(
        t.deps.db,
        seededTenant.accountId,
        ALICE,
        [{ action: 'certificate.revoked', target: { type: 'certificate', id: `c${i}` }, changes: { i } }],
        at(i),
      );
    }
    await recordAudit(
      t.deps.db,
      seededTenant.accountId,
      BOB,
      [
        { action: 'template.saved', changes: { formula: '=HYPERLINK("x")' } },
        { action: 'template.archived' },
      ],
      at(10),
    );
    return { tenant: seededTenant, before };
  }

  it('refuses a key without audit:read with the contract error; a key made without --scopes lacks it', async () => {
    const plain = await createTenant(t.deps);
    const key = (await t.deps.services.keys.list(plain.accountId))[0]!;
    assert.deepEqual(key.scopes, ['templates:read', 'certificates:read', 'certificates:write']);
    const res = await list(plain.auth);
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'insufficient_scope');
    const none = await t.app.inject({ method: 'GET', url: '/api/v1/audit-events' });
    assert.equal(none.statusCode, 401);
  });

  it('lists events newest first, paginated, with the decisions-21 shape, only the account’s own', async () => {
    const { tenant: mine, before } = await seeded();
    await seeded(); // another account's events
    const all = (await list(mine.auth, '?perPage=100')).json();
    assert.equal(all.pagination.total, before + 5);
    const ours = all.data.filter((e: { actor: { label: string } }) =>
      ['alice@example.com', 'bob'].includes(e.actor.label),
    );
    assert.equal(ours.length, 5);
    assert.deepEqual(
      ours.map((e: { action: string }) => e.action),
      [
        'template.archived',
        'template.saved',
        'certificate.revoked',
        'certificate.revoked',
        'certificate.revoked',
      ],
    );
    const first = ours.find((e: { action: string }) => e.action === 'certificate.revoked');
    assert.deepEqual(Object.keys(first).sort(), [
      'action',
      'actor',
      'changes',
      'id',
      'ip',
      'occurredAt',
      'requestId',
      'target',
    ]);
    assert.deepEqual(first.actor, ALICE.actor);
    assert.equal(first.ip, '192.0.2.7');
    assert.equal(first.requestId, 'req-a');
    assert.equal(first.occurredAt, '2026-11-20T10:02:00.000Z');
    // Newest first throughout.
    const times = all.data.map((e: { occurredAt: string }) => e.occurredAt);
    assert.deepEqual(times, [...times].sort().reverse());

    const p2 = (await list(mine.auth, '?perPage=2&page=2')).json();
    assert.deepEqual(p2.pagination, {
      page: 2,
      perPage: 2,
      total: before + 5,
      totalPages: Math.ceil((before + 5) / 2),
    });
    assert.deepEqual(
      p2.data.map((e: { id: string }) => e.id),
      all.data.slice(2, 4).map((e: { id: string }) => e.id),
    );
    // Every id is this account's: the other account's events never show.
    const { rows } = await superuser.query('SELECT id FROM audit_events WHERE account_id <> $1', [
      mine.accountId,
    ]);
    const foreign = new Set(rows.map((r) => r.id));
    assert.ok(all.data.every((e: { id: string }) => !foreign.has(e.id)));
  });

  it('filters by action, actor (id or label), from and to; bad values are a 422', async () => {
    const { tenant: mine } = await seeded();
    const get = async (q: string) => (await list(mine.auth, q)).json();
    assert.equal((await get('?action=certificate.revoked')).pagination.total, 3);
    assert.equal((await get('?actor=bob')).pagination.total, 2);
    assert.equal((await get(`?actor=${ALICE.actor.id}`)).pagination.total, 3);
    assert.equal((await get('?from=2026-11-20T10:01:00Z&to=2026-11-20T10:02:00Z')).pagination.total, 2);
    assert.equal((await get('?actor=alice@example.com&from=2026-11-20T10:05:00Z')).pagination.total, 0);
    for (const q of [
      '?from=yesterday',
      '?to=2026-13-01T00:00:00Z',
      '?action=certificate.eaten',
      '?perPage=0',
    ]) {
      const res = await list(mine.auth, q);
      assert.equal(res.statusCode, 422, q);
      assert.equal(res.json().error.code, 'validation_error', q);
    }
  });

  it('Settings > Audit log lists and filters the events; Export CSV neutralises formulas and is recorded', async () => {
    const { tenant: mine } = await seeded();
    const client = await signedInMember(t, mine.accountId);
    const page = await client.get('/dashboard/settings/audit?who=bob');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<h1>Audit log<\/h1>/);
    assert.match(page.body, /template\.saved/);
    assert.doesNotMatch(page.body, /certificate\.revoked<\/td>/);
    assert.match(page.body, /Export CSV/);
    assert.match(page.body, /aria-current="page">Audit log/);

    const bad = await client.get('/dashboard/settings/audit?from=not-a-date');
    assert.equal(bad.statusCode, 422);
    assert.match(bad.body, /is not a date/);

    const before = await superuser.query(
      "SELECT count(*)::int AS n FROM audit_events WHERE account_id = $1 AND action = 'audit.exported'",
      [mine.accountId],
    );
    const csv = await client.get('/dashboard/settings/audit.csv?who=bob&from=2026-11-20&to=2026-11-20');
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /text\/csv/);
    const rows = parse(csv.body.replace(/^\uFEFF/, ''), { columns: true }) as Record<string, string>[];
    assert.deepEqual(rows.map((r) => r.action).sort(), ['template.archived', 'template.saved']);
    const saved = rows.find((r) => r.action === 'template.saved')!;
    assert.equal(saved.actor_label, 'bob');
    assert.equal(JSON.parse(saved.changes!).formula, '=HYPERLINK("x")');
    // A cell that would start with = + - @ is written as text.
    await recordAudit(
      t.deps.db,
      mine.accountId,
      { actor: { type: 'cli', id: null, label: '=cmd' } },
      [{ action: 'template.saved' }],
      new Date('2026-11-20T11:00:00Z'),
    );
    const csv2 = await client.get('/dashboard/settings/audit.csv?who=%3Dcmd');
    const rows2 = parse(csv2.body.replace(/^\uFEFF/, ''), { columns: true }) as Record<string, string>[];
    assert.equal(rows2[0]!.actor_label, "'=cmd");

    const { rows: exported } = await superuser.query(
      "SELECT actor_type, actor_label, changes FROM audit_events WHERE account_id = $1 AND action = 'audit.exported' ORDER BY seq",
      [mine.accountId],
    );
    assert.equal(exported.length, before.rows[0].n + 2);
    assert.equal(exported[0].actor_type, 'user');
    assert.deepEqual(exported[0].changes, {
      actor: 'bob',
      from: '2026-11-20T00:00:00.000Z',
      to: '2026-11-20T23:59:59.999Z',
    });
    const refused = await client.get('/dashboard/settings/audit.csv?action=nope');
    assert.equal(refused.statusCode, 422);
    // Text the database cannot hold is a clear refusal, not a 500.
    for (const url of ['/dashboard/settings/audit?who=%00', '/dashboard/settings/audit.csv?who=a%00b']) {
      assert.equal((await client.get(url)).statusCode, 422, url);
    }
  });

  it('certsvc audit verify: exit 0 with the count; after a superuser edits a row, exit 1 naming it', async () => {
    const mine = await createTenant(t.deps, { scopes: AUDITOR });
    await issueCertificate(t.app, mine);
    await recordAudit(
      t.deps.db,
      mine.accountId,
      ALICE,
      [{ action: 'template.saved' }, { action: 'template.archived' }],
      new Date(),
    );
    const env = cliEnv({ DATABASE_URL: testDatabaseUrl() });
    const good = await runCli(['audit', 'verify', mine.accountId, '--json'], env);
    assert.equal(good.code, 0, good.stderr);
    const n = (
      await superuser.query('SELECT count(*)::int AS n FROM audit_events WHERE account_id = $1', [
        mine.accountId,
      ])
    ).rows[0].n;
    assert.deepEqual(JSON.parse(good.stdout), { ok: true, events: n });
    const human = await runCli(['audit', 'verify', mine.accountId], env);
    assert.equal(human.code, 0);
    assert.match(human.stdout, /holds: \d+ events/);

    const { rows } = await superuser.query(
      'SELECT id, seq FROM audit_events WHERE account_id = $1 ORDER BY seq DESC LIMIT 1 OFFSET 1',
      [mine.accountId],
    );
    await superuser.query('BEGIN');
    await superuser.query("SET LOCAL session_replication_role = 'replica'");
    await superuser.query(`UPDATE audit_events SET actor_label = 'mallory@example.com' WHERE id = $1`, [
      rows[0].id,
    ]);
    await superuser.query('COMMIT');
    const broken = await runCli(['audit', 'verify', mine.accountId, '--json'], env);
    assert.equal(broken.code, 1);
    const out = JSON.parse(broken.stdout);
    assert.equal(out.ok, false);
    assert.equal(out.broken.id, rows[0].id);
    assert.equal(out.broken.seq, Number(rows[0].seq));
    const words = await runCli(['audit', 'verify', mine.accountId], env);
    assert.equal(words.code, 1);
    assert.match(
      words.stdout,
      new RegExp(`broken at event ${rows[0].seq} \\(${rows[0].id}\\): was changed after it was written`),
    );
  });
});
