import type { Queryable } from '../../platform/db/db.js';
import type { KeyVault } from '../../platform/proof/key-vault.js';
import { anyKey } from './signing-keys.repository.js';

// Opens one stored signing key with the vault, so that a wrong SIGNING_KEYS_SECRET stops a process
// at start (WrongMasterKeyError) rather than at its first issue. Every process runs it, the certsvc
// command included: it needs no more than the keys' tables. An SD-JWT key is tried when there is no
// credential key (an account whose JWT VC issuer metadata was read before its first issue).
export async function checkVault(db: Queryable, vault: KeyVault | undefined): Promise<void> {
  if (!vault) return;
  const row =
    (await anyKey(db)) ??
    (await db.query<{ id: string; private_key: Buffer }>('SELECT id, private_key FROM sd_jwt_keys LIMIT 1'))
      .rows[0];
  if (row) vault.open(row.private_key, row.id);
}
