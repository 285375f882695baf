import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

// Timestamps come back as Date; bigint counts (COUNT(*)) as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface Db {
  pool: pg.Pool;
  query: pg.Pool['query'];
  // Runs fn in a transaction; inside an ambient transaction (see `ambient`) it joins that one.
  transaction<T>(fn: (tx: pg.PoolClient) => Promise<T>): Promise<T>;
  // Runs fn with every query and transaction of this Db, in the same async context, made on one
  // transaction: what fn does commits or rolls back as a whole (idempotent requests rely on it).
  ambient<T>(fn: (tx: pg.PoolClient) => Promise<{ commit: boolean; value: T }>): Promise<T>;
  close(): Promise<void>;
}

export function createDb(connectionString: string, opts: { max?: number } = {}): Db {
  const pool = new pg.Pool({
    connectionString,
    max: opts.max ?? 10,
    application_name: 'certsvc',
    idleTimeoutMillis: 30_000,
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => undefined);
  const context = new AsyncLocalStorage<pg.PoolClient>();

  async function inTransaction<T>(
    fn: (tx: pg.PoolClient) => Promise<{ commit: boolean; value: T }>,
  ): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { commit, value } = await fn(client);
      await client.query(commit ? 'COMMIT' : 'ROLLBACK');
      return value;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  return {
    pool,
    query: ((text: string, values?: unknown[]) =>
      (context.getStore() ?? pool).query(text, values)) as unknown as pg.Pool['query'],
    async transaction(fn) {
      const outer = context.getStore();
      if (outer) return fn(outer);
      return inTransaction(async (tx) => ({ commit: true, value: await fn(tx) }));
    },
    async ambient(fn) {
      const outer = context.getStore();
      if (outer) return (await fn(outer)).value;
      return inTransaction((tx) => context.run(tx, () => fn(tx)));
    },
    async close() {
      await pool.end();
    },
  };
}
