import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  AUTH_ERRORS,
  dataOf,
  errorResponses,
  example,
  withRateHeaders,
} from '../../platform/http/schemas.js';
import type { UsageService } from './usage.service.js';
import { Usage, USAGE_EXAMPLE } from './usage.schemas.js';

export function usageRoutes(app: FastifyInstance, usage: UsageService) {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/api/v1/usage',
    {
      config: { access: { kind: 'key', scope: 'certificates:read' } },
      schema: {
        operationId: 'getUsage',
        tags: ['Usage'],
        summary: 'Plan and quota of the current period',
        description: 'Revocation gives no quota back. The period is the calendar month in UTC.',
        security: [{ bearerAuth: [] }],
        response: {
          200: withRateHeaders(example(dataOf(Usage), { data: USAGE_EXAMPLE }), 'Usage'),
          ...errorResponses(...AUTH_ERRORS),
        },
      },
    },
    async (request) => ({ data: await usage.get(request.principal!) }),
  );
}
