import { Type, type Static } from 'typebox';
import { PageQuery, Timestamp } from '../../platform/http/schemas.js';

export const SendBody = Type.Object(
  {
    recipientEmail: Type.Optional(
      Type.String({
        format: 'email',
        maxLength: 254,
        description: 'Overrides the stored address for this one send',
      }),
    ),
  },
  { additionalProperties: false, description: 'Optional; an empty body sends to the stored address' },
);

export const EmailSend = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    certificateId: Type.String({ format: 'uuid' }),
    recipientEmail: Type.String(),
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

export const HistoryQuery = Type.Object(PageQuery);
