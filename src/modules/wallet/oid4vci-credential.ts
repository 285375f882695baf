import type { JsonWebKey } from 'node:crypto';
import type { IssuerMetadataResult, Openid4vciIssuer } from '@openid4vc/openid4vci';
import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { ClaimTokenGoneError, claimTargetOf, type ClaimTarget } from '../shared/claim-tokens.js';
import { recordClaimAtOnce } from './claims.repository.js';
import * as grants from './oid4vci-grants.repository.js';
import { Oid4vciError } from './oid4vci-errors.js';
import { checkKeyProof, proofNonce } from './oid4vci-key-proof.js';
import { letStatementsOut } from '../../platform/event-loop.js';
import { CONFIGURATION_IDS, FORMAT_OF, type ConfigurationId } from './oid4vci-metadata.js';
import type { HolderKey } from './oid4vci-proof-keys.js';

// The credential endpoint's work (OID4VCI 1.0 section 8): the claim token behind the access token
// must still be usable; the request names one configuration and carries one jwt key proof with a
// c_nonce of this issuer; the credential is bound to the proof's holder, then the nonce is used up,
// the claim counted and recorded in one statement, and the credential leaves once that has
// committed. Nothing of the claim is written when anything is refused (an SD-JWT VC's request may
// have taken the certificate's own status entry: CredentialMakers).
// Speed-first (issue 31: a claim costs one signature): the CPU work overlaps the database's. The
// access token, its claim token and the proof's c_nonce are read in one round trip while the
// request is parsed; what the credential needs of the certificate (the frozen credential, parsed,
// and the account's key; the SD-JWT VC's status entry) is read while the proof is checked; the
// credential is signed while the claim's record commits. The refusals come in the order they always have (token, request, proof, then the
// certificate's), all before the claim is recorded: the signature refuses nothing.

/** The last step of making a credential: its signature, which refuses nothing. */
export type Signing<T> = () => Promise<T>;

/**
 * How the two formats are made; the composition root wires them to the proof module. Each first
 * reads what it needs of the certificate and the account (the SD-JWT VC's status entry is taken
 * there, the certificate's own: it runs while the key proof is checked), then binds the credential
 * to the proven holder (every refusal of the certificate's comes there), then signs it at `now`.
 */
export interface CredentialMakers {
  /** The Open Badges 3.0 credential bound to the holder's DID, signed now (ldp_vc). */
  ldpVc?: (input: MakerInput) => Promise<(holderDid: string) => Signing<Record<string, unknown>>>;
  /** The SD-JWT VC (dc+sd-jwt) with the holder's public key as its confirmation key. */
  sdJwt?: (input: MakerInput) => Promise<(holderJwk: JsonWebKey) => Signing<string>>;
}

interface MakerInput {
  accountId: string;
  certificateId: string;
  now: Date;
}

type Maker = (holder: HolderKey) => Signing<string | Record<string, unknown>>;

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

/**
 * The c_nonce of the request's one key proof, read ahead of the checks (which read it again, in
 * full: proofNonce); undefined when unreadable.
 */
