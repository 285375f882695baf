import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import type { Db } from '../../platform/db/db.js';
import { deferBodyErrors, emptyBodyIsObject } from '../../platform/http/body.js';
import { answerIdempotently, IdempotencyHeaders, REPLAYED_HEADER } from '../../platform/http/idempotency.js';
import {
  AUTH_ERRORS,
  dataOf,
  errorResponses,
  example,
  IdParams,
  withRateHeaders,
} from '../../platform/http/schemas.js';
import type { Principal } from '../../platform/principal.js';

// A POST that acts on one certificate (revoke, reissue, send): the checks of the certificate itself
// come first (404, then 403 where the action has one), then the body's 422, also for a body that does
// not parse (docs/api.md); the answer is idempotent under an Idempotency-Key.

export interface CertificateAction<B extends TSchema> {
  /** The action's path under /api/v1/certificates/:id/. */
  action: string;
  operationId: string;
  summary: string;
  description: string;
  body: B;
  /** An absent body counts as {} (every field of the body is optional). */
  emptyBodyIsObject?: boolean;
  status: 200 | 201 | 202;
  /** The schema name of what the answer carries in `data`, and an example of it. */
  answers: { ref: string; example: unknown; description: string };
  /** The checks before the body's: throws NotFoundError, ForbiddenError. */
  check(principal: Principal, id: string): Promise<unknown>;
  run(principal: Principal, id: string, body: Static<B>): Promise<unknown>;
}

export function certificateAction<B extends TSchema>(
  app: FastifyInstance,
  db: Db,
  route: CertificateAction<B>,
) {
  const { answers } = route;
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    `/api/v1/certificates/:id/${route.action}`,
    {
      config: { access: { kind: 'key', scope: 'certificates:write' }, deferBodyErrors: true },
      attachValidation: true,
      ...(route.emptyBodyIsObject ? { preValidation: emptyBodyIsObject } : {}),
      schema: {
        operationId: route.operationId,
        tags: ['Certificates'],
        summary: route.summary,
        description: route.description,
        security: [{ bearerAuth: [] }],
        params: IdParams,
        headers: IdempotencyHeaders,
        body: route.body,
        response: {
          [route.status]: withRateHeaders(
            example(dataOf(Type.Ref(answers.ref)), { data: answers.example }),
            answers.description,
            REPLAYED_HEADER,
          ),
          ...errorResponses(...AUTH_ERRORS, 404, 409, 413, 422),
        },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const checkBody = deferBodyErrors(request);
      const id = (request.params as Static<typeof IdParams>).id.toLowerCase();
      const principal = request.principal!;
      await route.check(principal, id);
      checkBody();
      const body = request.body as Static<B>;
      return answerIdempotently(request, reply, db, async () => ({
        status: route.status,
        body: { data: await route.run(principal, id, body) },
      }));
    },
  );
}
