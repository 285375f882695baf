import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses, withRateHeaders } from '../../platform/http/schemas.js';

export function openapiRoutes(app: FastifyInstance) {
  app.get(
    '/api/v1/openapi.json',
    {
      config: { access: { kind: 'anonymous' } },
      schema: {
        operationId: 'getOpenApi',
        tags: ['Meta'],
        summary: 'This OpenAPI 3.1 description',
        security: [],
        response: {
          200: withRateHeaders(Type.Object({}, { additionalProperties: true }), 'OpenAPI 3.1 document'),
          ...errorResponses(429),
        },
      },
    },
    async (_request, reply) => reply.type('application/json; charset=utf-8').send(app.swagger()),
  );
}