function leadingNonce(body: unknown): { jwt: string; nonce: string } | undefined {
  const jwt = (body as { proofs?: { jwt?: unknown[] } } | null)?.proofs?.jwt?.[0];
  const payload = typeof jwt === 'string' ? jwt.split('.')[1] : undefined;
  if (payload === undefined) return undefined;
  try {
    const read = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { nonce?: unknown } | null;
    return typeof read?.nonce === 'string' && read.nonce !== ''
      ? { jwt: jwt as string, nonce: read.nonce }
      : undefined;
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
  now: Date,
): Promise<Maker | undefined> {
  const input = { accountId: target.accountId, certificateId: target.certificateId, now };
  const format = FORMAT_OF[configuration];
  let prepared: Promise<Maker | undefined> = Promise.resolve(undefined);
  if (format === 'ldp_vc' && makers.ldpVc) {
    prepared = makers.ldpVc(input).then((bind) => (holder) => bind(holder.did));
  } else if (format === 'dc+sd-jwt' && makers.sdJwt) {
    prepared = makers.sdJwt(input).then((bind) => (holder) => bind(holder.jwk));
  }
  prepared.catch(() => undefined);
  return prepared;
}

async function bind(
  prepared: Promise<Maker | undefined>,
  configuration: ConfigurationId,
  holder: HolderKey,
): Promise<Signing<string | Record<string, unknown>>> {
  try {
    const maker = await prepared;
    if (maker) return maker(holder);
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

type ParsedRequest = ReturnType<Openid4vciIssuer['parseCredentialRequest']>;

interface CheckedRequest {
  configuration: ConfigurationId;
  parsed: ParsedRequest;
  /** The one key proof, and the c_nonce it carries. */
  jwt: string;
  nonce: string;
}

// The request's own checks (CPU only: the configuration named, the library's parsing, the one key
// proof and its c_nonce), made while its state is read; what they find, or their refusal, is taken
// once the token has been checked.
function checkedRequest(
  library: Openid4vciIssuer,
  metadata: IssuerMetadataResult,
  body: unknown,
): () => CheckedRequest {
  try {
    const configuration = requestedConfiguration(body);
    let parsed: ParsedRequest;
    try {
      parsed = library.parseCredentialRequest({
        issuerMetadata: metadata,
        credentialRequest: body as Record<string, unknown>,
      });
    } catch (err) {
      throw new Oid4vciError('invalid_credential_request', (err as Error).message.split('\n')[0]!);
    }
    const jwts = parsed.proofs?.jwt;
    if (!jwts || jwts.length !== 1) {
      throw new Oid4vciError('invalid_proof', 'Send exactly one key proof, of proof type jwt');
    }
    const jwt = jwts[0]!;
    const checked = { configuration, parsed, jwt, nonce: proofNonce(jwt) };
    return () => checked;
  } catch (err) {
    return () => {
      throw err;
    };
  }
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
  const reading = grants.credentialRequestState(db, {
    accountId,
    tokenSha256: opts.accessTokenSha256,
    nonceSha256: leading ? opts.nonceSha256(leading.nonce) : null,
    now,
  });
  reading.catch(() => undefined);
  await letStatementsOut();
  const request = checkedRequest(library, opts.metadata, opts.body);
  const state = await reading;
  if (!state) throw new Oid4vciError('invalid_token', 'The access token is unknown or expired');
  const target = usableTarget(state, now);
  const { configuration, parsed, jwt, nonce } = request();
  const maker = prepareMaker(opts.makers, configuration, target, now);
  const readAhead = leading?.jwt === jwt && leading.nonce === nonce;
  const nonceHash = opts.nonceSha256(nonce);
  const nonceExpiresAt = readAhead
    ? state.nonceExpiresAt
    : await grants.nonceExpiry(db, accountId, nonceHash, now);
  if (!nonceExpiresAt) throw staleNonce();
  await letStatementsOut();
  const { holder } = await checkKeyProof(library, {
    metadata: opts.metadata,
    jwt,
    nonce,
    nonceExpiresAt,
    now,
  });
  const signing = await bind(maker, configuration, holder);
  // Recorded first, signed while the record commits; the credential leaves once both are done. A
  // signature that failed (a fault, never a refusal) would leave a claim counted and nothing sent.
  const recording = recordClaimAtOnce(db, {
    tokenId: target.tokenId,
    certificateId: target.certificateId,
    accountId,
    at: now,
    grant: { kind: 'nonce', nonceSha256: nonceHash },
    holderDid: holder.did,
    protocol: 'OID4VCI',
    format: FORMAT_OF[configuration],
  });
  recording.catch(() => undefined);
  await letStatementsOut();
  const credential = await signing();
  const outcome = await recording;
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
