import { createHash, randomBytes } from 'node:crypto';
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
  templateDescription: string | null;
  statusListUrl: string;
  statusIndex: number;
}

// OB 3.0's hashed identity: "sha256$" + hex SHA-256 of the address followed by the salt.
export function hashedEmail(email: string, salt: string): string {
  return `sha256$${createHash('sha256')
    .update(email.toLowerCase() + salt, 'utf8')
    .digest('hex')}`;
}

// The values of one credential, in slot order; the document shape below names them by index.
function values(f: CredentialFacts, salt: string): string[] {
  return [
    `urn:uuid:${f.certificateId}`,
    f.issuerDid,
    f.issuerName,
    f.issuedAt,
    f.title,
    f.recipientName,
    hashedEmail(f.recipientEmail, salt),
    salt,
    f.achievementId,
    f.templateDescription?.trim() || f.templateName,
    f.templateName,
    `${f.statusListUrl}#${f.statusIndex}`,
    String(f.statusIndex),
    f.statusListUrl,
  ];
}

function shape(v: (i: number) => string) {
  return {
    '@context': [VC_V2, OB_V3],
    id: v(0),
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
    issuer: { id: v(1), type: ['Profile'], name: v(2) },
    validFrom: v(3),
    name: v(4),
    credentialSubject: {
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
        name: v(4),
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

export type OpenBadgeCredential = ReturnType<typeof shape>;

// The document with slot tokens for its values: compiled once into an RDF template.
export const CREDENTIAL_SHAPE = shape(slot);

export function openBadgeCredential(
  facts: CredentialFacts,
  salt = randomBytes(16).toString('base64url'),
): { document: OpenBadgeCredential; values: string[] } {
  const list = values(facts, salt);
  return { document: shape((i) => list[i]!), values: list };
}
