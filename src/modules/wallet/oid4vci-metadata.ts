import { preAuthorizedCodeGrantIdentifier } from '@openid4vc/oauth2';
import { Openid4vciIssuer, Openid4vciVersion, type IssuerMetadataResult } from '@openid4vc/openid4vci';
import { OB_V3, VC_V2 } from '../../platform/proof/contexts.js';
import { PROOF_ALGS } from './oid4vci-proof-keys.js';

// The documents a wallet reads before it asks for a credential (OID4VCI 1.0 sections 4 and 12;
// decisions 22): each account is a credential issuer, identified by `<PUBLIC_BASE_URL>/issuers/<id>`,
// and its own authorization server (pre-authorized code grant only). Built as plain objects: the
// library's builders refuse http:// URLs, which a development instance has.

export const LDP_VC_CONFIGURATION = 'OpenBadgeCredential_ldp_vc';
export const SD_JWT_CONFIGURATION = 'LearningCredential_sd_jwt';
export const LEARNING_CREDENTIAL_VCT = 'urn:eu.europa.ec.eudi:learning:credential:1';
export const CONFIGURATION_IDS = [LDP_VC_CONFIGURATION, SD_JWT_CONFIGURATION] as const;
export type ConfigurationId = (typeof CONFIGURATION_IDS)[number];
export const FORMAT_OF: Record<ConfigurationId, 'ldp_vc' | 'dc+sd-jwt'> = {
  [LDP_VC_CONFIGURATION]: 'ldp_vc',
  [SD_JWT_CONFIGURATION]: 'dc+sd-jwt',
};

export function credentialIssuerId(publicBaseUrl: string, accountId: string): string {
  return `${publicBaseUrl}/issuers/${accountId}`;
}

export function oid4vciEndpoints(publicBaseUrl: string, accountId: string) {
  const issuer = credentialIssuerId(publicBaseUrl, accountId);
  return {
    issuer,
    token: `${issuer}/oid4vci/token`,
    nonce: `${issuer}/oid4vci/nonce`,
    credential: `${issuer}/oid4vci/credential`,
  };
}

// The offer's own URL and its openid-credential-offer:// link: shared/wallet-links.ts.

const proofTypes = { jwt: { proof_signing_alg_values_supported: [...PROOF_ALGS] } };

export function credentialIssuerMetadata(publicBaseUrl: string, accountId: string, issuerName: string) {
  const at = oid4vciEndpoints(publicBaseUrl, accountId);
  return {
    credential_issuer: at.issuer,
    authorization_servers: [at.issuer],
    credential_endpoint: at.credential,
    nonce_endpoint: at.nonce,
    display: [{ name: issuerName, locale: 'en' }],
    credential_configurations_supported: {
      [LDP_VC_CONFIGURATION]: {
        format: 'ldp_vc',
        cryptographic_binding_methods_supported: ['did:key'],
        credential_signing_alg_values_supported: ['eddsa-rdfc-2022'],
        proof_types_supported: proofTypes,
        credential_definition: {
          '@context': [VC_V2, OB_V3],
          type: ['VerifiableCredential', 'OpenBadgeCredential'],
        },
        credential_metadata: { display: [{ name: 'Open Badge (Open Badges 3.0)', locale: 'en' }] },
      },
      [SD_JWT_CONFIGURATION]: {
        format: 'dc+sd-jwt',
        vct: LEARNING_CREDENTIAL_VCT,
        cryptographic_binding_methods_supported: ['jwk'],
        credential_signing_alg_values_supported: ['ES256'],
        proof_types_supported: proofTypes,
        credential_metadata: {
          display: [{ name: 'Learning credential (SD-JWT VC)', locale: 'en' }],
          claims: ['name', 'achievement_title', 'issuer_name', 'issuance_date', 'expiry_date'].map(
            (claim) => ({
              path: [claim],
            }),
          ),
        },
      },
    },
  };
}

export function authorizationServerMetadata(publicBaseUrl: string, accountId: string) {
  const at = oid4vciEndpoints(publicBaseUrl, accountId);
  return {
    issuer: at.issuer,
    token_endpoint: at.token,
    grant_types_supported: [preAuthorizedCodeGrantIdentifier],
    'pre-authorized_grant_anonymous_access_supported': true,
    token_endpoint_auth_methods_supported: ['none'],
    response_types_supported: [],
  };
}

export function credentialOffer(publicBaseUrl: string, accountId: string, preAuthorizedCode: string) {
  return {
    credential_issuer: credentialIssuerId(publicBaseUrl, accountId),
    credential_configuration_ids: [...CONFIGURATION_IDS],
    grants: { [preAuthorizedCodeGrantIdentifier]: { 'pre-authorized_code': preAuthorizedCode } },
  };
}

/**
 * The issuer's metadata as the library's request parsers and proof verifier take it, by account.
 * The configurations are every account's: the library checks them (zod, about 1 ms) once, not at
 * every credential request.
 */
export function issuerMetadataResults(library: Openid4vciIssuer, publicBaseUrl: string) {
  let known: IssuerMetadataResult['knownCredentialConfigurations'] | undefined;
  return (accountId: string): IssuerMetadataResult => {
    const credentialIssuer = credentialIssuerMetadata(
      publicBaseUrl,
      accountId,
      '',
    ) as IssuerMetadataResult['credentialIssuer'];
    known ??= library.getKnownCredentialConfigurationsSupported(credentialIssuer);
    return {
      originalDraftVersion: Openid4vciVersion.V1,
      credentialIssuer,
      authorizationServers: [authorizationServerMetadata(publicBaseUrl, accountId)],
      knownCredentialConfigurations: known,
    };
  };
}
