import { readdir, readFile } from 'node:fs/promises';
import type { Db } from './db.js';

// Beside this file: `npm run build` copies the SQL files into dist/ (scripts/copy-assets.js).
const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const LOCK_ID = 727_001;
const MIGRATION_TIMEOUT_MS = 6 * 3_600_000;

// Applies numbered SQL files (NNN_name.sql) once each, in order, under an advisory lock so that
// several processes starting together do not race.
export async function migrate(db: Db): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{3}_.+\.sql$/.test(f)).sort();
  const client = await db.pool.connect();
  const applied: string[] = [];
  // A migration (an index on millions of rows) and the wait for another process's migrations may
  // take longer than the statement timeouts of requests: this session has none.
  const query = (text: string, values?: unknown[]) => {
    // pg reads query_timeout per query too (@types/pg does not declare it).
    const config = { text, values, query_timeout: MIGRATION_TIMEOUT_MS };
    return client.query<{ name: string }>(config);
  };
  try {
    await query('SET statement_timeout = 0');
    await query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    await query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set((await query('SELECT name FROM schema_migrations')).rows.map((r) => r.name));
    for (const file of files) {
      if (done.has(file)) continue;
      const sql = await readFile(new URL(file, MIGRATIONS_DIR), 'utf8');
      await query('BEGIN');
      try {
        await query(sql);
        await query('INSERT INTO schema_migrations (name) VALUES ($1)', [file]);
        await query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${file} failed: ${(err as Error).message}`);
      }
      applied.push(file);
    }
  } finally {
    await query('SELECT pg_advisory_unlock($1)', [LOCK_ID]).catch(() => undefined);
    await query('RESET statement_timeout').catch(() => undefined);
    client.release();
  }
  return applied;
}

// The names of the migrations applied so far, in order.
export async function appliedMigrations(db: Pick<Db, 'query'>): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
  return rows.map((r) => r.name);
}
