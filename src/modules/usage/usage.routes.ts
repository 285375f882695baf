import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import {
  AUTH_ERRORS,
  dataOf,
  errorResponses,
  Timestamp,
  withRateHeaders,
} from '../../platform/http/schemas.js';
import type { UsageService } from './usage.service.js';

export const Usage = Type.Object(
  {
    tier: Type.String({ description: 'Plan name of the account, e.g. Business' }),
    certificates: Type.Object({
      limit: Type.Union([Type.Integer(), Type.Null()], {
        description: 'Null on partner accounts (contractual quota)',
      }),
      used: Type.Integer({ description: 'Certificates issued in the current period (UTC calendar month)' }),
      remaining: Type.Union([Type.Integer(), Type.Null()], { description: 'Null on partner accounts' }),
      resetAt: Timestamp,
    }),
  },
  { title: 'Usage' },
);

export function usageRoutes(app: FastifyInstance, usage: UsageService) {
  app.get(
    '/api/v1/usage',
    {
      config: { access: { kind: 'key', scope: 'certificates:read' } },
      schema: {
        operationId: 'getUsage',
        tags: ['Usage'],
        summary: 'Plan and quota of the current period',
        description: 'Revocation gives no quota back. The period is the calendar month in UTC.',
        security: [{ bearerAuth: [] }],
        response: { 200: withRateHeaders(dataOf(Usage), 'Usage'), ...errorResponses(...AUTH_ERRORS) },
      },
    },
    async (request) => ({ data: await usage.get(request.principal!) }),
  );
}
