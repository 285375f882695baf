import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDb, type Db } from '../../src/platform/db/db.js';
import { ConflictError } from '../../src/platform/errors.js';
import { testDatabaseUrl } from '../helpers/app.js';

// Transactions on a real PostgreSQL: a nested transaction is a SAVEPOINT, so that a caught error
// undoes exactly the writes of the transaction it ended, whether or not an outer one commits.

let db: Db;
const table = `tx_test_${process.pid}`;

before(async () => {
  db = createDb(testDatabaseUrl(), { max: 3 });
  await db.query(`CREATE TABLE ${table} (v text NOT NULL)`);
});
after(async () => {
  await db.query(`DROP TABLE ${table}`);
  await db.close();
});

async function values(): Promise<string[]> {
  const { rows } = await db.query<{ v: string }>(`SELECT v FROM ${table} ORDER BY v`);
  await db.query(`DELETE FROM ${table}`);
  return rows.map((r) => r.v);
}

// Writes `v`, then fails as a service does when a rule refuses the request after a write.
async function writeThenFail(v: string): Promise<never> {
  return db.transaction(async (tx) => {
    await tx.query(`INSERT INTO ${table} VALUES ($1)`, [v]);
    throw new ConflictError('refused after a write');
  });
}

describe('nested transactions', () => {
  it('in an ambient transaction, a caught failure undoes its own writes only', async () => {
    const value = await db.ambient(
      async () => {
        await db.transaction((tx) => tx.query(`INSERT INTO ${table} VALUES ('kept')`));
        await writeThenFail('undone').catch(() => undefined);
        return 'answer';
      },
      async (tx, answer) => {
        await tx.query(`INSERT INTO ${table} VALUES ($1)`, [answer]);
      },
    );
    assert.equal(value, 'answer');
    assert.deepEqual(await values(), ['answer', 'kept']);
  });

  it('in a plain transaction, likewise', async () => {
    await db.transaction(async (tx) => {
      await tx.query(`INSERT INTO ${table} VALUES ('outer')`);
      await writeThenFail('inner').catch(() => undefined);
    });
    assert.deepEqual(await values(), ['outer']);
  });

  it('an uncaught failure undoes everything, the ambient answer included', async () => {
    await assert.rejects(
      db.ambient(
        async () => {
          await db.transaction((tx) => tx.query(`INSERT INTO ${table} VALUES ('first')`));
          return writeThenFail('second');
        },
        async (tx) => {
          await tx.query(`INSERT INTO ${table} VALUES ('answer')`);
        },
      ),
      ConflictError,
    );
    assert.deepEqual(await values(), []);
  });

  it('an ambient run holds no connection until its first transaction (slow work comes first)', async () => {
    const held = () => db.pool.totalCount - db.pool.idleCount;
    const value = await db.ambient(
      async () => {
        const n = (await db.query<{ n: number }>('SELECT 1 AS n')).rows[0]!.n;
        assert.equal(held(), 0, 'reads and rendering hold nothing');
        await db.transaction((tx) => tx.query(`INSERT INTO ${table} VALUES ('w')`));
        assert.equal(held(), 1, 'the first write opens the one transaction, kept for the answer');
        return n;
      },
      async (tx, n) => {
        await tx.query(`INSERT INTO ${table} VALUES ($1)`, [String(n)]);
      },
    );
    assert.equal(value, 1);
    assert.deepEqual(await values(), ['1', 'w']);
  });
});
