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
  // One statement that is its own transaction: it commits alone (an unanswered one fails with
  // CommitOutcomeUnknownError), or, called within a transaction (or an ambient one), runs in a
  // SAVEPOINT of it, so that its failure undoes only itself there too.
  statement<R extends pg.QueryResultRow>(query: pg.QueryConfig): Promise<pg.QueryResult<R>>;
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

// The database stopped answering (or the connection broke) after a write was sent and before its
// commit was confirmed: a COMMIT, or a write outside a transaction (its own commit). The server may
// have committed it or not, and this connection can no longer say which; a fresh one may
// (idempotency.ts asks the stored answer of the request's Idempotency-Key).
export class CommitOutcomeUnknownError extends Error {
  constructor(override readonly cause: unknown) {
    super(`the database did not confirm a commit: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'CommitOutcomeUnknownError';
  }
}

// An error the server sent (with its SQLSTATE) answers the statement: it failed, nothing committed.
// Otherwise (a broken connection, a client-side timeout) the answer never came.
function unanswered(err: unknown): boolean {
  return isDatabaseUnavailable(err) && !(err instanceof pg.DatabaseError);
}

// A statement that only reads cannot leave a change behind, whatever happened to its answer.
const READ_ONLY = /^\s*(SELECT|SHOW|BEGIN|ROLLBACK|SAVEPOINT|RELEASE|SET|LISTEN|UNLISTEN)\b/i;

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
  // Nor one in use: when its connection drops, pg fails the query in flight and also emits 'error'
  // on the client, which the pool listens to only while the client is idle. Unheard, that would be
  // an uncaught exception. The failed query is what the caller sees; the client is then released
  // with the error, and the pool destroys it.
  pool.on('connect', (client) => client.on('error', () => undefined));
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
      // An error the server answered (a deferred constraint, a serialization failure) means it rolled
      // back; a COMMIT sent and never answered may have committed.
      throw commit && unanswered(err) ? new CommitOutcomeUnknownError(err) : err;
    }
    client.release();
  }

  // A statement outside any transaction commits on its own: when a write goes unanswered, its
  // outcome is unknown, as a COMMIT's is. (Connecting fails before anything is sent: no doubt then.)
  async function autocommit(query: string | pg.QueryConfig, values?: unknown[]) {
    const client = await pool.connect();
    try {
      const result = await client.query(query, values);
      client.release();
      return result;
    } catch (err) {
      // As pool.query does: a client whose statement failed is not reused.
      client.release(err as Error);
      const text = typeof query === 'string' ? query : query.text;
      throw !READ_ONLY.test(text) && unanswered(err) ? new CommitOutcomeUnknownError(err) : err;
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
    query: ((text: string, values?: unknown[]) => {
      const client = context.getStore()?.client;
      return client ? client.query(text, values) : autocommit(text, values);
    }) as unknown as pg.Pool['query'],

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

    async statement<R extends pg.QueryResultRow>(query: pg.QueryConfig) {
      if (context.getStore()) return this.transaction((tx) => tx.query<R>(query));
      return autocommit(query) as Promise<pg.QueryResult<R>>;
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
  if (err instanceof CommitOutcomeUnknownError) return true;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_NODE_CODES.has(code)) return true;
    // SQLSTATE: connection exceptions, insufficient resources, statement timeout, shutdowns.
    if (/^(08|53)/.test(code) || ['57014', '57P01', '57P02', '57P03'].includes(code)) return true;
  }
  if (err instanceof AggregateError) return err.errors.some(isDatabaseUnavailable);
  return UNAVAILABLE_MESSAGES.some((m) => err.message.includes(m));
}
