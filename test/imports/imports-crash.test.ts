import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Deps } from '../../src/deps.js';
import { freePort } from '../../src/platform/net.js';
import type { Tenant } from '../helpers/app.js';
import { crashSetting, killHard, startServer } from '../helpers/server-process.js';

// Decisions section 20: an import is shared by the workers of every instance, and a kill -9 of one
// of them loses nothing and issues nothing twice. Two real servers (with their workers) on one
// database of this test's own; one is killed while the import runs.

let deps: Deps;
let tenant: Tenant;
let databaseUrl: string;
let dataDir: string;
let children: Set<ChildProcess>;
let close: (() => Promise<void>) | undefined;

before(async () => {
  ({ deps, tenant, databaseUrl, dataDir, children, close } = await crashSetting('import_crash'));
});

after(async () => {
  await close?.();
});

describe('an import across two instances, one killed', () => {
  it('completes, every row issued exactly once, usage equal to the certificates', async () => {
    const [a, b] = await Promise.all([
      freePort().then((port) => startServer({ port, databaseUrl, dataDir, worker: true, children })),
      freePort().then((port) => startServer({ port, databaseUrl, dataDir, worker: true, children })),
    ]);
    const rows = Array.from({ length: 5_000 }, (_, i) => ({
      line: i + 2,
      recipient: { name: `Learner ${i}`, email: `l${i}@example.com`, data: { course: 'Crash course' } },
    }));
    const imp = await deps.services.imports.create(SYSTEM, {
      accountId: tenant.accountId,
      templateId: tenant.templateId,
      fileName: 'crash.csv',
      createdBy: 'test',
      rows,
    });
    // Kill one server once both have had chunks to work on (a bound of 60 s, not an assertion).
    const started = Date.now();
    while (Date.now() - started < 60_000) {
      const now = await deps.services.imports.get(tenant.accountId, imp.id);
      if (now.done >= 1_000) break;
      await sleep(20);
    }
    await killHard(a.child);
    const killedAt = await deps.services.imports.get(tenant.accountId, imp.id);
    let final = killedAt;
    while (Date.now() - started < 180_000 && final.state !== 'done') {
      await sleep(200);
      final = await deps.services.imports.get(tenant.accountId, imp.id);
    }
    console.log(
      `# killed one server at ${killedAt.done} rows done; the other finished in ${Date.now() - started} ms`,
    );
    assert.ok(killedAt.done < 5_000, 'the kill happened while the import ran');
    assert.equal(final.state, 'done', b.output());
    assert.deepEqual([final.done, final.created, final.failed], [5000, 5000, 0]);
    const {
      rows: [check],
    } = await deps.db.query<{
      rows_created: number;
      distinct_certificates: number;
      certificates: number;
      used: number;
      without_result: number;
    }>(
      `SELECT (SELECT count(*)::int FROM import_rows WHERE import_id = $2 AND status = 'created') AS rows_created,
              (SELECT count(DISTINCT certificate_id)::int FROM import_rows WHERE import_id = $2) AS distinct_certificates,
              (SELECT count(*)::int FROM certificates WHERE account_id = $1) AS certificates,
              (SELECT coalesce(sum(used), 0)::int FROM usage_periods WHERE account_id = $1) AS used,
              (SELECT count(*)::int FROM import_rows WHERE import_id = $2 AND status IS NULL) AS without_result`,
      [tenant.accountId, imp.id],
    );
    assert.deepEqual(check, {
      rows_created: 5000,
      distinct_certificates: 5000,
      certificates: 5000,
      used: 5000,
      without_result: 0,
    });
    await killHard(b.child);
  });
});
