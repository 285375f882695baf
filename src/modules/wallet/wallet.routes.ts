import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError, ValidationError } from '../../platform/errors.js';
import { fromAcceptLanguage, languageOf, type Language } from '../../platform/i18n/i18n.js';
import type { RateLimitStore } from '../../platform/rate-limit/rate-limit.store.js';
import { ClaimTokenGoneError } from '../shared/claim-tokens.js';
import { createClaimPages } from './claim.page.js';
import type { WalletService } from './wallet.service.js';

// The recipient's wallet over HTTP (docs/wallets.md): the claim page, the VCALM protocols list, the
// VC API exchange, and "Email me the wallet link" from the verification page. Outside /api/v1 (the
// OpenAPI description is /api/v1 only): the JSON routes declare their schemas here, hidden.

const TokenParams = Type.Object({ token: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
const CodeParams = Type.Object({ code: Type.String({ maxLength: 64 }) }, { additionalProperties: false });

// "Email me the wallet link": at most this many requests an hour per certificate and per client IP;
// past either, the same answer and no email.
export const WALLET_LINK_LIMITS = {
  perCertificate: { max: 3, windowMs: 60 * 60 * 1000 },
  perIp: { max: 20, windowMs: 60 * 60 * 1000 },
};

function pageLanguage(request: FastifyRequest, fallback?: string | null): Language {
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  return (
    (typeof asked === 'string' ? languageOf(asked) : undefined) ??
    fromAcceptLanguage(request.headers['accept-language']) ??
    languageOf(fallback) ??
    'en'
  );
}

// A form post from another site (CSRF): refused. The form has no secret to protect (it asks for
// nothing and answers the same), so the browser's own statement of where the post comes from is the
// check: Sec-Fetch-Site, else Origin, must be this service.
function fromThisSite(request: FastifyRequest, publicBaseUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return origin === new URL(publicBaseUrl).origin || origin === `${request.protocol}://${request.host}`;
}

export function walletRoutes(
  app: FastifyInstance,
  deps: { wallet: WalletService; publicBaseUrl: string; rateLimitStore: RateLimitStore },
) {
  const { wallet } = deps;
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const pages = createClaimPages(deps.publicBaseUrl);
  const htmlReply = (reply: FastifyReply, lang: Language) =>
    reply.type('text/html; charset=utf-8').headers(pages.headers).header('Content-Language', lang).header('Vary', 'Accept-Language');

  api.get(
    '/claim/:token',
    { config: { access: { kind: 'verify' } }, schema: { hide: true, params: TokenParams } },
    async (request, reply) => {
      try {
        const view = await wallet.claimPage(request.params.token);
        const lang = pageLanguage(request, view.locale);
        return htmlReply(reply, lang).send(pages.claim(view, lang));
      } catch (err) {
        const lang = pageLanguage(request);
        if (err instanceof ClaimTokenGoneError) return htmlReply(reply, lang).code(410).send(pages.gone(err.reason, lang));
        if (err instanceof AppError && err.code === 'not_found') return htmlReply(reply, lang).code(404).send(pages.notFound(lang));
        throw err;
      }
    },
  );

  const Protocols = Type.Object({
    protocols: Type.Object({
      vcapi: Type.String({ description: 'The VC API exchange URL' }),
      OID4VCI: Type.String({ description: 'openid-credential-offer://?credential_offer_uri=...' }),
    }),
  });
  api.get(
    '/claim/:token/interact',
    {
      config: { access: { kind: 'verify' } },
      schema: {
        hide: true,
        params: TokenParams,
        querystring: Type.Object({ iuv: Type.Optional(Type.String()) }),
        response: { 200: Protocols },
      },
    },
    async (request, reply) => {
      const answer = await wallet.protocols(request.params.token);
      return reply.header('Cache-Control', 'no-store').header('Access-Control-Allow-Origin', '*').send(answer);
    },
  );

  // One URL per token: POST {} starts an exchange, POST { verifiablePresentation } completes it.
  api.post(
    '/claim/:token/exchange',
    {
      config: { access: { kind: 'verify' } },
      schema: {
        hide: true,
        params: TokenParams,
      },
    },
    async (request, reply) => {
      const body = request.body as unknown;
      reply.header('Cache-Control', 'no-store').header('Access-Control-Allow-Origin', '*');
      if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
        throw new ValidationError([{ path: [], message: 'Send {} to start, or { "verifiablePresentation": ... }' }]);
      }
      if (body === undefined || (body as Record<string, unknown>).verifiablePresentation === undefined) {
        return reply.send(await wallet.startExchange(request.params.token));
      }
      return reply.send(await wallet.finishExchange(request.params.token, body));
    },
  );

  api.post(
    '/verify/:code/wallet-link',
    { config: { access: { kind: 'verify' } }, schema: { hide: true, params: CodeParams } },
    async (request, reply) => {
      const lang = pageLanguage(request);
      const { code } = request.params;
      if (!fromThisSite(request, deps.publicBaseUrl)) {
        return htmlReply(reply, lang).code(403).send(pages.notFound(lang));
      }
      const certificateKey = createHash('sha256').update(code.toUpperCase()).digest('base64url');
      const { perCertificate, perIp } = WALLET_LINK_LIMITS;
      const ip = await deps.rateLimitStore.consume(`wallet-link-ip:${request.ip}`, perIp.max, perIp.windowMs);
      const cert = ip.allowed
        ? await deps.rateLimitStore.consume(`wallet-link:${certificateKey}`, perCertificate.max, perCertificate.windowMs)
        : ip;
      if (cert.allowed) {
        await wallet.requestWalletLink(code).catch((err: unknown) => request.log.error({ err }, 'wallet link not queued'));
      }
      return htmlReply(reply, lang).send(pages.walletLinkSent(lang, code));
    },
  );
}
