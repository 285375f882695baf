import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { recordAudit, type AuditInput } from '../../src/modules/audit/audit-log.js';
import { canonicalJson } from '../../src/modules/audit/audit-chain.js';
import { SYSTEM, type Doer } from '../../src/platform/principal.js';
import { startTestApp, testDatabaseUrl, type TestApp } from '../helpers/app.js';

const ALICE: Doer = {
  actor: { type: 'user', id: '0190f0a0-0000-7000-8000-000000000001', label: 'alice@example.com' },
  origin: { ip: '192.0.2.7', requestId: 'req-1' },
};

describe('audit trail: the chain', () => {
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

  async function accountWithEvents(n: number) {
    const account = await t.deps.services.accounts.create({ name: 'Chain Academy', plan: 'Business' });
    const now = new Date('2026-11-27T10:00:00.123Z');
    for (let i = 0; i < n; i += 2) {
      await recordAudit(
        t.deps.db,
        account.id,
        i % 4 === 0 ? ALICE : SYSTEM,
        (
          [
            {
              action: 'template.saved',
              target: { type: 'template', id: `t${i}` },
              changes: { name: `v${i}` },
            },
            { action: 'certificate.issued', target: { type: 'certificate', id: `c${i}` } },
          ] satisfies AuditInput[]
        ).slice(0, Math.min(2, n - i)),
        now,
      );
    }
    return account.id;
  }

  // As a superuser who switches the append-only trigger off for one statement.
  async function tamper(sql: string, values: unknown[]) {
    await superuser.query('BEGIN');
    await superuser.query("SET LOCAL session_replication_role = 'replica'");
    await superuser.query(sql, values);
    await superuser.query('COMMIT');
  }

  it('canonical JSON sorts keys by code unit and keeps ECMAScript numbers and strings', () => {
    assert.equal(
      canonicalJson({ b: 1, a: [true, null, 'é\u2028'], A: { z: 1e21, y: 0.5 } }),
      '{"A":{"y":0.5,"z":1e+21},"a":[true,null,"é\u2028"],"b":1}',
    );
  });

  it('appends events in order, chained, and the whole chain verifies', async () => {
    const accountId = await accountWithEvents(5);
    const check = await t.deps.services.audit.verify(accountId);
    assert.deepEqual(check, { ok: true, events: 5 });
    const { rows } = await superuser.query(
      'SELECT seq, actor_type, actor_label, ip, request_id, action FROM audit_events WHERE account_id = $1 ORDER BY seq',
      [accountId],
    );
    assert.deepEqual(
      rows.map((r) => Number(r.seq)),
      [1, 2, 3, 4, 5],
    );
    assert.equal(rows[0].actor_label, 'alice@example.com');
    assert.equal(rows[0].ip, '192.0.2.7');
    assert.equal(rows[2].actor_type, 'system');
  });

  it('the service cannot update, delete or truncate an event', async () => {
    const accountId = await accountWithEvents(1);
    await assert.rejects(
      t.deps.db.query("UPDATE audit_events SET action = 'x' WHERE account_id = $1", [accountId]),
      /append-only/,
    );
    await assert.rejects(
      t.deps.db.query('DELETE FROM audit_events WHERE account_id = $1', [accountId]),
      /append-only/,
    );
    await assert.rejects(t.deps.db.query('TRUNCATE audit_events'), /append-only/);
  });

  it('names an edited event', async () => {
    const accountId = await accountWithEvents(4);
    await tamper(`UPDATE audit_events SET changes = '{"name":"forged"}' WHERE account_id = $1 AND seq = 3`, [
      accountId,
    ]);
    const check = await t.deps.services.audit.verify(accountId);
    assert.equal(check.ok, false);
    assert.ok(!check.ok && check.broken.seq === 3 && /changed/.test(check.broken.problem));
  });

  it('names a deleted event, a deleted tail and swapped events', async () => {
    const middle = await accountWithEvents(4);
    await tamper('DELETE FROM audit_events WHERE account_id = $1 AND seq = 2', [middle]);
    const a = await t.deps.services.audit.verify(middle);
    assert.ok(!a.ok && a.broken.seq === 3 && /event 2 is missing/.test(a.broken.problem), JSON.stringify(a));

    const tail = await accountWithEvents(4);
    await tamper('DELETE FROM audit_events WHERE account_id = $1 AND seq = 4', [tail]);
    const b = await t.deps.services.audit.verify(tail);
    assert.ok(!b.ok && b.broken.seq === 4 && /deleted/.test(b.broken.problem), JSON.stringify(b));

    const swapped = await accountWithEvents(4);
    for (const [from, to] of [
      [2, 1000],
      [3, 2],
      [1000, 3],
    ]) {
      await tamper('UPDATE audit_events SET seq = $2 WHERE account_id = $1 AND seq = $3', [
        swapped,
        to,
        from,
      ]);
    }
    const c = await t.deps.services.audit.verify(swapped);
    assert.ok(!c.ok && c.broken.seq === 2, JSON.stringify(c));
  });

  it('concurrent appends of one account stay one chain', async () => {
    const account = await t.deps.services.accounts.create({ name: 'Busy Academy', plan: 'Business' });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.deps.db.transaction((tx) =>
          recordAudit(
            tx,
            account.id,
            SYSTEM,
            [{ action: 'certificate.issued' }, { action: 'certificate.sent' }],
            new Date(Date.UTC(2026, 10, 27, 0, 0, i)),
          ),
        ),
      ),
    );
    assert.deepEqual(await t.deps.services.audit.verify(account.id), { ok: true, events: 40 });
  });
});
