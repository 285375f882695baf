import { createPublicKey, type KeyObject } from 'node:crypto';
import { fromBase58btc } from '../../platform/proof/multibase.js';

// did:key for Ed25519 keys (W3C CCG did:key v0.7), resolved here without any network: the DID is
// the key. `did:key:z6Mk...` is multibase base58btc of the multicodec header 0xed 0x01 and the 32
// bytes of the public key; its one verification method is `<did>#<the same z6Mk... value>`.

const DID_KEY = /^did:key:(z6Mk[1-9A-HJ-NP-Za-km-z]{40,50})$/;

export interface DidKey {
  did: string;
  verificationMethod: string;
  publicKey: KeyObject;
}

/** The Ed25519 key of a did:key, or undefined when `did` is not one. */
export function resolveDidKey(did: string): DidKey | undefined {
  const match = DID_KEY.exec(did);
  if (!match) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = fromBase58btc(match[1]!.slice(1));
  } catch {
    return undefined;
  }
  if (bytes.length !== 34 || bytes[0] !== 0xed || bytes[1] !== 0x01) return undefined;
  const x = Buffer.from(bytes.subarray(2)).toString('base64url');
  try {
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    return { did, verificationMethod: `${did}#${match[1]}`, publicKey };
  } catch {
    return undefined;
  }
}
