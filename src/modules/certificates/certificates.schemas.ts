import { Type, type Static } from 'typebox';
import { DATA_KEY_PATTERN, UUID_PATTERN } from '../../platform/ids.js';
import { EXAMPLE, PageQuery, Timestamp } from '../../platform/http/schemas.js';
import { SERVICE_VALIDATED_ITEMS } from '../../platform/ajv.js';
import {
  BATCH_MAX_RECIPIENTS,
  DATA_VALUE_MAX_LENGTH,
  EMAIL_MAX_LENGTH,
  LIST_ITEM_MAX_KEYS,
  LIST_MAX_ITEMS,
  REASON_MAX_LENGTH,
} from '../../platform/limits.js';

// A list field's value (decisions 24): an array of flat objects, one per row of the table that shows it.
export const ListItem = Type.Object(
  {},
  {
    description: `One item of a list: at most ${LIST_ITEM_MAX_KEYS} keys matching ${DATA_KEY_PATTERN}, each a string (<= ${DATA_VALUE_MAX_LENGTH.toLocaleString('en-US')} chars) or a number: the table's columns show the values of their keys.`,
    maxProperties: LIST_ITEM_MAX_KEYS,
    patternProperties: {
      [DATA_KEY_PATTERN]: Type.Union([Type.String({ maxLength: DATA_VALUE_MAX_LENGTH }), Type.Number()]),
    },
    additionalProperties: false,
  },
);

export const ListValue = Type.Array(ListItem, { maxItems: LIST_MAX_ITEMS });

export const RecipientData = Type.Object(
  {},
  {
    description: `Flat key/value data filled into the template: at most 50 keys matching ${DATA_KEY_PATTERN}; values are strings (<= ${DATA_VALUE_MAX_LENGTH.toLocaleString('en-US')} chars), numbers or booleans, and for a field of type list an array of at most ${LIST_MAX_ITEMS} objects (e.g. "units": [{"name": "Manual handling", "hours": 6, "grade": "Merit"}]), shown one row per item by the design's table. A list for a text field, or a value that is not a list for a list field, is refused (422, naming the path); a required list field needs at least one item. Keys the design does not use are kept.`,
    maxProperties: 50,
    patternProperties: {
      [DATA_KEY_PATTERN]: Type.Union([
        Type.String({ maxLength: DATA_VALUE_MAX_LENGTH }),
        Type.Number(),
        Type.Boolean(),
        ListValue,
      ]),
    },
    additionalProperties: false,
  },
);

export const Recipient = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 1000,
      description:
        'Becomes recipientName; 1 to 200 characters after trimming. Printed shaped and in its own direction in ' +
        'Latin (with Vietnamese), Greek, Cyrillic, Armenian, Georgian, Hebrew, Arabic (with Persian and Urdu), ' +
        'Devanagari, Bengali, Tamil, Thai, Chinese (simplified and traditional), Japanese and Korean. A character no ' +
        'bundled font has (e.g. emoji), a control character or a bidi override or isolate (U+202A-U+202E, ' +
        'U+2066-U+2069) is refused with 422 naming it at this path; in a batch only that recipient fails.',
    }),
    email: Type.String({ format: 'email', maxLength: EMAIL_MAX_LENGTH }),
    data: Type.Optional(RecipientData),
    expiresAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          "When this certificate expires (ISO 8601 date-time with seconds and a time zone, Z or any offset, e.g. 2028-11-21T00:00:00Z or 2028-11-26T00:00:00+01:00), after the issue time; overrides the template's validity. Frozen at issue. The instant decides expiry; the date part as written is the day the verification page shows (2028-11-26T00:00:00+01:00: 26 November 2028).",
      }),
    ),
  },
  { additionalProperties: false, title: 'Recipient' },
);

