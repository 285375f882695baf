import { generateKeyPairSync, sign } from 'node:crypto';
import * as vc from '@digitalbazaar/vc';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { staticDocumentLoader } from '../../src/platform/proof/contexts.js';
import type { Signer } from '../../src/platform/proof/data-integrity.js';
import { ed25519PublicKeyMultibase } from '../../src/platform/proof/multibase.js';

// The reference implementation (digitalbazaar's vc + data-integrity + eddsa-rdfc-2022), as a
// verifier of the credentials we sign with code of our own; DIDs resolve through `resolveDid`.

export type DidResolver = (did: string) => Promise<Record<string, unknown>>;

export function referenceLoader(resolveDid: DidResolver) {
  return async (url: string) => {
    if (url.startsWith('did:')) {
      const [did, fragment] = url.split('#');
      const doc = await resolveDid(did!);
      if (!fragment) return { contextUrl: null, document: doc, documentUrl: url };
      const methods = (doc.verificationMethod ?? []) as { id: string }[];
      const method = methods.find((m) => m.id === url);
      if (!method) throw new Error(`no verification method ${url}`);
      return {
        contextUrl: null,
        document: { '@context': doc['@context'], ...method },
        documentUrl: url,
      };
    }
    return staticDocumentLoader(url);
  };
}

export async function referenceVerify(
  credential: unknown,
  resolveDid: DidResolver,
  checkStatus?: (opts: { credential: unknown }) => Promise<{ verified: boolean }>,
): Promise<{ verified: boolean; error?: unknown }> {
  return vc.verifyCredential({
    credential,
    suite: new DataIntegrityProof({ cryptosuite }),
    documentLoader: referenceLoader(resolveDid),
    checkStatus: checkStatus ?? (async () => ({ verified: true })),
  });
}

// A throwaway issuer: a key pair, its signer and its DID document.
export function testIssuer(did = 'did:web:certs.test:issuers:0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6d') {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const verificationMethod = `${did}#key-1`;
  const signer: Signer = { verificationMethod, sign: (data) => sign(null, data, privateKey) };
  const didDocument = {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    verificationMethod: [
      {
        id: verificationMethod,
        type: 'Multikey',
        controller: did,
        publicKeyMultibase: ed25519PublicKeyMultibase(raw),
      },
    ],
    assertionMethod: [verificationMethod],
  };
  return { did, signer, didDocument, resolve: async () => didDocument };
}
