import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createApp } from '../../src/app.js';
import { createDeps, createLogger } from '../../src/deps.js';
import { createDb, type Db } from '../../src/platform/db/db.js';
import { migrate } from '../../src/platform/db/migrate.js';
import { sharedSecret } from '../../src/dashboard/sessions.repository.js';
import { testConfig, testDatabaseUrl } from '../helpers/app.js';

// Instances started together share one cookie-signing secret, made by whichever inserts first.
describe('the shared instance secret', () => {
  let db: Db;
  // The tables exist even when this file runs alone (no other test has migrated the database).
  before(async () => {
    db = createDb(testDatabaseUrl());
    await migrate(db);
  });
  after(async () => {
    await db?.close();
  });

  it('reads the winner when another instance inserted first but had not committed yet', async () => {
    const name = `race-${process.pid}-${Date.now()}`;
    const first = new pg.Client({ connectionString: testDatabaseUrl() });
    await first.connect();
    try {
      await first.query('BEGIN');
      await first.query('INSERT INTO instance_secrets (name, value) VALUES ($1, $2)', [name, 'first']);
      // The second caller's INSERT waits on the first's row; the first then commits.
      const second = sharedSecret(db, name, 'second');
      await new Promise((r) => setTimeout(r, 200));
      await first.query('COMMIT');
      assert.equal(await second, 'first');
    } finally {
      await first.end();
    }
  });

  it('gives five callers at once one secret, many times', async () => {
    for (let round = 0; round < 20; round++) {
      const name = `race-${process.pid}-${Date.now()}-${round}`;
      const values = await Promise.all(
        Array.from({ length: 5 }, (_, i) => sharedSecret(db.pool, name, `candidate-${i}`)),
      );
      assert.equal(new Set(values).size, 1, `round ${round}: ${values.join(', ')}`);
    }
  });

  it('starts five instances at once on a fresh database', async () => {
    const admin = new pg.Client({ connectionString: testDatabaseUrl() });
    await admin.connect();
    try {
      for (let round = 0; round < 3; round++) {
        const name = `certsvc_fresh_${process.pid}_${round}`;
        await admin.query(`DROP DATABASE IF EXISTS ${name}`);
        await admin.query(`CREATE DATABASE ${name}`);
        const url = new URL(testDatabaseUrl());
        url.pathname = `/${name}`;
        const config = testConfig({ DATABASE_URL: url.toString() });
        const started = await Promise.allSettled(
          Array.from({ length: 5 }, async () => {
            const deps = await createDeps(config, { logger: createLogger(config) });
            try {
              const app = await createApp(deps);
              await app.close();
            } finally {
              await deps.close();
            }
          }),
        );
        const failed = started.filter((s) => s.status === 'rejected');
        assert.deepEqual(failed, [], `round ${round}`);
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }
    } finally {
      await admin.end();
    }
  });
});
