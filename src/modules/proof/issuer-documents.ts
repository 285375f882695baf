import { gzipSync } from 'node:zlib';
import type { Db } from '../../platform/db/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { VC_V2 } from '../../platform/proof/contexts.js';
import { signDocument } from '../../platform/proof/data-integrity.js';
import { findAccount } from '../accounts/accounts.repository.js';
import { keyMethodId, statusListUrl } from '../shared/issuer-identity.js';
import type { SigningKeys } from './signing-keys.service.js';
import * as lists from './status-lists.repository.js';

// What verifiers fetch to check an account's credentials (decisions section 18): its DID document
// (every key it signed with, the retired ones too) and its revocation status lists, signed.

export function createIssuerDocuments(deps: { db: Db; publicBaseUrl: string; signingKeys: SigningKeys }) {
  const { db, signingKeys } = deps;
  // Status list credentials by (list, version, key): signed once per change, then served from memory.
  const signedLists = new Map<string, Promise<Buffer>>();

  return {
    async didDocument(accountId: string) {
      if (!(await findAccount(db, accountId))) throw new NotFoundError('Issuer');
      const keys = await signingKeys.publishedKeys(accountId);
      // The SD-JWT VC keys (ES256), once made, as JsonWebKey methods (id: did#kid).
      const jwks = await signingKeys.sdJwt.published(accountId);
      const did = signingKeys.issuerDid(accountId);
      const methods = [
        ...keys.map((k) => ({
          id: k.verificationMethod,
          type: 'Multikey',
          controller: did,
          publicKeyMultibase: k.publicKeyMultibase,
        })),
        ...jwks.map((k) => ({
          id: keyMethodId(did, k.kid),
          type: 'JsonWebKey',
          controller: did,
          publicKeyJwk: k.jwk,
        })),
      ];
      return {
        '@context': [
          'https://www.w3.org/ns/did/v1',
          'https://w3id.org/security/multikey/v1',
          ...(jwks.length ? ['https://w3id.org/security/jwk/v1'] : []),
        ],
        id: did,
        verificationMethod: methods,
        assertionMethod: methods.map((m) => m.id),
      };
    },

    // The signed BitstringStatusListCredential of list n, as bytes.
    async statusList(accountId: string, n: number): Promise<Buffer> {
      const list = await lists.readList(db, accountId, n);
      if (!list) throw new NotFoundError('Status list');
      const key = await signingKeys.credentialKey(accountId);
      const cacheKey = `${accountId}:${n}:${list.updatedAt.toISOString()}:${key.id}`;
      let signed = signedLists.get(cacheKey);
      if (!signed) {
        const url = statusListUrl(deps.publicBaseUrl, accountId, n);
        const validFrom = list.updatedAt.toISOString();
        signed = signDocument(
          {
            '@context': [VC_V2],
            id: url,
            type: ['VerifiableCredential', 'BitstringStatusListCredential'],
            issuer: signingKeys.issuerDid(accountId),
            validFrom,
            credentialSubject: {
              id: `${url}#list`,
              type: 'BitstringStatusList',
              statusPurpose: 'revocation',
              encodedList: `u${gzipSync(list.bits).toString('base64url')}`,
            },
          },
          key.signer,
          validFrom,
        ).then((doc) => Buffer.from(JSON.stringify(doc)));
        signed.catch(() => signedLists.delete(cacheKey));
        if (signedLists.size >= 256) signedLists.delete(signedLists.keys().next().value!);
        signedLists.set(cacheKey, signed);
      }
      return signed;
    },
  };
}
