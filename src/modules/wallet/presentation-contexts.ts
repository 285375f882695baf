import type { DocumentLoader } from 'jsonld';
import { staticDocumentLoader } from '../../platform/proof/contexts.js';

// The JSON-LD contexts a wallet's DIDAuthentication presentation may name, beside the credential
// contexts the service bundles (VC 1.1 and 2.0): the Ed25519Signature2020 suite's context, as
// published at https://w3id.org/security/suites/ed25519-2020/v1 (digitalbazaar's
// ed25519-signature-2020-context, which is not among our packages). Nothing is fetched.

export const ED25519_2020_CONTEXT_URL = 'https://w3id.org/security/suites/ed25519-2020/v1';

const methods = (names: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(names).map(([term, id]) => [
      term,
      { '@id': `https://w3id.org/security#${id}`, '@type': '@id', '@container': '@set' },
    ]),
  );

const dateTime = (id: string) => ({ '@id': id, '@type': 'http://www.w3.org/2001/XMLSchema#dateTime' });

const ED25519_2020_CONTEXT = {
  '@context': {
    id: '@id',
    type: '@type',
    '@protected': true,
    Ed25519VerificationKey2020: {
      '@id': 'https://w3id.org/security#Ed25519VerificationKey2020',
      '@context': {
        '@protected': true,
        id: '@id',
        type: '@type',
        controller: { '@id': 'https://w3id.org/security#controller', '@type': '@id' },
        revoked: dateTime('https://w3id.org/security#revoked'),
        publicKeyMultibase: {
          '@id': 'https://w3id.org/security#publicKeyMultibase',
          '@type': 'https://w3id.org/security#multibase',
        },
      },
    },
    Ed25519Signature2020: {
      '@id': 'https://w3id.org/security#Ed25519Signature2020',
      '@context': {
        '@protected': true,
        id: '@id',
        type: '@type',
        challenge: 'https://w3id.org/security#challenge',
        created: dateTime('http://purl.org/dc/terms/created'),
        domain: 'https://w3id.org/security#domain',
        expires: dateTime('https://w3id.org/security#expiration'),
        nonce: 'https://w3id.org/security#nonce',
        proofPurpose: {
          '@id': 'https://w3id.org/security#proofPurpose',
          '@type': '@vocab',
          '@context': {
            '@protected': true,
            id: '@id',
            type: '@type',
            ...methods({
              assertionMethod: 'assertionMethod',
              authentication: 'authenticationMethod',
              capabilityInvocation: 'capabilityInvocationMethod',
              capabilityDelegation: 'capabilityDelegationMethod',
              keyAgreement: 'keyAgreementMethod',
            }),
          },
        },
        proofValue: {
          '@id': 'https://w3id.org/security#proofValue',
          '@type': 'https://w3id.org/security#multibase',
        },
        verificationMethod: { '@id': 'https://w3id.org/security#verificationMethod', '@type': '@id' },
      },
    },
  },
};

export const presentationDocumentLoader: DocumentLoader = async (url) => {
  if (url === ED25519_2020_CONTEXT_URL) {
    return { contextUrl: null, document: ED25519_2020_CONTEXT, documentUrl: url };
  }
  return staticDocumentLoader(url);
};
