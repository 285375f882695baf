import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  AUTH_ERRORS,
  errorResponses,
  example,
  IdParams,
  pageExample,
  pageOf,
  withRateHeaders,
} from '../../platform/http/schemas.js';
import { EMAIL_SEND_EXAMPLE, HistoryQuery, SendBody } from '../emails/emails.schemas.js';
import type { Db } from '../../platform/db/db.js';
import type { EmailsService } from './certificate-emails.service.js';
import { certificateAction } from './certificate-action.js';

const security = [{ bearerAuth: [] }];

export function emailsRoutes(app: FastifyInstance, emails: EmailsService, db: Db) {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  certificateAction(app, db, {
    action: 'send',
    operationId: 'sendCertificate',
    summary: 'Email the certificate (asynchronous)',
    description:
      'Queues one delivery of the certificate email with the frozen PDF attached as certificate-<uniqueCode>.pdf, to the stored ' +
      'address or to recipientEmail. 202 with the queued send; poll GET /certificates/{id}/emails for its status. Checks in ' +
      'order: 404, 403 forbidden (email delivery disabled for the plan, or for a partner account by its contract), 422 (body), ' +
      '409 (certificate not Issued). Each accepted send adds 1 to emailCount. Transient SMTP failures are retried with ' +
      'exponential backoff (8 attempts over about an hour); a permanent one (SMTP 5xx) ends failed with lastError. ' +
      'A certificate revoked before delivery is not mailed: its send ends failed. Every attempt of one send carries the ' +
      'same Message-ID, <id of the send@domain of the sender>, so a copy delivered twice (a connection dropped after the ' +
      'mail server took the message) can be recognised as one message.',
    body: SendBody,
    emptyBodyIsObject: true,
    status: 202,
    answers: { ref: 'EmailSend', example: EMAIL_SEND_EXAMPLE, description: 'Accepted: the queued send' },
    check: (principal, id) => emails.assertSendable(principal, id),
    run: (principal, id, body) => emails.send(principal, id, body.recipientEmail),
  });

  api.get(
    '/api/v1/certificates/:id/emails',
    {
      config: { access: { kind: 'key', scope: 'certificates:read' } },
      schema: {
        operationId: 'listCertificateEmails',
        tags: ['Certificates'],
        summary: 'Send history of the certificate, newest first',
        description:
          'Every send of the certificate with its delivery status (queued, sending, sent, failed), attempts and last error.',
        security,
        params: IdParams,
        querystring: HistoryQuery,
        response: {
          200: withRateHeaders(
            example(
              pageOf(Type.Ref('EmailSend')),
              pageExample([
                { ...EMAIL_SEND_EXAMPLE, status: 'sent', attempts: 1, sentAt: '2026-11-20T09:31:02.000Z' },
              ]),
            ),
            'A page of sends',
          ),
          ...errorResponses(...AUTH_ERRORS, 404, 422),
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      const q = request.query;
      return emails.history(request.principal!.accountId, id.toLowerCase(), q);
    },
  );
}
