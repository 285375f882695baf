import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses, example, withRateHeaders } from '../../platform/http/schemas.js';

export function openapiRoutes(app: FastifyInstance) {
  app.get(
    '/api/v1/openapi.json',
    {
      config: { access: { kind: 'anonymous' } },
      schema: {
        operationId: 'getOpenApi',
        tags: ['Meta'],
        summary: 'This OpenAPI 3.1 description',
        description:
          'Generated from the very schemas that validate requests and shape answers, with an example for every body and ' +
          'answer. Public; counted in the per-IP anonymous bucket. A readable reference is served at /docs.',
        security: [],
        response: {
          200: withRateHeaders(
            example(Type.Object({}, { additionalProperties: true }), {
              openapi: '3.1.0',
              info: { title: 'certsvc API', version: '1.1.0' },
              paths: { '/api/v1/usage': { get: { operationId: 'getUsage' } } },
            }),
            'OpenAPI 3.1 document',
          ),
          ...errorResponses(429),
        },
      },
    },
    async (_request, reply) => reply.type('application/json; charset=utf-8').send(app.swagger()),
  );
}
