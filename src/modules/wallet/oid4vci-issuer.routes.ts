import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { InvalidBody } from '../../platform/http/body.js';
import { Uuid } from '../../platform/http/schemas.js';
import { Oid4vciError } from './oid4vci-errors.js';
import type { Oid4vciService } from './oid4vci-issuer.service.js';

// OID4VCI 1.0 over HTTP (docs/wallets.md): the issuer's and authorization server's metadata, the
// credential offer of a claim token, and the token, nonce and credential endpoints. Outside /api/v1
// (hidden from the API's description, like the DID documents): wallets find them through the
// metadata. Refusals are in OAuth's format, `{ error, error_description }`, never the envelope; an
// unknown issuer or claim token is the usual 404/410 envelope.

const Issuer = Type.Object({ accountId: Uuid }, { additionalProperties: false });
const ClaimToken = Type.Object({ token: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
const anonymous = { access: { kind: 'anonymous' as const } };

function refuse(reply: FastifyReply, err: Oid4vciError) {
  if (err.code === 'invalid_token') {
    reply.header('WWW-Authenticate', `Bearer error="invalid_token", error_description="${err.description}"`);
  }
  return reply.code(err.status).header('Cache-Control', 'no-store').send(err.body());
}

// Metadata: public documents, cached a little, readable by browser-based wallets.
function publicJson(reply: FastifyReply, body: unknown) {
  return reply
    .type('application/json; charset=utf-8')
    .header('Cache-Control', 'public, max-age=300')
    .header('Access-Control-Allow-Origin', '*')
    .send(body);
}

function secretJson(reply: FastifyReply, body: unknown) {
  return reply.type('application/json; charset=utf-8').header('Cache-Control', 'no-store').send(body);
}

export async function oid4vciRoutes(app: FastifyInstance, opts: { oid4vci: Oid4vciService }) {
  const { oid4vci } = opts;
  // The token request is a form (RFC 6749 section 4.1.3); in this scope only.
  await app.register(formbody, { bodyLimit: 16 * 1024 });

  app.setErrorHandler((err, _request, reply) => {
    if (err instanceof Oid4vciError) return refuse(reply, err);
    throw err;
  });

  app.get<{ Params: { accountId: string } }>(
    '/.well-known/openid-credential-issuer/issuers/:accountId',
    { config: anonymous, schema: { hide: true, params: Issuer } },
    async (request, reply) =>
      publicJson(reply, await oid4vci.issuerMetadata(request.params.accountId.toLowerCase())),
  );

  app.get<{ Params: { accountId: string } }>(
    '/.well-known/oauth-authorization-server/issuers/:accountId',
    { config: anonymous, schema: { hide: true, params: Issuer } },
    async (request, reply) =>
      publicJson(reply, await oid4vci.authorizationServerMetadata(request.params.accountId.toLowerCase())),
  );

  app.get<{ Params: { token: string } }>(
    '/claim/:token/oid4vci/offer',
    { config: anonymous, schema: { hide: true, params: ClaimToken } },
    async (request, reply) => {
      // A HEAD (a link checker) says whether the offer is there without minting a code.
      if (request.method === 'HEAD') {
        await oid4vci.offerHead(request.params.token);
        return secretJson(reply, {});
      }
      return secretJson(reply, await oid4vci.offer(request.params.token));
    },
  );

  app.post<{ Params: { accountId: string } }>(
    '/issuers/:accountId/oid4vci/token',
    { config: anonymous, schema: { hide: true, params: Issuer } },
    async (request, reply) => {
      const body = request.body;
      const form = /^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '');
      if (!form || typeof body !== 'object' || body === null) {
        throw new Oid4vciError(
          'invalid_request',
          'Send the token request as a form (application/x-www-form-urlencoded)',
        );
      }
      const answer = await oid4vci.token(request.params.accountId.toLowerCase(), {
        body: body as Record<string, unknown>,
        headers: request.headers,
        url: `${request.protocol}://${request.host}${request.url}`,
      });
      return secretJson(reply.header('Pragma', 'no-cache'), answer);
    },
  );

  app.post<{ Params: { accountId: string } }>(
    '/issuers/:accountId/oid4vci/nonce',
    { config: anonymous, schema: { hide: true, params: Issuer } },
    async (request, reply) => secretJson(reply, await oid4vci.nonce(request.params.accountId.toLowerCase())),
  );

  app.post<{ Params: { accountId: string } }>(
    '/issuers/:accountId/oid4vci/credential',
    { config: { ...anonymous, deferBodyErrors: true }, schema: { hide: true, params: Issuer } },
    async (request, reply) => {
      if (request.body instanceof InvalidBody) {
        throw new Oid4vciError(
          'invalid_credential_request',
          request.body.issues[0]?.message ?? 'Unreadable body',
        );
      }
      const answer = await oid4vci.credential(
        request.params.accountId.toLowerCase(),
        request.headers.authorization,
        request.body,
      );
      // The server's own time for the credential (from the request's arrival to its answer, before
      // it is written): the claim bench reports it beside the wallet's time.
      reply.header('Server-Timing', `app;dur=${reply.elapsedTime.toFixed(2)}`);
      return secretJson(reply, answer);
    },
  );
}
