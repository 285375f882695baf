import { Type } from 'typebox';
import { PageQuery, Timestamp } from '../../platform/http/schemas.js';
import { SERVICE_VALIDATED_BODY } from '../../platform/http/validation.js';

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

// The route documents SendBody but validates it in the service, after the 404 and 403 checks.
export const SendBodyDoc = { ...SendBody, [SERVICE_VALIDATED_BODY]: true };

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

export const HistoryQuery = Type.Object(PageQuery);
