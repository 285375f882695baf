import { Type, type Static } from 'typebox';
import { Timestamp } from '../../platform/http/schemas.js';

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
