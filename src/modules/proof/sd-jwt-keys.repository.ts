import type { Queryable } from '../../platform/db/db.js';

// The accounts' ES256 keys for SD-JWT VCs (sd_jwt_keys): the public key as a JWK, the private key
// sealed by the key vault. One current key per account; retired ones stay published.

export interface PublicJwk {
  kty: 'EC';
  crv: 'P-256';
  x: string;
  y: string;
}

export interface SdJwtKeyRow {
  id: string;
  account_id: string;
  public_jwk: PublicJwk;
  private_key: Buffer;
  created_at: Date;
  retired_at: Date | null;
}

export interface NewSdJwtKey {
  id: string;
  accountId: string;
  publicJwk: PublicJwk;
  privateKey: Buffer;
}

export async function currentSdJwtKey(db: Queryable, accountId: string): Promise<SdJwtKeyRow | undefined> {
  const { rows } = await db.query<SdJwtKeyRow>(
    'SELECT * FROM sd_jwt_keys WHERE account_id = $1 AND retired_at IS NULL',
    [accountId],
  );
  return rows[0];
}

export async function listSdJwtKeys(db: Queryable, accountId: string): Promise<SdJwtKeyRow[]> {
  const { rows } = await db.query<SdJwtKeyRow>(
    'SELECT * FROM sd_jwt_keys WHERE account_id = $1 ORDER BY created_at, id',
    [accountId],
  );
  return rows;
}

// The account's first key; when another instance made one first, nothing (the caller reads theirs).
export async function insertFirstSdJwtKey(db: Queryable, key: NewSdJwtKey): Promise<void> {
  await db.query(
    `INSERT INTO sd_jwt_keys (id, account_id, public_jwk, private_key) VALUES ($1, $2, $3, $4)
     ON CONFLICT (account_id) WHERE retired_at IS NULL DO NOTHING`,
    [key.id, key.accountId, JSON.stringify(key.publicJwk), key.privateKey],
  );
}
