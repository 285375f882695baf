import type { JsonWebKey } from 'node:crypto';
import type { IssuerMetadataResult, Openid4vciIssuer } from '@openid4vc/openid4vci';
import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { ClaimTokenGoneError, claimTargetOf, type ClaimTarget } from '../shared/claim-tokens.js';
import { recordClaimAtOnce } from './claims.repository.js';
import * as grants from './oid4vci-grants.repository.js';
import { Oid4vciError } from './oid4vci-errors.js';
import { checkKeyProof, proofNonce } from './oid4vci-key-proof.js';
import { CONFIGURATION_IDS, FORMAT_OF, type ConfigurationId } from './oid4vci-metadata.js';
import type { HolderKey } from './oid4vci-proof-keys.js';

// The credential endpoint's work (OID4VCI 1.0 section 8): the claim token behind the access token
// must still be usable; the request names one configuration and carries one jwt key proof with a
// c_nonce of this issuer; the credential is made for the proof's holder, then the nonce is used up,
// the claim counted and recorded in one statement. Nothing is written when anything is refused.
// The access token, its claim token and the proof's c_nonce are read in one round trip before the
// checks, which then refuse in the order they always have (token, request, proof); what the
// credential needs of the certificate (the frozen credential, the account's key) is read while the
// request and the proof are checked.

/**
 * How the two formats are made; the composition root wires them to the proof module. Each first
 * reads what it needs of the certificate and the account (nothing is written: it runs while the
 * request and its key proof are checked), then makes the credential for the proven holder.
 */
export interface CredentialMakers {
  /** The Open Badges 3.0 credential bound to the holder's DID, signed now (ldp_vc). */
  ldpVc?: (input: {
    accountId: string;
    certificateId: string;
  }) => Promise<(holderDid: string, now: Date) => Promise<Record<string, unknown>>>;
  /** The SD-JWT VC (dc+sd-jwt) with the holder's public key as its confirmation key. */
  sdJwt?: (input: {
    accountId: string;
    certificateId: string;
  }) => Promise<(holderJwk: JsonWebKey, now: Date) => Promise<string>>;
}

type Maker = (holder: HolderKey, now: Date) => Promise<string | Record<string, unknown>>;

function usableTarget(state: grants.CredentialRequestState, now: Date): ClaimTarget {
  try {
    return claimTargetOf(state.target, now);
  } catch (err) {
    if (err instanceof ClaimTokenGoneError) throw new Oid4vciError('credential_request_denied', err.message);
    if (err instanceof NotFoundError)
      throw new Oid4vciError('invalid_token', 'The access token no longer grants anything');
    throw err;
  }
}

/** The c_nonce of the request's one key proof, read ahead of the checks; undefined when unreadable. */
function leadingNonce(body: unknown): { jwt: string; nonce: string } | undefined {
  const jwt = (body as { proofs?: { jwt?: unknown[] } } | null)?.proofs?.jwt?.[0];
  if (typeof jwt !== 'string') return undefined;
  try {
    return { jwt, nonce: proofNonce(jwt) };
  } catch {
    return undefined;
  }
}

function requestedConfiguration(body: unknown): ConfigurationId {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new Oid4vciError('invalid_credential_request', 'The credential request must be a JSON object');
  }
  const id = (body as { credential_configuration_id?: unknown }).credential_configuration_id;
  if (id === undefined) {
    throw new Oid4vciError(
      'invalid_credential_request',
      `Name the credential with credential_configuration_id (${CONFIGURATION_IDS.join(' or ')})`,
    );
  }
  if (!CONFIGURATION_IDS.includes(id as ConfigurationId)) {
    throw new Oid4vciError(
      'unknown_credential_configuration',
      `This issuer offers ${CONFIGURATION_IDS.join(' and ')} only`,
    );
  }
  return id as ConfigurationId;
}

