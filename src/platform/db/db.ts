import pg from 'pg';

// Timestamps come back as Date; bigint counts (COUNT(*)) as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface Db {
  pool: pg.Pool;
  query: pg.Pool['query'];
  transaction<T>(fn: (tx: pg.PoolClient) => Promise<T>): Promise<T>;
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
  return {
    pool,
    query: pool.query.bind(pool) as pg.Pool['query'],
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
    },
    async close() {
      await pool.end();
    },
  };
}
