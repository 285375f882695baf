import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { Db } from '../../platform/db/db.js';
import { uuidv7 } from '../../platform/ids.js';
import type { KeyVault } from '../../platform/proof/key-vault.js';
import { SigningNotConfiguredError } from './signing-errors.js';
import * as repo from './sd-jwt-keys.repository.js';

// The accounts' ES256 (P-256) keys that sign SD-JWT VCs and Token Status Lists, kept like the other
// signing keys (signing-keys.service.ts): the private key sealed by the key vault under its id,
// opened once per process, made on first use by whichever instance gets there first. What signs
// leaves here as a signer; the key bytes never do.

export type { PublicJwk } from './sd-jwt-keys.repository.js';

/** A public key as the issuer metadata and the DID document publish it. */
export interface SdJwtPublicKey {
  kid: string;
  jwk: repo.PublicJwk & { kid: string; alg: 'ES256'; use: 'sig' };
  current: boolean;
}

/** An account's current SD-JWT key, opened. */
export interface SdJwtKey {
  kid: string;
  /** Signs a JWS signing input, giving the base64url signature (ES256, r || s). */
  sign(data: string): Promise<string>;
}

function publicKeyOf(row: repo.SdJwtKeyRow): SdJwtPublicKey {
  const { kty, crv, x, y } = row.public_jwk;
  return {
    kid: row.id,
    jwk: { kty, crv, x, y, kid: row.id, alg: 'ES256', use: 'sig' },
    current: row.retired_at === null,
  };
}

// ES256 as JWS has it (RFC 7515 appendix A.3: r || s, base64url), signed on this thread: a claim's
// SD-JWT VC waits on its signature, which WebCrypto (@sd-jwt/crypto-nodejs's ES256) would make on
// the libuv thread pool, a hop there and back, and several times the CPU.
function es256(privateKey: KeyObject, data: string): string {
  return sign('sha256', Buffer.from(data), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString(
    'base64url',
  );
}

export function createSdJwtKeys(deps: { db: Db; vault: KeyVault | undefined }) {
  const { db } = deps;
  const opened = new Map<string, Promise<SdJwtKey>>();

  function vaultOf(): KeyVault {
    if (!deps.vault) throw new SigningNotConfiguredError();
    return deps.vault;
  }

  function newKey(accountId: string): repo.NewSdJwtKey {
    const id = uuidv7();
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { x, y } = publicKey.export({ format: 'jwk' });
    return {
      id,
      accountId,
      publicJwk: { kty: 'EC', crv: 'P-256', x: x!, y: y! },
      privateKey: vaultOf().seal(privateKey.export({ format: 'der', type: 'pkcs8' }), id),
    };
  }

  // The current key, made on first use: on a connection of its own, committed at once, so that a
  // caller's transaction never holds another's first key back.
  async function currentOrFirst(accountId: string): Promise<repo.SdJwtKeyRow> {
    let row = await repo.currentSdJwtKey(db, accountId);
    if (!row) {
      await repo.insertFirstSdJwtKey(db.pool, newKey(accountId));
      row = await repo.currentSdJwtKey(db, accountId);
    }
    return row!;
  }

  function open(row: Pick<repo.SdJwtKeyRow, 'id' | 'private_key'>): Promise<SdJwtKey> {
    let key = opened.get(row.id);
    if (!key) {
      const der = vaultOf().open(row.private_key, row.id);
      const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
      key = Promise.resolve({ kid: row.id, sign: async (data: string) => es256(privateKey, data) });
      opened.set(row.id, key);
    }
    return key;
  }

  /** The account's current key, opened (made on first use). Throws SigningNotConfiguredError
   * at once (not in the promise) when this process has no key vault. */
  function current(accountId: string): Promise<SdJwtKey> {
    vaultOf();
    return currentOrFirst(accountId).then(open);
  }

  return {
    current,

    /** Throws SigningNotConfiguredError when this process has no key vault. */
    usable(): void {
      vaultOf();
    },

    /** The account's current key from a row just read with the certificate (subjectWithEntry), or
     * read (made on first use) when there was none. */
    currentFrom(
      accountId: string,
      row: Pick<repo.SdJwtKeyRow, 'id' | 'private_key'> | undefined,
    ): Promise<SdJwtKey> {
      return row ? open(row) : current(accountId);
    },

    /** Every key the account has signed SD-JWT VCs with (the retired ones too). `make`: a process
     * that can sign makes the first one (the issuer metadata); the DID document only lists. */
    async published(accountId: string, opts: { make?: boolean } = {}): Promise<SdJwtPublicKey[]> {
      if (opts.make && deps.vault) await currentOrFirst(accountId);
      return (await repo.listSdJwtKeys(db, accountId)).map(publicKeyOf);
    },
  };
}

export type SdJwtKeys = ReturnType<typeof createSdJwtKeys>;
