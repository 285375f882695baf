import { digest, generateSalt } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance, type SdJwtVcPayload } from '@sd-jwt/sd-jwt-vc';
import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import type { SdJwtKey, SdJwtKeys } from './sd-jwt-keys.js';
import {
  entryOf,
  lockSubject,
  subjectWithEntry,
  takeEntry,
  type CurrentKeyRow,
  type SdJwtSubject,
  type TokenStatusEntry,
} from './sd-jwt-status.repository.js';

// A certificate as an SD-JWT VC (decisions section 22): the EU wallets' format, issued on demand
// (the OID4VCI credential endpoint), bound to the holder's key (cnf.jwk), signed ES256 by the
// account's SD-JWT key, every claim selectively disclosable, its revocation status in an IETF Token
// Status List. Made with @sd-jwt/sd-jwt-vc; nothing of it is stored but the status entry.

export const LEARNING_CREDENTIAL_VCT = 'urn:eu.europa.ec.eudi:learning:credential:1';

/** The credential issuer identifier of an account: its SD-JWT VCs' `iss`. */
export function sdJwtIssuer(publicBaseUrl: string, accountId: string): string {
  return `${publicBaseUrl}/issuers/${accountId}`;
}

export function tokenStatusListUrl(publicBaseUrl: string, accountId: string, n: number): string {
  return `${publicBaseUrl}/issuers/${accountId}/token-status/${n}`;
}

/** The holder's public key, as the wallet proved it (a key proof's JWK). */
export type HolderJwk = Record<string, unknown>;

export interface SdJwtVcRequest {
  accountId: string;
  certificateId: string;
  holderJwk: HolderJwk;
  now: Date;
}

// The disclosure frame type, as the library's issue() takes it.
type Frame<P extends SdJwtVcPayload> = NonNullable<Parameters<SDJwtVcInstance['issue']>[1]> & {
  _sd?: (keyof P)[];
};

const day = (d: Date) => d.toISOString().slice(0, 10);
const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

// A public key only: a JWK with a private part (or none at all) is refused, never signed into cnf.
function holderKey(jwk: HolderJwk): HolderJwk {
  const issue = (message: string) => new ValidationError([{ path: ['holderJwk'], message }]);
  if (typeof jwk !== 'object' || jwk === null || typeof jwk.kty !== 'string')
    throw issue('must be a JSON Web Key with kty');
  if ('d' in jwk || 'p' in jwk || 'k' in jwk) throw issue('must be a public key');
  return jwk;
}

interface SubjectAndEntry {
  subject: SdJwtSubject;
  entry: TokenStatusEntry;
  /** The account's current key when the statement read it (CurrentKeyRow). */
  key?: CurrentKeyRow;
}

function claimsOf(subject: SdJwtSubject) {
  const expiry = subject.expiresOn ?? (subject.expiresAt && day(subject.expiresAt));
  return {
    name: subject.recipientName,
    achievement_title: subject.title,
    issuer_name: subject.issuerName,
    issuance_date: day(subject.issuedAt!),
    ...(expiry ? { expiry_date: expiry } : {}),
  };
}

function signWith(key: SdJwtKey) {
  return new SDJwtVcInstance({
    signer: key.sign,
    signAlg: 'ES256',
    hasher: digest,
    hashAlg: 'sha-256',
    saltGenerator: generateSalt,
  });
}

