import { Type, type Static } from 'typebox';
import { EXAMPLE, Timestamp } from '../../platform/http/schemas.js';

// What public verification shows: never the email, the data or internal ids.
export const Verification = Type.Object(
  {
    valid: Type.Boolean({ description: 'True only for Issued' }),
    status: Type.Union([Type.Literal('Issued'), Type.Literal('Revoked')]),
    uniqueCode: Type.String(),
    recipientName: Type.String(),
    issuedAt: Timestamp,
    revokedAt: Type.Union([Timestamp, Type.Null()]),
    revocationReason: Type.Union([Type.String(), Type.Null()]),
    title: Type.String({
      description:
        'What was earned (e.g. the course), frozen at issue; the template name when the design has no title',
    }),
    templateName: Type.String(),
    issuerName: Type.String(),
    verificationUrl: Type.String({ format: 'uri' }),
    pdfSha256: Type.String({ description: 'Hex SHA-256 of the frozen PDF: compare with a PDF in hand' }),
  },
  { title: 'Verification' },
);

export type Verification = Static<typeof Verification>;

export const VERIFICATION_EXAMPLE: Verification = {
  valid: true,
  status: 'Issued',
  uniqueCode: EXAMPLE.uniqueCode,
  recipientName: 'Zoë Ångström',
  issuedAt: EXAMPLE.issuedAt,
  revokedAt: null,
  revocationReason: null,
  title: 'Safe Lifting',
  templateName: 'Course completion',
  issuerName: 'Northwind Academy',
  verificationUrl: EXAMPLE.verificationUrl,
  pdfSha256: '9f2c4e1a7b3d5f60812a4c6e8b0d2f4a6c8e0b2d4f6a8c0e2b4d6f8a0c2e4b6d',
};
