import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Deps } from '../../src/deps.js';
import type { Tenant } from '../helpers/app.js';
import { recipients } from './support.js';
import { freePort } from '../../src/platform/net.js';
import { crashSetting, killHard, startServer as startServerProcess } from '../helpers/server-process.js';

// docs/api.md, Certificates: every certificate is committed together with its frozen PDF, also after a crash;
// and the quota used always equals the certificates that exist. The real server is killed with
// SIGKILL while batches are in flight, then restarted on the same database.

let deps: Deps;
let tenant: Tenant;
let databaseUrl: string;
let dataDir: string;
let children: Set<ChildProcess>;
let close: (() => Promise<void>) | undefined;

const startServer = (port: number) => startServerProcess({ port, databaseUrl, dataDir, children });

before(async () => {
  ({ deps, tenant, databaseUrl, dataDir, children, close } = await crashSetting('crash'));
});

after(async () => {
  await close?.();
});

async function state() {
  const { rows } = await deps.db.query<{
    certificates: number;
    with_pdf: number;
    without_pdf: number;
    without_credential: number;
    unsigned_pdf: number;
    used: number;
  }>(
    `SELECT (SELECT count(*)::int FROM certificates WHERE account_id = $1) AS certificates,
            (SELECT count(*)::int FROM certificates c JOIN certificate_pdfs p ON p.certificate_id = c.id
              WHERE c.account_id = $1 AND length(p.pdf) > 0) AS with_pdf,
            (SELECT count(*)::int FROM certificates c WHERE NOT EXISTS
              (SELECT 1 FROM certificate_pdfs p WHERE p.certificate_id = c.id)) AS without_pdf,
            (SELECT count(*)::int FROM certificates c WHERE c.account_id = $1 AND NOT EXISTS
              (SELECT 1 FROM credentials cr WHERE cr.certificate_id = c.id)) AS without_credential,
            (SELECT count(*)::int FROM certificates c JOIN certificate_pdfs p ON p.certificate_id = c.id
              WHERE c.account_id = $1 AND (p.signed_by IS NULL OR position('/ETSI.CAdES.detached'::bytea IN p.pdf) = 0
                OR position('(credential.json)'::bytea IN p.pdf) = 0)) AS unsigned_pdf,
            (SELECT coalesce(sum(used), 0)::int FROM usage_periods WHERE account_id = $1) AS used`,
    [tenant.accountId],
  );
  return rows[0]!;
}

async function writing(): Promise<boolean> {
  const { rows } = await deps.db.query<{ busy: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
                     WHERE datname = current_database() AND pid <> pg_backend_pid()
                       AND (state = 'idle in transaction' OR query ILIKE 'INSERT INTO certificate%' OR query ILIKE 'SELECT used FROM usage_periods%FOR UPDATE'))
         OR EXISTS (SELECT 1 FROM certificates WHERE account_id = $1) AS busy`,
    [tenant.accountId],
  );
  return rows[0]!.busy;
}

function sendBatches(base: string, count: number, from: number) {
  return Array.from({ length: count }, (_, i) =>
    fetch(`${base}/api/v1/certificates`, {
      method: 'POST',
      headers: { ...tenant.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ templateId: tenant.templateId, recipients: recipients(500, from + i * 500) }),
    }).then(
      async (r) => ({ ok: true as const, status: r.status, body: (await r.json()) as unknown }),
      (err: unknown) => ({ ok: false as const, err }),
    ),
  );
}

// Sends six batches of 500, waits for `moment` (a bound of 60 s, not an assertion), kills the
// server with SIGKILL, and checks the database as the crash left it.
async function crashRound(
  label: string,
  base: string,
  child: ChildProcess,
  from: number,
  moment: () => Promise<boolean>,
) {
  const inFlight = sendBatches(base, 6, from);
  const started = Date.now();
  await sleep(300);
  while (Date.now() - started < 60_000 && !(await moment())) await sleep(5);
  await killHard(child);
  const outcomes = await Promise.all(inFlight);
  const answered = outcomes.filter((o) => o.ok);
  assert.ok(answered.length < outcomes.length, `${label}: the kill happened while batches were in flight`);

  const s = await state();
  console.log(
    `# ${label}: ${answered.length}/${outcomes.length} batches answered, ${s.certificates} certificates in total`,
  );
  assert.equal(s.without_pdf, 0, `${label}: no certificate without its PDF`);
  assert.equal(s.without_credential, 0, `${label}: no certificate without its signed credential`);
  assert.equal(s.unsigned_pdf, 0, `${label}: no certificate without its signed PDF carrying the credential`);
  assert.equal(s.with_pdf, s.certificates, `${label}: every certificate has a non-empty PDF`);
  assert.equal(s.used, s.certificates, `${label}: quota used equals the certificates that exist`);
  return s;
}

describe('crash in the middle of batches', () => {
  it('after kill -9 and a restart: no certificate without its PDF, and used equals the certificates', async () => {
    const port = await freePort();

    // 1. Killed while the first write transaction is open (reservation taken, rows being inserted).
    const first = await startServer(port);
    await crashRound('killed inside a write transaction', first.base, first.child, 0, writing);

    // 2. Killed just after a batch committed, while the others are rendering or committing.
    const second = await startServer(port);
    const baseline = (await state()).certificates;
    await crashRound(
      'killed after a commit',
      second.base,
      second.child,
      3000,
      async () => (await state()).certificates > baseline,
    );

    // 3. Restarted on the same data: consistent, and issuing goes on from the same count.
    const third = await startServer(port);
    try {
      const before = await state();
      const res = await fetch(`${third.base}/api/v1/certificates`, {
        method: 'POST',
        headers: { ...tenant.auth, 'content-type': 'application/json' },
        body: JSON.stringify({ templateId: tenant.templateId, recipients: recipients(10, 9000) }),
      });
      assert.equal(res.status, 201);
      assert.equal(((await res.json()) as { data: { created: number } }).data.created, 10);
      const usage = (await (await fetch(`${third.base}/api/v1/usage`, { headers: tenant.auth })).json()) as {
        data: { certificates: { used: number } };
      };
      const final = await state();
      assert.equal(final.certificates, before.certificates + 10);
      assert.equal(final.without_pdf, 0);
      assert.equal(final.without_credential, 0);
      assert.equal(final.unsigned_pdf, 0);
      assert.equal(final.used, final.certificates);
      assert.equal(usage.data.certificates.used, final.certificates);
    } finally {
      await killHard(third.child);
    }
  });
});
