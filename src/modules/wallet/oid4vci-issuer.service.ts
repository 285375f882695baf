import { createHash, randomBytes } from 'node:crypto';
import {
  Oauth2AuthorizationServer,
  Oauth2ServerErrorResponseError,
  type Oauth2ErrorResponse,
} from '@openid4vc/oauth2';
import type { Db } from '../../platform/db/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { setGlobalConfig } from '@openid4vc/openid4vci';
import { ClaimTokenGoneError, resolveClaimToken, resolveClaimTokenById } from '../shared/claim-tokens.js';
import * as grants from './oid4vci-grants.repository.js';
import { Oid4vciError, type Oid4vciErrorCode } from './oid4vci-errors.js';
import { createLibraryIssuer, LIBRARY_CALLBACKS } from './oid4vci-key-proof.js';
import { issueCredential, type CredentialMakers } from './oid4vci-credential.js';
import {
  authorizationServerMetadata,
  credentialIssuerMetadata,
  credentialOffer,
  issuerMetadataResults,
} from './oid4vci-metadata.js';

// OID4VCI 1.0 for one instance, every account an issuer (decisions 22): the credential offer by
// reference (a fresh pre-authorized code per fetch of a claim token's offer), the token endpoint
// (pre-authorized code, no transaction code, bearer tokens), the nonce endpoint and the credential
// endpoint (oid4vci-credential.ts). Requests are parsed and checked by @openid4vc/oauth2 and
// @openid4vc/openid4vci; the grants live in the database (migration 033), hashed.

export const PRE_AUTHORIZED_CODE_S = 600;
export const ACCESS_TOKEN_S = 600;
export const NONCE_S = 300;

const sha256 = (secret: string) => createHash('sha256').update(secret).digest();
const secret = () => randomBytes(32).toString('base64url');

export interface TokenRequest {
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  url: string;
}

export type { CredentialMakers };

export function createOid4vciService(deps: {
  db: Db;
  publicBaseUrl: string;
  now: () => Date;
  makers: CredentialMakers;
}) {
  const { db, publicBaseUrl } = deps;
  // The libraries refuse http:// URLs (OID4VCI asks for https). A service whose own public address
  // is http:// (a developer's machine, `npm start`) is let through, as its wallets are too.
  if (new URL(publicBaseUrl).protocol === 'http:') setGlobalConfig({ allowInsecureUrls: true });
  const library = createLibraryIssuer();
  const metadataOf = issuerMetadataResults(library, publicBaseUrl);
  const authorizationServer = new Oauth2AuthorizationServer({ callbacks: LIBRARY_CALLBACKS });

  async function nameOf(accountId: string): Promise<string> {
    const name = await grants.issuerName(db, accountId);
    if (name === undefined) throw new NotFoundError('Issuer');
    return name;
  }

  // A refusal the library raised, in its own words, as ours.
  function fromLibrary(err: unknown): never {
    if (err instanceof Oauth2ServerErrorResponseError) {
      const response = err.errorResponse as Oauth2ErrorResponse;
      const code = response.error as Oid4vciErrorCode;
      throw new Oid4vciError(code, response.error_description ?? 'The request was refused');
    }
    throw err;
  }

  return {
    async issuerMetadata(accountId: string) {
      return credentialIssuerMetadata(publicBaseUrl, accountId, await nameOf(accountId));
    },

    async authorizationServerMetadata(accountId: string) {
      await nameOf(accountId);
      return authorizationServerMetadata(publicBaseUrl, accountId);
    },

    /** Whether a claim token's offer is there (a HEAD request): mints no code. */
    async offerHead(claimToken: string): Promise<void> {
      await resolveClaimToken(db, claimToken, deps.now());
    },

    /** The credential offer of a claim token, with a pre-authorized code of its own. */
    async offer(claimToken: string) {
      const now = deps.now();
      const target = await resolveClaimToken(db, claimToken, now);
      const code = secret();
      await grants.insertPreAuthorizedCode(db, {
        claimTokenId: target.tokenId,
        accountId: target.accountId,
        codeSha256: sha256(code),
        now,
        expiresAt: new Date(now.getTime() + PRE_AUTHORIZED_CODE_S * 1000),
      });
      return credentialOffer(publicBaseUrl, target.accountId, code);
    },

    /** The token endpoint: a pre-authorized code, once, for a bearer access token. */
    async token(accountId: string, request: TokenRequest) {
      const now = deps.now();
      let parsed;
      try {
        parsed = authorizationServer.parseAccessTokenRequest({
          accessTokenRequest: request.body,
          request: { headers: new Headers(flatHeaders(request.headers)), method: 'POST', url: request.url },
        });
      } catch (err) {
        fromLibrary(err);
      }
      if (parsed.grant.grantType !== 'urn:ietf:params:oauth:grant-type:pre-authorized_code') {
        throw new Oid4vciError('unsupported_grant_type', 'Only the pre-authorized code grant is supported');
      }
      const code = parsed.grant.preAuthorizedCode;
      const taken = await grants.takePreAuthorizedCode(db, accountId, sha256(code), now);
      if (!taken) {
        throw new Oid4vciError('invalid_grant', 'The pre-authorized code is unknown or was already used');
      }
      try {
        await authorizationServer.verifyPreAuthorizedCodeAccessTokenRequest({
          grant: parsed.grant,
          accessTokenRequest: parsed.accessTokenRequest,
          request: { headers: new Headers(), method: 'POST', url: request.url },
          expectedPreAuthorizedCode: code,
          preAuthorizedCodeExpiresAt: taken.expiresAt,
          authorizationServerMetadata: authorizationServerMetadata(publicBaseUrl, accountId),
          now,
        });
      } catch (err) {
        fromLibrary(err);
      }
      try {
        await resolveClaimTokenById(db, taken.claimTokenId, now);
      } catch (err) {
        if (err instanceof ClaimTokenGoneError) throw new Oid4vciError('invalid_grant', err.message);
        throw err;
      }
      const accessToken = secret();
      await grants.insertAccessToken(db, {
        claimTokenId: taken.claimTokenId,
        accountId,
        tokenSha256: sha256(accessToken),
        now,
        expiresAt: new Date(now.getTime() + ACCESS_TOKEN_S * 1000),
      });
      return { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_S };
    },

    /** The nonce endpoint: a fresh c_nonce, single use, for one key proof. */
    async nonce(accountId: string) {
      await nameOf(accountId);
      const now = deps.now();
      const nonce = secret();
      await grants.insertNonce(db, {
        accountId,
        nonceSha256: sha256(nonce),
        now,
        expiresAt: new Date(now.getTime() + NONCE_S * 1000),
      });
      return library.createNonceResponse({ cNonce: nonce, cNonceExpiresIn: NONCE_S });
    },

    /** The credential endpoint: the credential bound to the key proof's holder, counted as a claim. */
    async credential(accountId: string, authorization: string | undefined, body: unknown) {
      const now = deps.now();
      const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
      if (!match)
        throw new Oid4vciError('invalid_token', 'Send the access token as Authorization: Bearer <token>');
      return issueCredential({
        db,
        library,
        makers: deps.makers,
        metadata: metadataOf(accountId),
        accountId,
        accessTokenSha256: sha256(match[1]!),
        body,
        now,
        nonceSha256: sha256,
      });
    },
  };
}

function flatHeaders(headers: TokenRequest['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

export type Oid4vciService = ReturnType<typeof createOid4vciService>;
