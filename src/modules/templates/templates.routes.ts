import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sendCacheable } from '../../platform/http/etag.js';
import {
  AUTH_ERRORS,
  dataOf,
  errorResponses,
  example,
  IdParams,
  pageExample,
  pageOf,
  PageQuery,
  withRateHeaders,
} from '../../platform/http/schemas.js';
import type { TemplatesService } from './templates.service.js';
import { TEMPLATE_EXAMPLE } from './templates.schemas.js';

const cacheHeaders = {
  ETag: Type.String({ description: 'Send it back in If-None-Match to get a 304' }),
  'Cache-Control': Type.String({ description: 'private, max-age=60' }),
};

// The answers carry an ETag: a client that sends it back gets 304 with no body when nothing changed.
const IfNoneMatchHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'The ETag of the answer in hand: a match answers 304 without the body' }),
  ),
});

export function templatesRoutes(app: FastifyInstance, templates: TemplatesService) {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get(
    '/api/v1/templates',
    {
      config: { access: { kind: 'key', scope: 'templates:read' } },
      schema: {
        operationId: 'listTemplates',
        tags: ['Templates'],
        summary: 'List active templates',
        description:
          'Newest first. Only published (active) templates: drafts, which the dashboard makes until they are published, and archived templates are never listed. Supports ETag / If-None-Match.',
        security: [{ bearerAuth: [] }],
        headers: IfNoneMatchHeaders,
        querystring: Type.Object(PageQuery),
        response: {
          200: withRateHeaders(
            example(pageOf(Type.Ref('Template')), pageExample([TEMPLATE_EXAMPLE])),
            'A page of templates',
            cacheHeaders,
          ),
          304: withRateHeaders(Type.Null(), 'Not modified', cacheHeaders),
          ...errorResponses(...AUTH_ERRORS, 422),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      return sendCacheable(request, reply, await templates.list(request.principal!.accountId, q));
    },
  );

  api.get(
    '/api/v1/templates/:id',
    {
      config: { access: { kind: 'key', scope: 'templates:read' } },
      schema: {
        operationId: 'getTemplate',
        tags: ['Templates'],
        summary: 'Read one active template',
        description:
          'An active (published) template of the account with the data fields its design uses. Drafts, archived templates and ' +
          "other accounts' templates are 404. Supports ETag / If-None-Match.",
        security: [{ bearerAuth: [] }],
        headers: IfNoneMatchHeaders,
        params: IdParams,
        response: {
          200: withRateHeaders(
            example(dataOf(Type.Ref('Template')), { data: TEMPLATE_EXAMPLE }),
            'The template',
            cacheHeaders,
          ),
          304: withRateHeaders(Type.Null(), 'Not modified', cacheHeaders),
          ...errorResponses(...AUTH_ERRORS, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      return sendCacheable(request, reply, { data: await templates.get(request.principal!.accountId, id) });
    },
  );
}