export const IssueBody = Type.Object(
  {
    templateId: Type.String({ pattern: UUID_PATTERN, description: 'An active template of the account' }),
    recipient: Type.Optional(Recipient),
    recipients: Type.Optional(
      Type.Array(Recipient, {
        minItems: 1,
        maxItems: BATCH_MAX_RECIPIENTS,
        [SERVICE_VALIDATED_ITEMS]: true,
        description: `Batch mode, 1 to ${BATCH_MAX_RECIPIENTS} recipients. Each recipient is validated on its own: an invalid one becomes a failed result item, it does not fail the request.`,
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Exactly one of recipient (single mode) or recipients (batch mode).',
    examples: [
      {
        templateId: EXAMPLE.templateId,
        recipient: {
          name: 'Zoë Ångström',
          email: 'zoe@example.com',
          data: { course: 'Safe Lifting', hours: 12 },
        },
      },
      {
        templateId: EXAMPLE.templateId,
        recipients: [
          { name: 'Zoë Ångström', email: 'zoe@example.com', data: { course: 'Safe Lifting', hours: 12 } },
          { name: 'محمد علي', email: 'mohammed@example.com', data: { course: 'Safe Lifting' } },
        ],
      },
    ],
  },
);

export const CertificateStatus = Type.Union([
  Type.Literal('Draft'),
  Type.Literal('Issued'),
  Type.Literal('Revoked'),
]);

export const Certificate = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    uniqueCode: Type.String({ description: '16 characters of Crockford base32; public' }),
    templateId: Type.String({ format: 'uuid' }),
    recipientName: Type.String(),
    recipientEmail: Type.String(),
    title: Type.String({
      description:
        "What was earned: the template's title filled at issue (e.g. the course), or the template name; frozen like the PDF",
    }),
    data: Type.Object({}, { additionalProperties: true }),
    status: CertificateStatus,
    verificationUrl: Type.String({ format: 'uri' }),
    issuedAt: Type.Union([Timestamp, Type.Null()]),
    expiresAt: Type.Union([Timestamp, Type.Null()], {
      description:
        "When the certificate expires (the recipient's expiresAt, or the issue time plus the template's validity), frozen at issue; null when it does not expire. An expired certificate stays Issued; verification says expired.",
    }),
    revokedAt: Type.Union([Timestamp, Type.Null()]),
    revocationReason: Type.Union([Type.String(), Type.Null()], {
      description: 'Public: shown by verification',
    }),
    downloadCount: Type.Integer(),
    emailCount: Type.Integer(),
    verificationCount: Type.Integer(),
    createdAt: Timestamp,
  },
  { $id: 'Certificate', title: 'Certificate' },
);

export const BatchResult = Type.Object(
  {
    created: Type.Integer(),
    failed: Type.Integer(),
    results: Type.Array(
      Type.Union([
        Type.Object({
          index: Type.Integer(),
          status: Type.Literal('created'),
          certificate: Type.Ref('Certificate'),
        }),
        Type.Object({
          index: Type.Integer(),
          status: Type.Literal('failed'),
          error: Type.Object({
            code: Type.String({ description: 'validation_error or quota_exceeded' }),
            message: Type.String(),
            details: Type.Optional(Type.Object({}, { additionalProperties: true })),
          }),
        }),
      ]),
      { description: 'One item per input recipient, in input order' },
    ),
  },
  {
    $id: 'BatchResult',
    title: 'BatchResult',
    description: 'The answer of a batch issue (recipients): counters and one result per recipient',
  },
);

export const ListQuery = Type.Object({
  status: Type.Optional(CertificateStatus),
  createdAfter: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'Only certificates created strictly after this instant (ISO 8601, e.g. 2026-11-21T09:30:00.000Z). ' +
        'Certificates of one batch share their createdAt, so poll with the newest createdAt of a previous ' +
        'poll only after reading all of its pages.',
    }),
  ),
  recipientEmail: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: EMAIL_MAX_LENGTH,
      description: 'Only certificates issued to this email address (exact match, case-insensitive)',
    }),
  ),
  templateId: Type.Optional(
    Type.String({ pattern: UUID_PATTERN, description: 'Only certificates issued from this template' }),
  ),
  expired: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description:
        'true: only certificates whose expiresAt has passed; false: only those that have not expired (no expiresAt, or one still ahead)',
    }),
  ),
  expiresBefore: Type.Optional(
    Type.String({
      format: 'date-time',
      description:
        'Only certificates that expire strictly before this instant (ISO 8601); never those without expiry',
    }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Recipient name search: certificates whose name contains this text, ignoring case and accents ' +
        '("zoe ang" finds "Zoë Ångström"); works in every script.',
    }),
  ),
  ...PageQuery,
});

export const RevokeBody = Type.Object(
  {
    reason: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: REASON_MAX_LENGTH,
        description: 'Public: verification shows it to anyone holding the code',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Optional; an empty body is fine',
    examples: [{ reason: 'Issued to the wrong person' }],
  },
);

export const ReissueBody = Type.Object(
  { recipient: Recipient },
  {
    additionalProperties: false,
    description:
      "The corrected recipient (name, email, data, and optionally expiresAt), validated like POST /certificates' recipient against the template's current version",
    examples: [
      {
        recipient: {
          name: 'Zoë Ångström',
          email: 'zoe.angstrom@example.com',
          data: { course: 'Safe Lifting', hours: 12 },
        },
      },
    ],
  },
);

export const CERTIFICATE_EXAMPLE: Static<typeof Certificate> = {
  id: EXAMPLE.certificateId,
  uniqueCode: EXAMPLE.uniqueCode,
  templateId: EXAMPLE.templateId,
  recipientName: 'Zoë Ångström',
  recipientEmail: 'zoe@example.com',
  title: 'Safe Lifting',
  data: { course: 'Safe Lifting', hours: 12 },
  status: 'Issued',
  verificationUrl: EXAMPLE.verificationUrl,
  issuedAt: EXAMPLE.issuedAt,
  expiresAt: null,
  revokedAt: null,
  revocationReason: null,
  downloadCount: 0,
  emailCount: 0,
  verificationCount: 0,
  createdAt: EXAMPLE.issuedAt,
};

export const REVOKED_EXAMPLE: Static<typeof Certificate> = {
  ...CERTIFICATE_EXAMPLE,
  status: 'Revoked',
  revokedAt: '2026-11-21T14:05:00.000Z',
  revocationReason: 'Issued to the wrong person',
};

export const REISSUED_EXAMPLE: Static<typeof Certificate> = {
  ...CERTIFICATE_EXAMPLE,
  id: '0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c80',
  uniqueCode: 'QX4M9T2ZRB4D8F7K',
  recipientEmail: 'zoe.angstrom@example.com',
  verificationUrl: EXAMPLE.verificationUrl.replace(EXAMPLE.uniqueCode, 'QX4M9T2ZRB4D8F7K'),
};

// The batch of the request example with one certificate of quota left: a created and a failed item.
export const BATCH_EXAMPLE = {
  created: 1,
  failed: 1,
  results: [
    { index: 0, status: 'created', certificate: CERTIFICATE_EXAMPLE },
    {
      index: 1,
      status: 'failed',
      error: { code: 'quota_exceeded', message: 'The certificate quota of the current period is exhausted' },
    },
  ],
};