// The maker of the requested format, its reads begun; awaited only once the key proof holds, so
// that a refusal of the request or proof comes first, as it always has.
function prepareMaker(
  makers: CredentialMakers,
  configuration: ConfigurationId,
  target: ClaimTarget,
): Promise<Maker | undefined> {
  const input = { accountId: target.accountId, certificateId: target.certificateId };
  const format = FORMAT_OF[configuration];
  let prepared: Promise<Maker | undefined> = Promise.resolve(undefined);
  if (format === 'ldp_vc' && makers.ldpVc) {
    prepared = makers.ldpVc(input).then((sign) => (holder, now) => sign(holder.did, now));
  } else if (format === 'dc+sd-jwt' && makers.sdJwt) {
    prepared = makers.sdJwt(input).then((issue) => (holder, now) => issue(holder.jwk, now));
  }
  prepared.catch(() => undefined);
  return prepared;
}

async function make(
  prepared: Promise<Maker | undefined>,
  configuration: ConfigurationId,
  holder: HolderKey,
  now: Date,
): Promise<string | Record<string, unknown>> {
  try {
    const maker = await prepared;
    if (maker) return await maker(holder, now);
  } catch (err) {
    // The proof module's refusals: no credential to bind (issued before credentials existed), the
    // certificate revoked or expired, a key it will not bind to.
    if (err instanceof NotFoundError || err instanceof ConflictError) {
      throw new Oid4vciError('credential_request_denied', err.message);
    }
    if (err instanceof ValidationError) throw new Oid4vciError('invalid_proof', err.message);
    throw err;
  }
  throw new Oid4vciError('credential_request_denied', `This instance cannot issue ${configuration}`);
}

export async function issueCredential(opts: {
  db: Db;
  library: Openid4vciIssuer;
  makers: CredentialMakers;
  metadata: IssuerMetadataResult;
  accountId: string;
  accessTokenSha256: Buffer;
  body: unknown;
  now: Date;
  nonceSha256: (nonce: string) => Buffer;
}) {
  const { db, library, accountId, now } = opts;
  const leading = leadingNonce(opts.body);
  const state = await grants.credentialRequestState(db, {
    accountId,
    tokenSha256: opts.accessTokenSha256,
    nonceSha256: leading ? opts.nonceSha256(leading.nonce) : null,
    now,
  });
  if (!state) throw new Oid4vciError('invalid_token', 'The access token is unknown or expired');
  const target = usableTarget(state, now);
  const configuration = requestedConfiguration(opts.body);
  const maker = prepareMaker(opts.makers, configuration, target);
  let parsed;
  try {
    parsed = library.parseCredentialRequest({
      issuerMetadata: opts.metadata,
      credentialRequest: opts.body as Record<string, unknown>,
    });
  } catch (err) {
    throw new Oid4vciError('invalid_credential_request', (err as Error).message.split('\n')[0]!);
  }
  const jwts = parsed.proofs?.jwt;
  if (!jwts || jwts.length !== 1) {
    throw new Oid4vciError('invalid_proof', 'Send exactly one key proof, of proof type jwt');
  }
  const jwt = jwts[0]!;
  const readAhead = leading?.jwt === jwt;
  const nonce = readAhead ? leading.nonce : proofNonce(jwt);
  const nonceHash = opts.nonceSha256(nonce);
  const nonceExpiresAt = readAhead
    ? state.nonceExpiresAt
    : await grants.nonceExpiry(db, accountId, nonceHash, now);
  if (!nonceExpiresAt) throw staleNonce();
  const { holder } = await checkKeyProof(library, {
    metadata: opts.metadata,
    jwt,
    nonce,
    nonceExpiresAt,
    now,
  });
  const credential = await make(maker, configuration, holder, now);
  const outcome = await recordClaimAtOnce(db, {
    tokenId: target.tokenId,
    certificateId: target.certificateId,
    accountId,
    at: now,
    grant: { kind: 'nonce', nonceSha256: nonceHash },
    holderDid: holder.did,
    protocol: 'OID4VCI',
    format: FORMAT_OF[configuration],
  });
  if (outcome === 'grant_spent') throw staleNonce();
  if (outcome === 'used_up') {
    throw new Oid4vciError('credential_request_denied', new ClaimTokenGoneError('used_up').message);
  }
  return library.createCredentialResponse({ credentialRequest: parsed, credentials: [{ credential }] });
}

function staleNonce(): Oid4vciError {
  return new Oid4vciError(
    'invalid_nonce',
    'The c_nonce is unknown, used or expired: get a new one from the nonce endpoint',
  );
}
