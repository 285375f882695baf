import type { Queryable } from '../platform/db/db.js';

// The named secret, made from `candidate` by the first caller; every later caller reads that one.
// Two statements: when another instance inserts first, ON CONFLICT waits for its commit, but a
// SELECT in the same statement reads the snapshot taken before it, which holds neither row. A new
// statement takes a new snapshot, which holds the winner's. Needs autocommit (the pool), not a
// transaction at REPEATABLE READ.
export async function sharedSecret(db: Queryable, name: string, candidate: string): Promise<string> {
  await db.query('INSERT INTO instance_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    name,
    candidate,
  ]);
  const { rows } = await db.query<{ value: string }>('SELECT value FROM instance_secrets WHERE name = $1', [
    name,
  ]);
  if (!rows[0]) throw new Error(`instance secret ${name} is missing after its insert`);
  return rows[0].value;
}
