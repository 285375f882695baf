import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Uuid } from '../../platform/http/schemas.js';
import type { ProofService } from './proof.service.js';

// What verifiers fetch to check an account's SD-JWT VCs (decisions section 22): its JWT VC Issuer
// Metadata (the ES256 keys) and its IETF Token Status Lists. Public, outside /api/v1, sharing the
// per-IP verify limit, like the DID document and the Bitstring status lists beside them.

export const STATUS_LIST_MEDIA = 'application/statuslist+jwt';

export function sdJwtRoutes(app: FastifyInstance, proof: ProofService) {
  const issuer = Type.Object({ accountId: Uuid }, { additionalProperties: false });
  app.get<{ Params: { accountId: string } }>(
    '/.well-known/jwt-vc-issuer/issuers/:accountId',
    { config: { access: { kind: 'verify' } }, schema: { hide: true, params: issuer } },
    async (request, reply) => {
      const metadata = await proof.jwtVcIssuerMetadata(request.params.accountId.toLowerCase());
      return reply
        .type('application/json')
        .header('Cache-Control', 'public, max-age=300')
        .header('Access-Control-Allow-Origin', '*')
        .send(JSON.stringify(metadata));
    },
  );

  app.get<{ Params: { accountId: string; n: string } }>(
    '/issuers/:accountId/token-status/:n',
    {
      config: { access: { kind: 'verify' } },
      schema: {
        hide: true,
        params: Type.Object(
          { accountId: Uuid, n: Type.String({ pattern: '^(0|[1-9][0-9]{0,5})$' }) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const jwt = await proof.tokenStatusList(
        request.params.accountId.toLowerCase(),
        Number(request.params.n),
      );
      return reply
        .type(STATUS_LIST_MEDIA)
        .header('Cache-Control', 'public, max-age=60')
        .header('Access-Control-Allow-Origin', '*')
        .send(jwt);
    },
  );
}
