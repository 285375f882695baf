import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { createDeps, createLogger, type Deps } from '../../src/deps.js';
import { freePort } from '../../src/platform/net.js';
import { createTenant, testConfig, testDatabaseUrl, type Tenant } from '../helpers/app.js';
import { killHard, startServer } from '../helpers/server-process.js';

// Decisions section 20: an import is shared by the workers of every instance, and a kill -9 of one
// of them loses nothing and issues nothing twice. Two real servers (with their workers) on one
// database of this test's own; one is killed while the import runs.

const dbName = `certsvc_import_crash_${process.pid}_${Date.now()}`;
const adminUrl = testDatabaseUrl();
const databaseUrl = (() => {
  const u = new URL(adminUrl);
  u.pathname = `/${dbName}`;
  return u.toString();
})();
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-import-crash-'));
const children = new Set<ChildProcess>();
let deps: Deps;
let tenant: Tenant;

before(async () => {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const config = testConfig({ DATABASE_URL: databaseUrl });
  deps = await createDeps(config, { logger: createLogger(config) });
  tenant = await createTenant(deps, { monthlyLimit: 100_000 });
});

after(async () => {
  for (const child of children) await killHard(child);
  await deps?.close();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
  rmSync(dataDir, { recursive: true, force: true });
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
    const imp = await deps.services.imports.create({
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
