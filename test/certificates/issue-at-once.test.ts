import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { uniqueCode, uuidv7 } from '../../src/platform/ids.js';
import {
  CREDENTIAL_ENTRY_KEY,
  issueAtOnce,
  NO_ROOM,
  type IssueAtOnce,
} from '../../src/modules/certificates/issue.repository.js';
import { NOTIFY_CHANNEL } from '../../src/modules/emails/emails.repository.js';
import { isoDate, periodStart } from '../../src/modules/usage/period.js';
import {
  createTenant,
  issueCertificate,
  startTestApp,
  testDatabaseUrl,
  type Tenant,
  type TestApp,
} from '../helpers/app.js';

// A single issue is written with one statement (issue.repository.ts issueAtOnce): all of it or nothing,
// and nothing at all whenever one of its steps finds no room, so that the usual transaction can take
// over. Each case here is one the statement must refuse without leaving anything behind.

type Row = Record<string, unknown>;

describe('a single issue in one statement', () => {
  let t: TestApp;
  let tenant: Tenant;
  // What a first issue made: the account's key, PDF certificate, status list and usage row, and a
  // real credential and signed PDF whose bytes the statements below write again (the suite's pdfsig
  // sweep checks every PDF it leaves).
  let first: { keyId: string; signedBy: string; credential: Buffer; pdf: Buffer; list: number };

  before(async () => {
    t = await startTestApp();
    tenant = await createTenant(t.deps, { monthlyLimit: 100, name: 'At Once Academy' });
    const c = await issueCertificate(t.app, tenant);
    const { rows } = await t.deps.db.query(
      `SELECT cr.signing_key_id, cr.body, cr.status_list, p.pdf, p.signed_by
         FROM credentials cr JOIN certificate_pdfs p USING (certificate_id) WHERE certificate_id = $1`,
      [c.id],
    );
    const r = rows[0]!;
    first = {
      keyId: r.signing_key_id,
      signedBy: r.signed_by,
      credential: r.body,
      pdf: r.pdf,
      list: r.status_list,
    };
  });
  after(async () => {
    await t?.close();
  });

  const now = new Date();
  // An entry no other test of this file takes, and an index free for each call.
  let nextIndex = 70_000;
  function input(over: Partial<IssueAtOnce> = {}): IssueAtOnce {
    const id = uuidv7();
    return {
      accountId: tenant.accountId,
      templateId: tenant.templateId,
      templateVersion: 1,
      issuedAt: now,
      period: isoDate(periodStart(now)),
      limit: 100,
      audit: [],
      item: {
        id,
        uniqueCode: uniqueCode(),
        recipientName: 'Grace Hopper',
        recipientEmail: 'grace@example.com',
        title: 'Compilers',
        data: { course: 'Compilers' },
        expiresAt: null,
        reminders: [],
        nextReminderAt: null,
      },
      credential: {
        statusList: first.list,
        statusIndex: nextIndex++,
        signingKeyId: first.keyId,
        body: first.credential,
      },
      pdf: {
        pdf: first.pdf,
        sha256: createHash('sha256').update(first.pdf).digest('hex'),
        signedBy: first.signedBy,
      },
      ...over,
    };
  }

  // Everything the statement writes to, for this account.
  async function state(): Promise<Row> {
    const { rows } = await t.deps.db.query(
      `SELECT (SELECT used FROM usage_periods WHERE account_id = $1 AND period_start = $2) AS usage,
              (SELECT used FROM status_lists WHERE account_id = $1 AND n = $3) AS list,
              (SELECT count(*) FROM certificates WHERE account_id = $1) AS certificates,
              (SELECT count(*) FROM credentials WHERE account_id = $1) AS credentials,
              (SELECT count(*) FROM certificate_pdfs p JOIN certificates c ON c.id = p.certificate_id
                WHERE c.account_id = $1) AS pdfs,
              (SELECT count(*) FROM email_sends WHERE account_id = $1) AS emails`,
      [tenant.accountId, isoDate(periodStart(now)), first.list],
    );
    return rows[0]!;
  }
  const plus = (s: Row, d: Partial<Record<keyof Row, number>>) =>
    Object.fromEntries(Object.entries(s).map(([k, v]) => [k, (v as number) + (d[k] ?? 0)]));

  it('writes the certificate, its credential, its PDF, its quota and its status entry together', async () => {
    const before = await state();
    const i = input();
    const row = await issueAtOnce(t.deps.db, i);
    assert.ok(row);
    assert.equal(row.id, i.item.id);
    assert.equal(row.status, 'Issued');
    assert.equal(row.email_count, 0);
    assert.deepEqual(row.data, { course: 'Compilers' });
    assert.deepEqual(
      await state(),
      plus(before, { usage: 1, list: 1, certificates: 1, credentials: 1, pdfs: 1 }),
    );
    const { rows } = await t.deps.db.query(
      `SELECT c.search_name, c.template_version, c.issued_at, cr.status_index, p.sha256
         FROM certificates c JOIN credentials cr ON cr.certificate_id = c.id JOIN certificate_pdfs p ON p.certificate_id = c.id
        WHERE c.id = $1`,
      [i.item.id],
    );
    assert.deepEqual(rows[0], {
      search_name: 'grace hopper',
      template_version: 1,
      issued_at: now,
      status_index: i.credential.statusIndex,
      sha256: i.pdf.sha256,
    });
  });

  it('queues the certificate email with it, counted, and wakes the email worker', async () => {
    const listener = new pg.Client({ connectionString: testDatabaseUrl() });
    await listener.connect();
    try {
      const notified = new Promise<string>((resolve) =>
        listener.once('notification', (n) => resolve(n.channel)),
      );
      await listener.query(`LISTEN ${NOTIFY_CHANNEL}`);
      const before = await state();
      const emailId = uuidv7();
      const row = await issueAtOnce(t.deps.db, input({ emailId }));
      assert.equal(row?.email_count, 1);
      assert.equal(await notified, NOTIFY_CHANNEL);
      assert.deepEqual(
        await state(),
        plus(before, { usage: 1, list: 1, certificates: 1, credentials: 1, pdfs: 1, emails: 1 }),
      );
      const { rows } = await t.deps.db.query(
        'SELECT certificate_id, status, recipient_email FROM email_sends WHERE id = $1',
        [emailId],
      );
      assert.deepEqual(rows[0], {
        certificate_id: row!.id,
        status: 'queued',
        recipient_email: 'grace@example.com',
      });
    } finally {
      await listener.end();
    }
  });

  it('writes nothing and answers no certificate when the quota has no room', async () => {
    const before = await state();
    const full = before.usage as number;
    assert.equal(await issueAtOnce(t.deps.db, input({ limit: full })), undefined);
    assert.deepEqual(await state(), before);
  });

  it('writes nothing when the period has no usage row yet (the first issue of a month)', async () => {
    const before = await state();
    assert.equal(await issueAtOnce(t.deps.db, input({ period: '2099-01-01' })), undefined);
    assert.deepEqual(await state(), before);
  });

  it('takes nothing back but fails, undone, when the quota had room and the status list none', async () => {
    const before = await state();
    await t.deps.db.query('UPDATE status_lists SET used = 65536 WHERE account_id = $1 AND n = $2', [
      tenant.accountId,
      first.list,
    ]);
    try {
      await assert.rejects(issueAtOnce(t.deps.db, input()), (err: pg.DatabaseError) => err.code === NO_ROOM);
      assert.deepEqual(
        await state(),
        { ...before, list: 65536 },
        'the quota taken by the statement is given back',
      );
    } finally {
      await t.deps.db.query('UPDATE status_lists SET used = $3 WHERE account_id = $1 AND n = $2', [
        tenant.accountId,
        first.list,
        before.list,
      ]);
    }
  });

  it('fails, undone, when another issue took its status entry meanwhile', async () => {
    const taken = input();
    assert.ok(await issueAtOnce(t.deps.db, taken));
    const before = await state();
    const again = input({ credential: { ...input().credential, statusIndex: taken.credential.statusIndex } });
    await assert.rejects(
      issueAtOnce(t.deps.db, again),
      (err: pg.DatabaseError) => err.code === '23505' && err.constraint === CREDENTIAL_ENTRY_KEY,
    );
    assert.deepEqual(await state(), before);
  });

  it('within a transaction, fails alone: the transaction goes on and commits the rest', async () => {
    const before = await state();
    const kept = await t.deps.db.transaction(async () => {
      const a = input();
      const row = await issueAtOnce(t.deps.db, a);
      const again = input({ credential: { ...input().credential, statusIndex: a.credential.statusIndex } });
      await assert.rejects(issueAtOnce(t.deps.db, again), (err: pg.DatabaseError) => err.code === '23505');
      return row?.id;
    });
    assert.ok(kept);
    assert.deepEqual(
      await state(),
      plus(before, { usage: 1, list: 1, certificates: 1, credentials: 1, pdfs: 1 }),
    );
  });

  it('within an idempotent request (an ambient transaction), likewise, committed with its answer', async () => {
    const before = await state();
    let answered = false;
    const kept = await t.deps.db.ambient(
      async () => {
        const a = input();
        const row = await issueAtOnce(t.deps.db, a);
        const again = input({ credential: { ...input().credential, statusIndex: a.credential.statusIndex } });
        await assert.rejects(issueAtOnce(t.deps.db, again), (err: pg.DatabaseError) => err.code === '23505');
        return row?.id;
      },
      async (tx, id) => {
        // The answer is stored in the same transaction: it sees the certificate.
        const { rows } = await tx.query('SELECT count(*)::int AS n FROM certificates WHERE id = $1', [id]);
        answered = rows[0]!.n === 1;
      },
    );
    assert.ok(kept);
    assert.equal(answered, true);
    assert.deepEqual(
      await state(),
      plus(before, { usage: 1, list: 1, certificates: 1, credentials: 1, pdfs: 1 }),
    );
  });

  it('beside a revocation that holds the list counts and wants the status list, both finish (same lock order)', async () => {
    // A revocation changes the certificate first (its trigger locks the account's list counts), then
    // sets its status bit (the status list row): the statement must take the two in that order too.
    const victim = await issueCertificate(t.app, tenant);
    const waiting = async () => {
      for (let i = 0; i < 100; i++) {
        const { rows } = await t.deps.db.pool.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()`,
        );
        if (rows[0]!.n > 0) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error('the single issue never waited for the revocation');
    };
    const before = await state();
    // The revocation on a connection of its own, the single issue outside it.
    const revocation = await t.deps.db.pool.connect();
    let issued: Promise<unknown>;
    try {
      await revocation.query('BEGIN');
      await revocation.query(`UPDATE certificates SET status = 'Revoked', revoked_at = now() WHERE id = $1`, [
        victim.id,
      ]);
      issued = issueAtOnce(t.deps.db, input());
      issued.catch(() => undefined);
      await waiting();
      await t.deps.services.proof.revoke(revocation, tenant.accountId, victim.id);
      await revocation.query('COMMIT');
    } finally {
      revocation.release();
    }
    assert.ok(await issued);
    assert.deepEqual(
      await state(),
      plus(before, { usage: 1, list: 1, certificates: 1, credentials: 1, pdfs: 1 }),
    );
  });

  it('the API issues single certificates this way, and the usual way when the status list is full', async () => {
    const other = await createTenant(t.deps, { name: 'Full List Institute' });
    await issueCertificate(t.app, other); // list 0 and the month's usage row made the usual way
    await issueCertificate(t.app, other);
    // The statement is prepared on the connection that ran it: one of the pool's.
    const clients = await Promise.all(
      Array.from({ length: t.deps.db.pool.idleCount }, () => t.deps.db.pool.connect()),
    );
    const names = new Set<string>();
    for (const client of clients) {
      for (const r of (await client.query('SELECT name FROM pg_prepared_statements')).rows) names.add(r.name);
      client.release();
    }
    assert.ok(names.has('issue-at-once'), [...names].join(', '));

    await t.deps.db.query('UPDATE status_lists SET used = 65536 WHERE account_id = $1 AND n = 0', [
      other.accountId,
    ]);
    const c = await issueCertificate(t.app, other);
    const { rows } = await t.deps.db.query(
      `SELECT cr.status_list, (SELECT used FROM usage_periods WHERE account_id = $2) AS usage
         FROM credentials cr WHERE certificate_id = $1`,
      [c.id, other.accountId],
    );
    assert.deepEqual(rows[0], { status_list: 1, usage: 3 });
  });
});
