import { createHash } from 'node:crypto';
import {
  createHeaderAndPayload,
  StatusList,
  type StatusListJWTHeaderParameters,
} from '@sd-jwt/jwt-status-list';
import type { Db } from '../../platform/db/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { findAccount } from '../accounts/accounts.repository.js';
import type { SdJwtKeys } from './sd-jwt-keys.js';
import { readTokenStatusList } from './sd-jwt-status.repository.js';
import { sdJwtIssuer, tokenStatusListUrl } from './sd-jwt-vc.js';

// What verifiers fetch to check an account's SD-JWT VCs: its JWT VC Issuer Metadata (the keys,
// retired ones too, by kid) and its Token Status Lists, each a JWT signed by the current key
// (re-signed only when the list changes, then served from memory).

/** How long a verifier may keep a status list before fetching it again, in seconds. */
export const STATUS_LIST_TTL = 60;

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

// The stored bits (entry i: bit i % 8 of byte i / 8, from the least significant bit) as the list of
// statuses the library encodes.
function statusesOf(bits: Buffer): number[] {
  const statuses = new Array<number>(bits.length * 8);
  for (let i = 0; i < statuses.length; i++) statuses[i] = (bits[i >> 3]! >> (i & 7)) & 1;
  return statuses;
}

export function createSdJwtDocuments(deps: { db: Db; publicBaseUrl: string; keys: SdJwtKeys }) {
  const { db, keys } = deps;
  const signedLists = new Map<string, Promise<string>>();

  async function signList(accountId: string, n: number, bits: Buffer, updatedAt: Date): Promise<string> {
    const key = await keys.current(accountId);
    const header: StatusListJWTHeaderParameters = { alg: 'ES256', typ: 'statuslist+jwt', kid: key.kid };
    const token = createHeaderAndPayload(
      new StatusList(statusesOf(bits), 1),
      {
        iss: sdJwtIssuer(deps.publicBaseUrl, accountId),
        sub: tokenStatusListUrl(deps.publicBaseUrl, accountId, n),
        iat: Math.floor(updatedAt.getTime() / 1000),
        ttl: STATUS_LIST_TTL,
      },
      header,
    );
    const input = `${base64url(token.header)}.${base64url(token.payload)}`;
    return `${input}.${await key.sign(input)}`;
  }

  return {
    // JWT VC Issuer Metadata (SD-JWT VC, section 5): the issuer identifier and its keys.
    async issuerMetadata(accountId: string) {
      if (!(await findAccount(db, accountId))) throw new NotFoundError('Issuer');
      const published = await keys.published(accountId, { make: true });
      return {
        issuer: sdJwtIssuer(deps.publicBaseUrl, accountId),
        jwks: { keys: published.map((k) => k.jwk) },
      };
    },

    // Token Status List n as a compact JWT (typ statuslist+jwt).
    async tokenStatusList(accountId: string, n: number): Promise<string> {
      const list = await readTokenStatusList(db, accountId, n);
      if (!list) throw new NotFoundError('Status list');
      const digest = createHash('sha256').update(list.bits).digest('base64url');
      const cacheKey = `${accountId}:${n}:${digest}`;
      let signed = signedLists.get(cacheKey);
      if (!signed) {
        signed = signList(accountId, n, list.bits, list.updatedAt);
        signed.catch(() => signedLists.delete(cacheKey));
        if (signedLists.size >= 256) signedLists.delete(signedLists.keys().next().value!);
        signedLists.set(cacheKey, signed);
      }
      return signed;
    },
  };
}
