import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { NotFoundError } from '../../platform/errors.js';
import {
  AUTH_ERRORS,
  errorResponses,
  example,
  IdParams,
  nonJson,
  rateHeaders,
} from '../../platform/http/schemas.js';
import { issuerDocumentRoute } from './issuer-document.route.js';
import type { ProofService } from './proof.service.js';

// The signed credentials, and the issuer's identity that verifiers fetch to check them: the DID
// document and the status lists (decisions section 18). The credential is served as frozen bytes.

const CREDENTIAL_MEDIA = 'application/vc';
const credentialBody = example(
  Type.Object({}, { additionalProperties: true, description: 'An OpenBadgeCredential (W3C VC 2.0), signed' }),
  {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential', 'OpenBadgeCredential'],
  },
);
const credentialResponse = nonJson(
  CREDENTIAL_MEDIA,
  credentialBody,
  'The signed credential, the same bytes forever',
  rateHeaders,
);

export function credentialsRoutes(app: FastifyInstance, proof: ProofService) {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.get(
    '/api/v1/certificates/:id/credential',
    {
      config: { access: { kind: 'key', scope: 'certificates:read' } },
      schema: {
        operationId: 'getCertificateCredential',
        tags: ['Certificates'],
        summary: 'The signed Open Badges 3.0 credential of a certificate',
        description:
          'An OpenBadgeCredential (W3C Verifiable Credentials 2.0) signed at issue with a Data Integrity proof ' +
          "(eddsa-rdfc-2022) by the account's key, whose DID document is at /issuers/{accountId}/did.json. Frozen: the " +
          'same bytes on every read. 404 for certificates issued before credentials existed until the backfill has run.',
        security: [{ bearerAuth: [] }],
        params: IdParams,
        response: { 200: credentialResponse, ...errorResponses(...AUTH_ERRORS, 404, 422) },
      },
    },
    async (request, reply) => {
      const body = await proof.credential(request.principal!.accountId, request.params.id.toLowerCase());
      if (!body) throw new NotFoundError('Credential');
      return reply.type(CREDENTIAL_MEDIA).header('Cache-Control', 'private, no-cache').send(body);
    },
  );

  // GET /api/v1/verify/:code/credential is a verify route (verify.routes.ts): served from its cache.

  // Outside /api/v1: documents of the issuer's identity for any verifier, public and cacheable.
  issuerDocumentRoute(app, {
    path: '/issuers/:accountId/did.json',
    type: 'application/did+json',
    maxAgeS: 300,
    load: async (accountId) => JSON.stringify(await proof.didDocument(accountId)),
  });
  issuerDocumentRoute(app, {
    path: '/issuers/:accountId/status/:n',
    type: CREDENTIAL_MEDIA,
    maxAgeS: 60,
    load: (accountId, n) => proof.statusList(accountId, n),
  });
}