export function createSdJwtIssuing(deps: { db: Db; publicBaseUrl: string; keys: SdJwtKeys }) {
  const { db } = deps;

  function checkIssuable(subject: SdJwtSubject | undefined, now: Date): SdJwtSubject {
    if (!subject || subject.status === 'Draft') throw new NotFoundError('Certificate');
    if (subject.status === 'Revoked') throw new ConflictError('The certificate is revoked');
    if (subject.expiresAt && subject.expiresAt <= now) throw new ConflictError('The certificate has expired');
    return subject;
  }

  // The certificate, checked issuable at `now`, and its status entry (taken on its first SD-JWT VC,
  // committed before the credential leaves): in one statement usually, in a transaction when that
  // statement could not take an entry. `flush: 'later'` for a claim, whose record commits
  // synchronously after it and before the credential leaves (subjectWithEntry).
  async function subjectAndEntry(
    req: Omit<SdJwtVcRequest, 'holderJwk'>,
    flush: 'now' | 'later' = 'now',
  ): Promise<SubjectAndEntry> {
    const read = await subjectWithEntry(db, { ...req, flush });
    const subject = checkIssuable(read?.subject, req.now);
    if (read?.entry) return { subject, entry: read.entry, key: read.key };
    return db.transaction(async (tx) => {
      const subject = checkIssuable(await lockSubject(tx, req.accountId, req.certificateId), req.now);
      const entry =
        (await entryOf(tx, req.accountId, req.certificateId)) ??
        (await takeEntry(tx, req.accountId, req.certificateId));
      return { subject, entry };
    });
  }

  // The certificate with its entry and the account's current key: usually one statement; the key
  // alone is read (made on first use) only when that statement did not bring it, and never for a
  // certificate that is refused.
  async function readWithKey(req: Omit<SdJwtVcRequest, 'holderJwk'>, flush: 'now' | 'later') {
    const read = await subjectAndEntry(req, flush);
    return { read, key: await deps.keys.currentFrom(req.accountId, read.key) };
  }

  function sign(
    key: SdJwtKey,
    jwk: HolderJwk,
    req: Omit<SdJwtVcRequest, 'holderJwk'>,
    read: SubjectAndEntry,
  ): Promise<string> {
    const { subject, entry } = read;
    const claims = claimsOf(subject);
    const payload: SdJwtVcPayload & typeof claims = {
      iss: sdJwtIssuer(deps.publicBaseUrl, req.accountId),
      iat: seconds(req.now),
      ...(subject.expiresAt ? { exp: seconds(subject.expiresAt) } : {}),
      vct: LEARNING_CREDENTIAL_VCT,
      cnf: { jwk },
      status: {
        status_list: {
          idx: entry.idx,
          uri: tokenStatusListUrl(deps.publicBaseUrl, req.accountId, entry.list),
        },
      },
      ...claims,
    };
    const frame = { _sd: Object.keys(claims) } as Frame<typeof payload>;
    return signWith(key).issue(payload, frame, { header: { kid: key.kid } });
  }

  return {
    /** The certificate as a compact SD-JWT VC (issuer-signed JWT and its disclosures, `~` ended),
     * bound to `holderJwk`. NotFoundError for an unknown or draft certificate; ConflictError when it
     * is revoked or expired; ValidationError for a JWK that is not a public key. */
    async issueSdJwtVc(req: SdJwtVcRequest): Promise<string> {
      const jwk = holderKey(req.holderJwk);
      deps.keys.usable(); // no key vault: refused before anything is read, as it always has been
      const { key, read } = await readWithKey(req, 'now');
      return sign(key, jwk, req, read);
    },

    /** For a claim: the account's current key (made on first use) and the certificate with its
     * status entry, read while the claim's key proof is checked; then bound to the holder's key
     * (every refusal: the key's, the holder's JWK's, then the certificate's), ready
     * to be signed while the claim is recorded. The entry is the certificate's, taken on its first
     * SD-JWT VC even if the claim is then refused (it names the certificate, nothing else). Its
     * commit is not waited for on disk: the claim's record, committed synchronously before the
     * credential leaves, flushes it (the caller must record the claim so); a refused claim leaves an
     * entry that a crash may lose, and then nothing named it. */
    async sdJwtVcIssuer(input: { accountId: string; certificateId: string; now: Date }) {
      deps.keys.usable();
      const [made] = await Promise.allSettled([readWithKey(input, 'later')]);
      return (holderJwk: HolderJwk) => {
        const jwk = holderKey(holderJwk);
        if (made.status === 'rejected') throw made.reason;
        return () => sign(made.value.key, jwk, input, made.value.read);
      };
    },
  };
}
