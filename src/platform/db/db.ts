import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

// Timestamps come back as Date; bigint counts (COUNT(*)) as numbers.
pg.types.setTypeParser(20, (v) => Number(v));

export type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

export interface Db {
  pool: pg.Pool;
  query: pg.Pool['query'];
  // Runs fn in a transaction; queries made through this Db inside fn use it. Nested in another
  // transaction of the same async context (or in `ambient`) it becomes a SAVEPOINT: when fn throws,
  // only its own writes are undone, even if the caller catches the error and the outer one commits.
  // Transactions of one context run one after another (they share one connection).
  transaction<T>(fn: (tx: pg.PoolClient) => Promise<T>): Promise<T>;
  // Runs `run` so that every transaction it opens through this Db joins one transaction, which is
  // opened lazily by the first of them: reads and slow work before it (rendering PDFs) hold no
  // connection and no lock. `finish` then runs on that same transaction (or on its own when `run`
  // opened none) before the commit, so what `run` wrote and what `finish` writes commit together.
  ambient<T>(run: () => Promise<T>, finish: (tx: Queryable, value: T) => Promise<void>): Promise<T>;
  close(): Promise<void>;
}

interface Ambient {
  client?: pg.PoolClient;
  opening?: Promise<pg.PoolClient>;
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
  const context = new AsyncLocalStorage<Ambient>();
  let savepoints = 0;

  async function begin(): Promise<pg.PoolClient> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
    } catch (err) {
      client.release();
      throw err;
    }
    return client;
  }

  async function end(client: pg.PoolClient, commit: boolean) {
    try {
      await client.query(commit ? 'COMMIT' : 'ROLLBACK');
    } finally {
      client.release();
    }
  }

  async function inSavepoint<T>(client: pg.PoolClient, fn: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
    const name = `sp_${++savepoints}`;
    await client.query(`SAVEPOINT ${name}`);
    try {
      const value = await fn(client);
      await client.query(`RELEASE SAVEPOINT ${name}`);
      return value;
    } catch (err) {
      await client.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => undefined);
      throw err;
    }
  }

  return {
    pool,
    query: ((text: string, values?: unknown[]) =>
      (context.getStore()?.client ?? pool).query(text, values)) as unknown as pg.Pool['query'],

    async transaction(fn) {
      const ambient = context.getStore();
      if (ambient) {
        ambient.opening ??= begin().then((client) => (ambient.client = client));
        return inSavepoint(await ambient.opening, fn);
      }
      const client = await begin();
      let value: Awaited<ReturnType<typeof fn>>;
      try {
        value = await context.run({ client, opening: Promise.resolve(client) }, () => fn(client));
      } catch (err) {
        await end(client, false).catch(() => undefined);
        throw err;
      }
      await end(client, true);
      return value;
    },

    async ambient(run, finish) {
      const ambient: Ambient = {};
      let client: pg.PoolClient | undefined;
      let value: Awaited<ReturnType<typeof run>>;
      try {
        value = await context.run(ambient, run);
        client = await (ambient.opening ?? begin());
        await finish(client, value);
      } catch (err) {
        client ??= await ambient.opening?.catch(() => undefined);
        if (client) await end(client, false).catch(() => undefined);
        throw err;
      }
      await end(client, true);
      return value;
    },

    async close() {
      await pool.end();
    },
  };
}
