import type { Pool } from 'pg';
import type { Queryable } from '../../platform/db/db.js';
import {
  ENTITLEMENT_COLUMNS,
  ENTITLEMENT_JOINS,
  type EntitlementRow,
} from '../accounts/accounts.repository.js';

export interface ApiKeyRow {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_by_label: string | null;
}

// A key's own columns and its account's entitlement, as key authentication reads them.
export interface PrincipalRow extends EntitlementRow {
  key_id: string;
  account_id: string;
  scopes: string[];
  prefix: string;
}

const COLUMNS =
  'id, account_id, name, prefix, scopes, created_at, last_used_at, revoked_at, created_by_label';

export async function insertKey(
  db: Queryable,
  key: {
    id: string;
    accountId: string;
    name: string | null;
    prefix: string;
    hash: Buffer;
    scopes: string[];
    createdBy: { userId: string | null; label: string | null };
  },
): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, account_id, name, prefix, key_hash, scopes, created_by_user_id, created_by_label)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [
      key.id,
      key.accountId,
      key.name,
      key.prefix,
      key.hash,
      key.scopes,
      key.createdBy.userId,
      key.createdBy.label,
    ],
  );
  return rows[0]!;
}

export async function listKeys(db: Queryable, accountId: string): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>(
    `SELECT ${COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at DESC, id DESC`,
    [accountId],
  );
  return rows;
}

// With an account id, only that account's key (the dashboard); without, any (the operator's CLI).
// `already` says the key was revoked before (revoking again changes nothing).
export async function revokeKey(
  db: Queryable,
  keyId: string,
  accountId?: string,
): Promise<(ApiKeyRow & { already: boolean }) | undefined> {
  const { rows } = await db.query<ApiKeyRow & { already: boolean }>(
    `UPDATE api_keys k SET revoked_at = COALESCE(o.before, now())
       FROM (SELECT id, revoked_at AS before FROM api_keys
              WHERE id = $1 AND ($2::uuid IS NULL OR account_id = $2) FOR UPDATE) o
      WHERE k.id = o.id
      RETURNING ${COLUMNS.split(', ')
        .map((c) => `k.${c}`)
        .join(', ')}, o.before IS NOT NULL AS already`,
    [keyId, accountId ?? null],
  );
  return rows[0];
}

// One round trip per request: finds the unrevoked key by its digest, stamps last_used_at and reads
// what entitlement needs (plan, active partner contract), so that a plan change, a contract end or
// a revocation takes effect on the very next request on every instance.
//
// A named statement, planned once per connection (planning this join cost more PostgreSQL CPU than
// running it). The stamp commits asynchronously (docs/operations.md, "Asynchronous commits"): `set_config(...,
// true)` turns synchronous_commit off for the statement's own implicit transaction, so the request
// does not wait for a WAL flush; a crash of PostgreSQL can lose only the last instants of last-use
// times. `db` must therefore be a pool, never a client inside a transaction: the setting would
// then hold for that whole transaction.
export async function authenticateKey(
  db: Pick<Pool, 'query'>,
  hash: Buffer,
  now: Date,
): Promise<PrincipalRow | undefined> {
  const { rows } = await db.query<PrincipalRow>({
    name: 'authenticate-key',
    text: `WITH async_commit AS (SELECT set_config('synchronous_commit', 'off', true)),
     k AS (
       UPDATE api_keys SET last_used_at = $2 FROM async_commit WHERE key_hash = $1 AND revoked_at IS NULL
       RETURNING id, account_id, scopes, prefix
     )
     SELECT k.id AS key_id, k.account_id, k.scopes, k.prefix, ${ENTITLEMENT_COLUMNS}
       FROM k
       JOIN accounts a ON a.id = k.account_id
       ${ENTITLEMENT_JOINS}`,
    values: [hash, now],
  });
  return rows[0];
}
