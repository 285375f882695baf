import { createPublicKey, ECDH, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { base58btc, fromBase58btc } from '../../platform/proof/multibase.js';

// The holder's key in an OID4VCI key proof (decisions 22): `kid` a did:key URL, or `jwk` in the
// header, of an Ed25519 key (alg EdDSA) or a P-256 key (alg ES256). The holder's DID is always the
// did:key of that key, so a credential bound to a `jwk` proof names the same DID as one bound to a
// `kid` proof of the same key. did:key as in the W3C CCG spec: multibase base58btc of the
// multicodec prefix (ed25519-pub 0xed01, p256-pub 0x8024 with the compressed point) and the key.

export type ProofAlg = 'EdDSA' | 'ES256';
export const PROOF_ALGS: readonly ProofAlg[] = ['ES256', 'EdDSA'];

const ED25519 = Uint8Array.of(0xed, 0x01);
const P256 = Uint8Array.of(0x80, 0x24);

export class HolderKeyError extends Error {}

export interface HolderKey {
  did: string;
  jwk: JsonWebKey;
  alg: ProofAlg;
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

function p256Jwk(compressedOrRaw: Uint8Array): JsonWebKey {
  let raw: Buffer;
  try {
    raw = ECDH.convertKey(
      Buffer.from(compressedOrRaw),
      'prime256v1',
      undefined,
      undefined,
      'uncompressed',
    ) as Buffer;
  } catch {
    throw new HolderKeyError('The P-256 key is not a point on the curve');
  }
  return {
    kty: 'EC',
    crv: 'P-256',
    x: raw.subarray(1, 33).toString('base64url'),
    y: raw.subarray(33, 65).toString('base64url'),
  };
}

/** The public key of a did:key DID (no fragment) of an Ed25519 or P-256 key. */
export function didKeyToJwk(did: string): { jwk: JsonWebKey; alg: ProofAlg } {
  const match = /^did:key:(z[1-9A-HJ-NP-Za-km-z]{40,60})$/.exec(did);
  if (!match) throw new HolderKeyError('Only did:key DIDs of Ed25519 or P-256 keys are accepted');
  let bytes: Uint8Array;
  try {
    bytes = fromBase58btc(match[1]!.slice(1));
  } catch {
    throw new HolderKeyError('The did:key is not valid base58btc');
  }
  if (startsWith(bytes, ED25519) && bytes.length === 34) {
    return {
      jwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(bytes.subarray(2)).toString('base64url') },
      alg: 'EdDSA',
    };
  }
  if (startsWith(bytes, P256) && bytes.length === 35)
    return { jwk: p256Jwk(bytes.subarray(2)), alg: 'ES256' };
  throw new HolderKeyError('Only did:key DIDs of Ed25519 or P-256 keys are accepted');
}

/** The did:key of a public JWK (Ed25519 or P-256); private members are refused. */
export function jwkToDidKey(jwk: JsonWebKey): HolderKey {
  if (jwk.d !== undefined) throw new HolderKeyError('The key proof header carries a private key');
  let bytes: Uint8Array;
  let alg: ProofAlg;
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string') {
    const x = Buffer.from(jwk.x, 'base64url');
    if (x.length !== 32) throw new HolderKeyError('The Ed25519 key is not 32 bytes');
    bytes = Buffer.concat([ED25519, x]);
    alg = 'EdDSA';
  } else if (
    jwk.kty === 'EC' &&
    jwk.crv === 'P-256' &&
    typeof jwk.x === 'string' &&
    typeof jwk.y === 'string'
  ) {
    const x = Buffer.from(jwk.x, 'base64url');
    const y = Buffer.from(jwk.y, 'base64url');
    if (x.length !== 32 || y.length !== 32)
      throw new HolderKeyError('The P-256 key is not 32-byte coordinates');
    const uncompressed = Buffer.concat([Uint8Array.of(4), x, y]);
    let compressed: Buffer;
    try {
      compressed = ECDH.convertKey(uncompressed, 'prime256v1', undefined, undefined, 'compressed') as Buffer;
    } catch {
      throw new HolderKeyError('The P-256 key is not a point on the curve');
    }
    bytes = Buffer.concat([P256, compressed]);
    alg = 'ES256';
  } else {
    throw new HolderKeyError('Only Ed25519 (EdDSA) and P-256 (ES256) keys are accepted');
  }
  const did = `did:key:z${base58btc(bytes)}`;
  return { did, jwk: didKeyToJwk(did).jwk, alg };
}

/** A did:key URL (`did:key:z...#z...`, the fragment the key itself) to the holder's key. */
export function didKeyUrlToKey(kid: string): HolderKey {
  const [did, fragment, ...rest] = kid.split('#');
  if (rest.length > 0 || !did) throw new HolderKeyError('The kid is not a did:key URL');
  if (fragment !== undefined && fragment !== did.slice('did:key:'.length)) {
    throw new HolderKeyError("The kid's fragment does not name the did:key's own key");
  }
  const { jwk, alg } = didKeyToJwk(did);
  return { did, jwk, alg };
}

function keyObject(jwk: JsonWebKey): KeyObject {
  try {
    return createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    throw new HolderKeyError('The key cannot be read');
  }
}

/** The holder's key as node:crypto takes it. */
export function holderPublicKey(key: HolderKey): KeyObject {
  return keyObject(key.jwk);
}

/** Checks a compact JWS's signature with the holder's key; the alg must be the key's. */
export function jwsSignatureValid(
  compact: string,
  alg: string,
  key: HolderKey,
  publicKey: KeyObject = keyObject(key.jwk),
): boolean {
  if (alg !== key.alg) return false;
  const parts = compact.split('.');
  if (parts.length !== 3) return false;
  const data = Buffer.from(`${parts[0]}.${parts[1]}`);
  const signature = Buffer.from(parts[2]!, 'base64url');
  if (alg === 'EdDSA') return verify(null, data, publicKey, signature);
  if (signature.length !== 64) return false;
  return verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature);
}
