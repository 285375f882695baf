import { Type, type Static } from 'typebox';
import { EXAMPLE, PageQuery, Timestamp } from '../../platform/http/schemas.js';
import { EMAIL_MAX_LENGTH } from '../../platform/limits.js';

export const SendBody = Type.Object(
  {
    recipientEmail: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: EMAIL_MAX_LENGTH,
        description: 'Overrides the stored address for this one send',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Optional; an empty body sends to the stored address',
    examples: [{ recipientEmail: 'zoe.angstrom@example.org' }],
  },
);

export const EmailSend = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    certificateId: Type.String({ format: 'uuid' }),
    recipientEmail: Type.String(),
    kind: Type.Union([Type.Literal('certificate'), Type.Literal('reminder'), Type.Literal('wallet_link')], {
      description:
        "certificate: the certificate email (a send, or email on issue); reminder: a renewal reminder before the expiry (the template's remindBeforeDays); " +
        'wallet_link: the "Add to your wallet" link the recipient asked for on the verification page (to the stored address only)',
    }),
    remindBeforeDays: Type.Union([Type.Integer(), Type.Null()], {
      description: 'For a reminder: how many days before the expiry it falls due; null otherwise',
    }),
    status: Type.Union([
      Type.Literal('queued'),
      Type.Literal('sending'),
      Type.Literal('sent'),
      Type.Literal('failed'),
    ]),
    attempts: Type.Integer({ description: 'Delivery attempts made so far' }),
    lastError: Type.Union([Type.String(), Type.Null()]),
    createdAt: Timestamp,
    sentAt: Type.Union([Timestamp, Type.Null()]),
  },
  { $id: 'EmailSend', title: 'EmailSend' },
);

export type EmailSendView = Static<typeof EmailSend>;

export const EMAIL_SEND_EXAMPLE: EmailSendView = {
  id: EXAMPLE.sendId,
  certificateId: EXAMPLE.certificateId,
  recipientEmail: 'zoe@example.com',
  kind: 'certificate',
  remindBeforeDays: null,
  status: 'queued',
  attempts: 0,
  lastError: null,
  createdAt: '2026-11-20T09:31:00.000Z',
  sentAt: null,
};

export const HistoryQuery = Type.Object(PageQuery);
