import { createPublicKey, type KeyObject } from 'node:crypto';
import { didKeyToJwk } from './oid4vci-proof-keys.js';

// The Ed25519 did:key of a VC API presentation's holder (W3C CCG did:key v0.7), resolved here without
// any network: the DID is the key. It is decoded as the OID4VCI key proofs decode theirs
// (oid4vci-proof-keys.ts); a presentation takes Ed25519 keys only, and its one verification method is
// `<did>#<the multibase value after did:key:>`.

export interface DidKey {
  did: string;
  verificationMethod: string;
  publicKey: KeyObject;
}

/** The Ed25519 key of a did:key, or undefined when `did` is not one. */
export function resolveDidKey(did: string): DidKey | undefined {
  try {
    const { jwk, alg } = didKeyToJwk(did);
    if (alg !== 'EdDSA') return undefined;
    const publicKey = createPublicKey({ key: jwk, format: 'jwk' });
    return { did, verificationMethod: `${did}#${did.slice('did:key:'.length)}`, publicKey };
  } catch {
    // Not a did:key of a key we take, or bytes that are no Ed25519 key.
    return undefined;
  }
}
