import type { Queryable } from '../../platform/db/db.js';

export interface SigningKeyRow {
  id: string;
  account_id: string;
  public_key: Buffer;
  private_key: Buffer;
  created_at: Date;
  retired_at: Date | null;
}

export async function currentKey(db: Queryable, accountId: string): Promise<SigningKeyRow | undefined> {
  const { rows } = await db.query<SigningKeyRow>(
    'SELECT * FROM signing_keys WHERE account_id = $1 AND retired_at IS NULL',
    [accountId],
  );
  return rows[0];
}

// Any one stored key: enough to tell whether a master key is the one they were sealed with.
export async function anyKey(db: Queryable): Promise<SigningKeyRow | undefined> {
  const { rows } = await db.query<SigningKeyRow>('SELECT * FROM signing_keys LIMIT 1');
  return rows[0];
}

export async function listKeys(db: Queryable, accountId: string): Promise<SigningKeyRow[]> {
  const { rows } = await db.query<SigningKeyRow>(
    'SELECT * FROM signing_keys WHERE account_id = $1 ORDER BY created_at, id',
    [accountId],
  );
  return rows;
}

// The account's first key; when another instance made one first, nothing (the caller reads theirs).
export async function insertFirstKey(
  db: Queryable,
  key: { id: string; accountId: string; publicKey: Buffer; privateKey: Buffer },
): Promise<void> {
  await db.query(
    `INSERT INTO signing_keys (id, account_id, public_key, private_key) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id) WHERE retired_at IS NULL DO NOTHING`,
    [key.id, key.accountId, key.publicKey, key.privateKey],
  );
}

// Retires the current key and makes `key` current, in the caller's transaction.
export async function rotateKey(
  db: Queryable,
  key: { id: string; accountId: string; publicKey: Buffer; privateKey: Buffer },
  at: Date,
): Promise<void> {
  await db.query('UPDATE signing_keys SET retired_at = $2 WHERE account_id = $1 AND retired_at IS NULL', [
    key.accountId,
    at,
  ]);
  await db.query(
    'INSERT INTO signing_keys (id, account_id, public_key, private_key, created_at) VALUES ($1, $2, $3, $4, $5)',
    [key.id, key.accountId, key.publicKey, key.privateKey, at],
  );
}
