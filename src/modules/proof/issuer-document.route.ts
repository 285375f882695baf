import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Uuid } from '../../platform/http/schemas.js';

// The documents of an issuer's identity that any verifier fetches (the DID document, the Bitstring
// and Token status lists, the JWT VC Issuer Metadata): outside /api/v1, public, under the per-IP
// verify limit, cacheable and readable from any origin. A path names `:accountId`, and `:n` for a
// status list's number.

const ISSUER_PARAMS = Type.Object({ accountId: Uuid }, { additionalProperties: false });
const LIST_PARAMS = Type.Object(
  { accountId: Uuid, n: Type.String({ pattern: '^(0|[1-9][0-9]{0,5})$' }) },
  { additionalProperties: false },
);

export function issuerDocumentRoute(
  app: FastifyInstance,
  opts: {
    path: string;
    type: string;
    maxAgeS: number;
    /** The document's body for the account (lower-cased) and, for a list, its number. */
    load: (accountId: string, n: number) => Promise<string | Buffer>;
  },
) {
  const list = opts.path.includes(':n');
  app.get<{ Params: { accountId: string; n?: string } }>(
    opts.path,
    {
      config: { access: { kind: 'verify' } },
      schema: { hide: true, params: list ? LIST_PARAMS : ISSUER_PARAMS },
    },
    async (request, reply) => {
      const body = await opts.load(request.params.accountId.toLowerCase(), Number(request.params.n ?? 0));
      return reply
        .type(opts.type)
        .header('Cache-Control', `public, max-age=${opts.maxAgeS}`)
        .header('Access-Control-Allow-Origin', '*')
        .send(body);
    },
  );
}
