import { Type, type Static } from 'typebox';
import { EXAMPLE, Timestamp } from '../../platform/http/schemas.js';

// What public verification shows: never the email, the data or internal ids.
export const Verification = Type.Object(
  {
    valid: Type.Boolean({ description: 'True only for Issued and not expired' }),
    status: Type.Union([Type.Literal('Issued'), Type.Literal('Revoked')]),
    uniqueCode: Type.String(),
    recipientName: Type.String(),
    issuedAt: Timestamp,
    expiresAt: Type.Union([Timestamp, Type.Null()], {
      description: 'When the certificate expires (frozen at issue); null when it does not',
    }),
    expired: Type.Boolean({
      description:
        'True from expiresAt on; an expired certificate keeps its status (Issued) but is not valid',
    }),
    revokedAt: Type.Union([Timestamp, Type.Null()]),
    revocationReason: Type.Union([Type.String(), Type.Null()]),
    title: Type.String({
      description:
        'What was earned (e.g. the course), frozen at issue; the template name when the design has no title',
    }),
    supersededBy: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
      description:
        'For a certificate revoked by a correction (POST /certificates/{id}/reissue): the verification URL of the certificate that replaced it',
    }),
    templateName: Type.String(),
    issuerName: Type.String({
      description: "The organisation's name the certificate was issued under (frozen at issue)",
    }),
    issuerCurrentName: Type.String({
      description:
        "The organisation's name now: equal to issuerName unless the organisation was renamed since",
    }),
    verificationUrl: Type.String({ format: 'uri' }),
    pdfSha256: Type.String({ description: 'Hex SHA-256 of the frozen PDF: compare with a PDF in hand' }),
    signed: Type.Boolean({
      description:
        'True when the certificate carries a signed Open Badges 3.0 credential (certificates issued before signing was introduced do not)',
    }),
    pdfSigned: Type.Boolean({
      description:
        'True when the frozen PDF carries a PAdES digital signature over the whole file and the credential as the attached file credential.json (PDFs issued before PDF signing was introduced do not)',
    }),
    issuerDid: Type.Union([Type.String(), Type.Null()], {
      description: "The issuer's did:web, whose DID document lists the keys that sign its credentials",
    }),
    credentialUrl: Type.Union([Type.String({ format: 'uri' }), Type.Null()], {
      description: 'Where the signed credential is served (GET, no key)',
    }),
  },
  { title: 'Verification' },
);

export type Verification = Static<typeof Verification>;

// What the verification page shows: the verification and the account's page extras.
// issuerCurrentName absent: the name it was issued under.
export type VerifyView = Omit<Verification, 'issuerCurrentName'> & {
  issuerCurrentName?: string;
  credentialSha256?: string | null;
  linkedinOrganizationId?: string | null;
  publicDownload?: boolean;
  expiresAt?: string | null;
  /** The issuer's calendar day of the expiry (YYYY-MM-DD): shown instead of expiresAt's UTC day. */
  expiresOn?: string | null;
};

export const VERIFICATION_EXAMPLE: Verification = {
  valid: true,
  status: 'Issued',
  uniqueCode: EXAMPLE.uniqueCode,
  recipientName: 'Zoë Ångström',
  issuedAt: EXAMPLE.issuedAt,
  expiresAt: null,
  expired: false,
  revokedAt: null,
  revocationReason: null,
  title: 'Safe Lifting',
  supersededBy: null,
  templateName: 'Course completion',
  issuerName: 'Northwind Academy',
  issuerCurrentName: 'Northwind Academy',
  verificationUrl: EXAMPLE.verificationUrl,
  pdfSha256: '9f2c4e1a7b3d5f60812a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d',
  signed: true,
  pdfSigned: true,
  issuerDid: 'did:web:certs.example.org:issuers:0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6d',
  credentialUrl: `https://certs.example.org/api/v1/verify/${EXAMPLE.uniqueCode}/credential`,
};
