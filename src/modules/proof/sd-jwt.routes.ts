import type { FastifyInstance } from 'fastify';
import { issuerDocumentRoute } from './issuer-document.route.js';
import type { ProofService } from './proof.service.js';

// What verifiers fetch to check an account's SD-JWT VCs (decisions section 22): its JWT VC Issuer
// Metadata (the ES256 keys) and its IETF Token Status Lists. Public, outside /api/v1, sharing the
// per-IP verify limit, like the DID document and the Bitstring status lists beside them.

export const STATUS_LIST_MEDIA = 'application/statuslist+jwt';

export function sdJwtRoutes(app: FastifyInstance, proof: ProofService) {
  issuerDocumentRoute(app, {
    path: '/.well-known/jwt-vc-issuer/issuers/:accountId',
    type: 'application/json',
    maxAgeS: 300,
    load: async (accountId) => JSON.stringify(await proof.jwtVcIssuerMetadata(accountId)),
  });
  issuerDocumentRoute(app, {
    path: '/issuers/:accountId/token-status/:n',
    type: STATUS_LIST_MEDIA,
    maxAgeS: 60,
    load: (accountId, n) => proof.tokenStatusList(accountId, n),
  });
}
