import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

// Private keys at rest: AES-256-GCM under the master key (SIGNING_KEYS_SECRET), with the key's id as
// associated data so that a ciphertext moved to another row does not decrypt. Stored as
// nonce (12) | tag (16) | ciphertext.

export interface KeyVault {
  seal(plain: Buffer, keyId: string): Buffer;
  open(sealed: Buffer, keyId: string): Buffer;
}

export class WrongMasterKeyError extends Error {
  constructor() {
    super(
      'SIGNING_KEYS_SECRET does not open the stored signing keys: it is not the key they were sealed with',
    );
  }
}

export function createKeyVault(masterKey: Buffer): KeyVault {
  if (masterKey.length !== 32) throw new Error('the master key must be 32 bytes');
  return {
    seal(plain, keyId) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', masterKey, nonce);
      cipher.setAAD(Buffer.from(keyId));
      const body = Buffer.concat([cipher.update(plain), cipher.final()]);
      return Buffer.concat([nonce, cipher.getAuthTag(), body]);
    },
    open(sealed, keyId) {
      const decipher = createDecipheriv('aes-256-gcm', masterKey, sealed.subarray(0, 12));
      decipher.setAAD(Buffer.from(keyId));
      decipher.setAuthTag(sealed.subarray(12, 28));
      try {
        return Buffer.concat([decipher.update(sealed.subarray(28)), decipher.final()]);
      } catch {
        throw new WrongMasterKeyError();
      }
    },
  };
}
