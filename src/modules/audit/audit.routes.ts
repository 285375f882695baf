import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  AUTH_ERRORS,
  errorResponses,
  example,
  pageExample,
  pageOf,
  withRateHeaders,
} from '../../platform/http/schemas.js';
import { AUDIT_EVENT_EXAMPLE, AuditQuery } from './audit.schemas.js';
import type { AuditService } from './audit.service.js';

// The audit trail for a SIEM (decisions 21): the account's events, newest first, paginated as
// every list; scope audit:read, which no key has unless it was made with it.
export function auditRoutes(app: FastifyInstance, audit: AuditService) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/api/v1/audit-events',
    {
      config: { access: { kind: 'key', scope: 'audit:read' } },
      schema: {
        operationId: 'listAuditEvents',
        tags: ['Audit'],
        summary: 'List audit events, newest first',
        description:
          'Every change to the account (issue, revoke, reissue, send, templates, imports, keys, team, settings), who made it ' +
          '(a user, an API key, the CLI, the service, an operator), from where and what changed. Filter with action, actor ' +
          '(an id or label: a key prefix, an email), from and to (inclusive ISO 8601 instants). Needs the scope audit:read, ' +
          'which a key gets only when made with it. The events are chained (`certsvc audit verify`).',
        security: [{ bearerAuth: [] }],
        querystring: AuditQuery,
        response: {
          200: withRateHeaders(
            example(pageOf(Type.Ref('AuditEvent')), pageExample([AUDIT_EVENT_EXAMPLE])),
            'A page of audit events',
          ),
          ...errorResponses(...AUTH_ERRORS, 422),
        },
      },
    },
    async (request) => {
      const { from, to, ...rest } = request.query;
      return audit.list(request.principal!.accountId, {
        ...rest,
        ...(from === undefined ? {} : { from: new Date(from) }),
        ...(to === undefined ? {} : { to: new Date(to) }),
      });
    },
  );
}
