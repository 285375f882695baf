import { createHash } from 'node:crypto';
import { secureRandomBytes } from '../../platform/ids.js';
import { OB_V3, VC_V2 } from '../../platform/proof/contexts.js';
import { slot } from '../../platform/proof/rdf-template.js';

// A certificate as an Open Badges 3.0 OpenBadgeCredential (W3C VC Data Model 2.0): the issuer's
// Profile under its did:web, the recipient's name as an IdentityObject, the email only salted and
// hashed, the achievement (what was earned), and the revocation entry of the account's status list.

export interface CredentialFacts {
  certificateId: string;
  issuedAt: string; // ISO 8601, the certificate's issue time
  issuerDid: string;
  issuerName: string;
  recipientName: string;
  recipientEmail: string;
  achievementId: string; // an absolute IRI
  title: string; // what was earned (the certificate's frozen title)
  templateName: string;
  /** The design's recipientDescription: the achievement's description (the template name when none). */
  recipientDescription: string | null;
  statusListUrl: string;
  statusIndex: number;
  /** ISO 8601: the certificate's expiry, the credential's validUntil; null or absent when none. */
  expiresAt?: string | null;
}

// OB 3.0's hashed identity: "sha256$" + hex SHA-256 of the address followed by the salt.
export function hashedEmail(email: string, salt: string): string {
  return `sha256$${createHash('sha256')
    .update(email.toLowerCase() + salt, 'utf8')
    .digest('hex')}`;
}

// The values of one credential, in slot order; the document shape below names them by index.
// An expiring credential has one more value (validUntil, slot 14).
function values(f: CredentialFacts, salt: string): string[] {
  const list = [
    `urn:uuid:${f.certificateId}`,
    f.issuerDid,
    f.issuerName,
    f.issuedAt,
    f.title,
    f.recipientName,
    hashedEmail(f.recipientEmail, salt),
    salt,
    f.achievementId,
    // Never the template's internal description (decisions 24): what the template says to recipients,
    // or its name, the same on every credential of the achievement.
    f.recipientDescription?.trim() || f.templateName,
    f.templateName,
    `${f.statusListUrl}#${f.statusIndex}`,
    String(f.statusIndex),
    f.statusListUrl,
  ];
  if (f.expiresAt) list.push(f.expiresAt);
  return list;
}

// validUntil is a key of its own: a credential with it is a second shape (its own RDF template),
// not the first shape with an empty value. `bound`: the credential a wallet receives on a claim
// (bound-credential.ts): the subject's id the holder's DID (slot 15), the frozen credential's
// contexts (16, 17) and achievement name (18) as values.
export function credentialShape(v: (i: number) => string, expiring: boolean, bound = false) {
  return {
    '@context': bound ? [v(16), v(17)] : [VC_V2, OB_V3],
    id: v(0),
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    issuer: { id: v(1), type: ['Profile'], name: v(2) },
    validFrom: v(3),
    ...(expiring ? { validUntil: v(14) } : {}),
    name: v(4),
    credentialSubject: {
      ...(bound ? { id: v(15) } : {}),
      type: ['AchievementSubject'],
      identifier: [
        { type: 'IdentityObject', identityType: 'name', hashed: false, identityHash: v(5) },
        {
          type: 'IdentityObject',
          identityType: 'emailAddress',
          hashed: true,
          identityHash: v(6),
          salt: v(7),
        },
      ],
      achievement: {
        id: v(8),
        type: ['Achievement'],
        name: v(bound ? 18 : 4),
        description: v(9),
        criteria: { narrative: v(10) },
      },
    },
    credentialStatus: {
      id: v(11),
      type: 'BitstringStatusListEntry',
      statusPurpose: 'revocation',
      statusListIndex: v(12),
      statusListCredential: v(13),
    },
  };
}

export type OpenBadgeCredential = ReturnType<typeof credentialShape> & { validUntil?: string };

// The documents with slot tokens for their values: each compiled once into an RDF template.
export const CREDENTIAL_SHAPE = credentialShape(slot, false);
export const EXPIRING_CREDENTIAL_SHAPE = credentialShape(slot, true);

export function openBadgeCredential(
  facts: CredentialFacts,
  salt = secureRandomBytes(16).toString('base64url'),
): { document: OpenBadgeCredential; values: string[] } {
  const list = values(facts, salt);
  return { document: credentialShape((i) => list[i]!, Boolean(facts.expiresAt)), values: list };
}
