import { randomUUID } from 'node:crypto';
import { signFromTemplate } from '../../platform/proof/data-integrity.js';
import { compileRdfTemplate, slot, type RdfTemplate } from '../../platform/proof/rdf-template.js';
import { ValidationError } from '../../platform/errors.js';
import { credentialShape, type OpenBadgeCredential } from './open-badge.js';
import type { CredentialKey } from './signing-keys.service.js';

// The credential a wallet receives when the recipient claims (issue 31, decisions 22): the frozen
// credential's issuer, name, identifiers, achievement, validFrom, validUntil and credentialStatus
// (the same status entry: one revocation revokes both), a new id, credentialSubject.id the holder's
// DID, signed at claim time by the account's current key. Speed-first: the frozen shape with the
// subject id is compiled once into RDF templates (without and with validUntil), as at issue, so a
// claim costs RDFC-1.0 and one signature rather than a JSON-LD expansion.

// A DID as DID Core's syntax allows (method, method-specific id with ':' '.' '-' '_' '%' escapes),
// an IRI safe in N-Quads; fragments, queries and paths are not a subject's id.
const DID = /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})*(?::(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})+)*$/;
const MAX_DID_LENGTH = 2048;

export function isHolderDid(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_DID_LENGTH && DID.test(value);
}

// The values, in slot order: 0-13 as in open-badge.ts, 14 validUntil, 15 the holder's DID, 16 and
// 17 the contexts, 18 the achievement's name (credentialShape's `bound` form).
const shape = (v: (i: number) => string, expiring: boolean) => credentialShape(v, expiring, true);

type Frozen = OpenBadgeCredential & { proof?: unknown };

// The frozen credential's values; undefined when it is not of the shape we issue (then the caller
// refuses rather than sign something it did not read fully).
function frozenValues(frozen: Frozen): string[] | undefined {
  const s = frozen.credentialSubject;
  const [name, email] = s?.identifier ?? [];
  const list = [
    '',
    frozen.issuer?.id,
    frozen.issuer?.name,
    frozen.validFrom,
    frozen.name,
    name?.identityHash,
    email?.identityHash,
    email?.salt,
    s?.achievement?.id,
    s?.achievement?.description,
    s?.achievement?.criteria?.narrative,
    frozen.credentialStatus?.id,
    frozen.credentialStatus?.statusListIndex,
    frozen.credentialStatus?.statusListCredential,
    frozen.validUntil ?? '',
    '',
    frozen['@context']?.[0],
    frozen['@context']?.[1],
    s?.achievement?.name,
  ];
  if (list.slice(1).some((x) => typeof x !== 'string')) return undefined;
  if (frozen['@context']?.length !== 2) return undefined;
  return list as string[];
}

export function createBoundCredentials() {
  // The contexts are slots too, so they must be absolute IRIs the loader knows when compiling: the
  // compiled template is keyed by the frozen context (one per context pair, in practice one).
  const templates = new Map<string, Promise<RdfTemplate>>();
  const templateFor = (context: [string, string], expiring: boolean) => {
    const key = `${expiring}|${context.join('|')}`;
    let t = templates.get(key);
    if (!t) {
      const withSlots = shape(slot, expiring);
      t = compileRdfTemplate({ ...withSlots, '@context': context });
      templates.set(key, t);
      t.catch(() => templates.delete(key));
    }
    return t;
  };

  return {
    /**
     * The frozen credential read from its bytes (parsed, its template compiled or found), while the
     * claim's other checks run; then bound to `holderDid`, ready to be signed by `key` at `now`:
     * every refusal comes before the signature, so that a claim can be recorded before it is signed
     * (oid4vci-credential.ts).
     */
    async read(frozenBytes: Buffer) {
      const frozen = JSON.parse(frozenBytes.toString('utf8')) as Frozen;
      const read = frozenValues(frozen);
      if (!read) throw new Error('The frozen credential is not of a known shape');
      const expiring = Boolean(frozen.validUntil);
      const template = await templateFor([read[16]!, read[17]!], expiring);
      return (input: { holderDid: string; key: CredentialKey; now: Date }) => {
        if (!isHolderDid(input.holderDid)) {
          throw new ValidationError([{ path: ['holder'], message: 'The holder must be a DID' }]);
        }
        const values = [...read];
        values[0] = `urn:uuid:${randomUUID()}`;
        values[15] = input.holderDid;
        const document = shape((i) => values[i]!, expiring);
        if (!expiring) delete (document as { validUntil?: string }).validUntil;
        return () => signFromTemplate(document, template, values, input.key.signer, input.now.toISOString());
      };
    },
  };
}

export type BoundCredentials = ReturnType<typeof createBoundCredentials>;
