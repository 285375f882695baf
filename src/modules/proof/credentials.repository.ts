import type { Queryable } from '../../platform/db/db.js';
import type { SigningKeyRow } from './signing-keys.repository.js';
import { revokeTokenStatus } from './sd-jwt-status.repository.js';
import { setRevoked } from './status-lists.repository.js';

// The certificates' signed credentials: frozen bytes, each at its entry of the account's status lists.

export interface NewCredential {
  certificateId: string;
  statusList: number;
  statusIndex: number;
  signingKeyId: string;
  body: Buffer;
}

export async function insertCredentials(
  db: Queryable,
  accountId: string,
  items: NewCredential[],
): Promise<void> {
  if (items.length === 0) return;
  await db.query(
    `INSERT INTO credentials (certificate_id, account_id, status_list, status_index, signing_key_id, body)
     SELECT c, $1, l, i, k, b FROM unnest($2::uuid[], $3::int[], $4::int[], $5::uuid[], $6::bytea[]) AS t(c, l, i, k, b)`,
    [
      accountId,
      items.map((x) => x.certificateId),
      items.map((x) => x.statusList),
      items.map((x) => x.statusIndex),
      items.map((x) => x.signingKeyId),
      items.map((x) => x.body),
    ],
  );
}

/** A certificate's frozen credential and the account's current credential key (none yet: undefined). */
export async function readCredentialAndKey(
  db: Queryable,
  accountId: string,
  certificateId: string,
): Promise<{ body: Buffer; key: SigningKeyRow | undefined } | undefined> {
  const { rows } = await db.query<{ body: Buffer } & { [K in keyof SigningKeyRow]: SigningKeyRow[K] | null }>(
    {
      name: 'credential-and-key',
      text: `SELECT c.body, k.id, k.account_id, k.public_key, k.private_key, k.created_at, k.retired_at
       FROM credentials c
       LEFT JOIN LATERAL (SELECT * FROM signing_keys
                           WHERE account_id = c.account_id AND retired_at IS NULL LIMIT 1) k ON true
      WHERE c.certificate_id = $1 AND c.account_id = $2`,
      values: [certificateId, accountId],
    },
  );
  const row = rows[0];
  if (!row) return undefined;
  const { body, ...key } = row;
  return { body, key: key.id === null ? undefined : (key as SigningKeyRow) };
}

export async function readCredential(
  db: Queryable,
  accountId: string,
  certificateId: string,
): Promise<Buffer | undefined> {
  const { rows } = await db.query<{ body: Buffer }>(
    'SELECT body FROM credentials WHERE certificate_id = $1 AND account_id = $2',
    [certificateId, accountId],
  );
  return rows[0]?.body;
}

async function statusEntryOf(
  db: Queryable,
  accountId: string,
  certificateId: string,
): Promise<{ list: number; index: number } | undefined> {
  const { rows } = await db.query<{ status_list: number; status_index: number }>(
    'SELECT status_list, status_index FROM credentials WHERE certificate_id = $1 AND account_id = $2',
    [certificateId, accountId],
  );
  return rows[0] && { list: rows[0].status_list, index: rows[0].status_index };
}

// Sets the revocation bits of the certificate, in the revocation's transaction: its credential's in
// the Bitstring list (none: it has no credential yet) and its SD-JWT VCs' in the Token Status List
// (none: no SD-JWT VC was issued for it).
export async function revokeCredential(
  tx: Queryable,
  accountId: string,
  certificateId: string,
): Promise<void> {
  const entry = await statusEntryOf(tx, accountId, certificateId);
  if (entry) await setRevoked(tx, accountId, entry);
  await revokeTokenStatus(tx, accountId, certificateId);
}

// The credential of a certificate by its public code (the verify routes).
export async function credentialByCode(
  db: Queryable,
  code: string,
): Promise<{ accountId: string; body: Buffer } | undefined> {
  const { rows } = await db.query<{ account_id: string; body: Buffer }>(
    `SELECT cr.account_id, cr.body FROM credentials cr JOIN certificates c ON c.id = cr.certificate_id
     WHERE c.unique_code = $1 AND c.status <> 'Draft'`,
    [code],
  );
  return rows[0] && { accountId: rows[0].account_id, body: rows[0].body };
}
