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

export interface DbOptions {
  max?: number;
  /** Longest a statement may run on the server (statement_timeout); 0 for none (migrations). */
  statementTimeoutMs?: number;
  /** Longest wait for a connection from the pool or a new one to the server. */
  connectTimeoutMs?: number;
}

export const DEFAULT_DB_TIMEOUTS = { statementTimeoutMs: 10_000, connectTimeoutMs: 10_000 };

export function createDb(connectionString: string, opts: DbOptions = {}): Db {
  const statementTimeoutMs = opts.statementTimeoutMs ?? DEFAULT_DB_TIMEOUTS.statementTimeoutMs;
  const pool = new pg.Pool({
    connectionString,
    max: opts.max ?? 10,
    application_name: 'certsvc',
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? DEFAULT_DB_TIMEOUTS.connectTimeoutMs,
    keepAlive: true,
    // The server cancels a statement that runs too long; a server that is hung (or a network that
    // drops packets) cannot, so the client gives up a little later on its own.
    ...(statementTimeoutMs > 0
      ? {
          statement_timeout: statementTimeoutMs,
          query_timeout: statementTimeoutMs + 2_000,
          idle_in_transaction_session_timeout: Math.max(60_000, statementTimeoutMs * 2),
        }
      : {}),
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
    } catch (err) {
      // A connection that failed (or timed out) mid-protocol is destroyed, not reused.
      client.release(err as Error);
      throw err;
    }
    client.release();
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

const UNAVAILABLE_NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'not queryable',
  'Client was closed',
];

// True when an error says PostgreSQL cannot answer now (down, restarting, hung past a timeout, out
// of connections), as opposed to a fault in the request or the code: those become 503, not 500.
export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_NODE_CODES.has(code)) return true;
    // SQLSTATE: connection exceptions, insufficient resources, statement timeout, shutdowns.
    if (/^(08|53)/.test(code) || ['57014', '57P01', '57P02', '57P03'].includes(code)) return true;
  }
  if (err instanceof AggregateError) return err.errors.some(isDatabaseUnavailable);
  return UNAVAILABLE_MESSAGES.some((m) => err.message.includes(m));
}
