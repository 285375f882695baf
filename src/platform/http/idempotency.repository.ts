import type { Queryable } from '../db/db.js';

// Stored answers of idempotent requests (see idempotency.ts).

export interface StoredKey {
  fingerprint: string;
  status_code: number | null;
  response_body: unknown;
}

const LEASE = "interval '10 minutes'";
const KEPT = "interval '24 hours'";

// Claims the key for a new run; false when it is taken (answered, or claimed by a running request).
// An answer older than 24 hours, or a claim whose lease ran out, is taken over.
export async function claimKey(
  db: Queryable,
  input: { accountId: string; key: string; fingerprint: string },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `INSERT INTO idempotency_keys (account_id, key, fingerprint, locked_until)
     VALUES ($1, $2, $3, now() + ${LEASE})
     ON CONFLICT (account_id, key) DO UPDATE
        SET fingerprint = EXCLUDED.fingerprint, status_code = NULL, response_body = NULL,
            created_at = now(), locked_until = EXCLUDED.locked_until
      WHERE idempotency_keys.created_at < now() - ${KEPT}
         OR (idempotency_keys.status_code IS NULL AND idempotency_keys.locked_until < now())`,
    [input.accountId, input.key, input.fingerprint],
  );
  return rowCount === 1;
}

export async function findKey(db: Queryable, accountId: string, key: string): Promise<StoredKey | undefined> {
  const { rows } = await db.query<StoredKey>(
    'SELECT fingerprint, status_code, response_body FROM idempotency_keys WHERE account_id = $1 AND key = $2',
    [accountId, key],
  );
  return rows[0];
}

export async function storeAnswer(
  db: Queryable,
  input: { accountId: string; key: string; status: number; body: unknown },
): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET status_code = $3, response_body = $4, locked_until = NULL
      WHERE account_id = $1 AND key = $2`,
    [input.accountId, input.key, input.status, JSON.stringify(input.body)],
  );
}

// A run that ended without an answer to keep gives its claim back, so the key can be used again.
// True when a claim was given back; false when the key holds an answer (or nothing).
export async function releaseKey(db: Queryable, accountId: string, key: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND status_code IS NULL',
    [accountId, key],
  );
  return rowCount === 1;
}

export async function purgeExpiredKeys(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM idempotency_keys WHERE created_at < now() - ${KEPT}`);
  return rowCount ?? 0;
}
