import { createHash, randomBytes } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';
import { clientAuthenticationNone, decodeJwt, HashAlgorithm, type JwtSigner } from '@openid4vc/oauth2';
import { Openid4vciIssuer, type IssuerMetadataResult } from '@openid4vc/openid4vci';
import { Oid4vciError } from './oid4vci-errors.js';
import {
  didKeyUrlToKey,
  holderPublicKey,
  HolderKeyError,
  jwkToDidKey,
  jwsSignatureValid,
  type HolderKey,
} from './oid4vci-proof-keys.js';

// The key proof of a credential request (OID4VCI 1.0 appendix F.1): a JWT of type
// openid4vci-proof+jwt, signed by the holder's key, for this issuer (`aud`), with a c_nonce of this
// issuer's nonce endpoint. The library checks the JWT's shape, type, audience, nonce and times and
// calls back here for the signature; this module says which keys are accepted (did:key `kid` or a
// `jwk`, exactly one; Ed25519 or P-256) and which DID the holder is.

type Signer = JwtSigner & { publicJwk?: unknown };

function holderKeyOf(signer: Signer): HolderKey {
  if (signer.method === 'did') {
    if (!signer.didUrl.startsWith('did:key:')) throw new HolderKeyError('The kid must be a did:key URL');
    return didKeyUrlToKey(signer.didUrl);
  }
  if (signer.method === 'jwk') return jwkToDidKey(signer.publicJwk as JsonWebKey);
  throw new HolderKeyError('The key proof must name its key by a did:key kid or a jwk header');
}

// A wallet proves with the same key claim after claim: the key read from its kid or jwk (base58,
// the P-256 point's checks) and its KeyObject are kept per key as named, a bounded number of them.
// Only keys that were read are kept; a refused one is refused again each time.
const MAX_KNOWN_KEYS = 1000;
const knownKeys = new Map<string, { holder: HolderKey; publicKey: KeyObject }>();

function knownHolderKey(signer: Signer): { holder: HolderKey; publicKey: KeyObject } {
  const name =
    signer.method === 'did'
      ? `kid ${signer.didUrl}`
      : signer.method === 'jwk'
        ? `jwk ${JSON.stringify(signer.publicJwk)}`
        : undefined;
  const known = name === undefined ? undefined : knownKeys.get(name);
  if (known) return known;
  const holder = holderKeyOf(signer);
  Object.freeze(holder.jwk);
  const entry = Object.freeze({ holder: Object.freeze(holder), publicKey: holderPublicKey(holder) });
  if (knownKeys.size >= MAX_KNOWN_KEYS) knownKeys.clear();
  knownKeys.set(name!, entry);
  return entry;
}

/** What the libraries call back for: hashes, randomness and the key proofs' signatures. */
export const LIBRARY_CALLBACKS = {
  hash: (data: Uint8Array, alg: HashAlgorithm) =>
    createHash(alg === HashAlgorithm.Sha384 ? 'sha384' : alg === HashAlgorithm.Sha512 ? 'sha512' : 'sha256')
      .update(data)
      .digest(),
  generateRandom: (length: number) => randomBytes(length),
  clientAuthentication: clientAuthenticationNone({ clientId: 'wallet' }),
  signJwt: () => {
    throw new Error('this issuer signs no JWT through the OID4VCI library');
  },
  verifyJwt: (signer: JwtSigner, jwt: { header: { alg: string }; compact: string }) => {
    const { holder, publicKey } = knownHolderKey(signer);
    if (!jwsSignatureValid(jwt.compact, jwt.header.alg, holder, publicKey)) {
      // Thrown rather than answered { verified: false }, so that the refusal says why.
      throw new HolderKeyError('The signature does not verify with the key its header names');
    }
    return { verified: true, signerJwk: holder.jwk as never };
  },
} satisfies ConstructorParameters<typeof Openid4vciIssuer>[0]['callbacks'];

/** The library's issuer, with the callbacks it needs to check requests and key proofs. */
export function createLibraryIssuer(): Openid4vciIssuer {
  return new Openid4vciIssuer({ callbacks: LIBRARY_CALLBACKS });
}

export interface CheckedProof {
  holder: HolderKey;
}

/** The c_nonce a proof carries, read before it is checked; invalid_proof when it has none. */
export function proofNonce(jwt: string): string {
  let payload: { nonce?: unknown };
  let header: Record<string, unknown>;
  try {
    ({ header, payload } = decodeJwt({ jwt }));
  } catch {
    throw new Oid4vciError('invalid_proof', 'The key proof is not a JWT');
  }
  const named = ['kid', 'jwk', 'x5c', 'trust_chain'].filter((k) => header[k] !== undefined);
  if (named.length !== 1 || (named[0] !== 'kid' && named[0] !== 'jwk')) {
    throw new Oid4vciError(
      'invalid_proof',
      'The key proof header must name its key by exactly one of kid (a did:key URL) or jwk',
    );
  }
  if (typeof payload.nonce !== 'string' || payload.nonce === '') {
    throw new Oid4vciError(
      'invalid_proof',
      'The key proof has no nonce: get a c_nonce from the nonce endpoint',
    );
  }
  return payload.nonce;
}

/** Checks the proof (signature, type, aud, nonce, times); the holder's key and DID when it holds. */
export async function checkKeyProof(
  library: Openid4vciIssuer,
  opts: { metadata: IssuerMetadataResult; jwt: string; nonce: string; nonceExpiresAt: Date; now: Date },
): Promise<CheckedProof> {
  try {
    const { signer } = await library.verifyCredentialRequestJwtProof({
      issuerMetadata: opts.metadata,
      jwt: opts.jwt,
      expectedNonce: opts.nonce,
      nonceExpiresAt: opts.nonceExpiresAt,
      now: opts.now,
    });
    return { holder: knownHolderKey(signer).holder };
  } catch (err) {
    throw new Oid4vciError('invalid_proof', `The key proof is not valid: ${libraryReason(err)}`);
  }
}

// The library's refusal of a key proof as one plain sentence for the wallet: its description
// without the library's own prefix, or, for a header of the wrong shape, the first issue its schema
// check lists (never the library's JSON dump of its own error).
function libraryReason(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause;
  if (cause instanceof HolderKeyError) return cause.message;
  const described = (err as { errorResponse?: { error_description?: unknown } }).errorResponse
    ?.error_description;
  const message = err instanceof Error ? err.message : String(err);
  const reason =
    typeof described === 'string'
      ? described.replace(/^Error verif[a-z]* credential request proof jwt\.\s*/i, '')
      : (message.split('\n')[0] ?? '');
  if (reason !== '' && reason !== 'Invalid proof') return reason;
  return /^✖ (.+)$/m.exec(message)?.[1] ?? 'it could not be checked';
}
