import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fromAcceptLanguage, languageOf, type Language } from '../../platform/i18n/i18n.js';
import { Type } from 'typebox';
import { AppError, NotFoundError } from '../../platform/errors.js';
import {
  dataOf,
  errorResponses,
  example,
  nonJson,
  rateHeaders,
  withRateHeaders,
} from '../../platform/http/schemas.js';
import { PreviewUnavailableError } from './preview-image.js';
import { codeFromInput, FRONT_DOOR_HEADERS, renderCodeBoxPage, renderFrontDoor } from './front-door.page.js';
import { renderNotFoundPage, renderVerifyPage, VERIFY_PAGE_HEADERS } from './verify.page.js';
import type { VerifyService } from './verify.service.js';
import { fileAnswer, verifyFileRoutes } from './verify-files.routes.js';
import { Verification, VERIFICATION_EXAMPLE } from './verify.schemas.js';
import { certificateFileName } from '../shared/certificate-links.js';
import { CODE_INPUT_MAX_LENGTH } from '../../platform/limits.js';

const CodeParams = Type.Object(
  { code: Type.String({ description: 'The unique code; case-insensitive' }) },
  { additionalProperties: false },
);

// The verification page's answers, as the API description shows them (abbreviated).
const page = (heading: string) =>
  example(
    Type.String(),
    `<!doctype html><html lang="en"><head><title>${heading}</title></head><body><h1>${heading}</h1>…</body></html>`,
  );

// The options of a route of the verification page: under the per-IP verify limit, a code in the
// path, and hidden from the API description (/api/v1 only: a client generated from it would treat
// a page as a JSON operation); its schema documents it here.
function pageRoute<Response>(schema: {
  operationId: string;
  summary: string;
  description?: string;
  response: Response;
}) {
  return {
    config: { access: { kind: 'verify' as const } },
    schema: { hide: true, tags: ['Verification'], security: [], params: CodeParams, ...schema },
  };
}

// A file answered as it is (the PDF, the preview PNG, a font), with a word on its bytes, under the
// verify limit's headers.

// The page's language: ?lang=xx (the switcher's links), else the reader's Accept-Language, else
// the issuer's default language (Settings > Organisation), else English.
function pageLanguage(request: FastifyRequest, fallback: string = 'en'): Language {
  const asked = (request.query as Record<string, unknown> | undefined)?.lang;
  return (
    (typeof asked === 'string' ? languageOf(asked) : undefined) ??
    fromAcceptLanguage(request.headers['accept-language']) ??
    languageOf(fallback) ??
    'en'
  );
}

// The front door's pages: HTML in the reader's language, under their own CSP.
function frontDoorReply(reply: FastifyReply, lang: Language): FastifyReply {
  return reply
    .type('text/html; charset=utf-8')
    .headers(FRONT_DOOR_HEADERS)
    .header('Content-Language', lang)
    .header('Vary', 'Accept-Language');
}

// The routes' instance, which types requests from their schemas.
function typed(app: FastifyInstance) {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}
type Api = ReturnType<typeof typed>;

// Every route under /verify/ and /api/v1/verify/, and the front door.
export function verifyRoutes(app: FastifyInstance, verify: VerifyService) {
  const api = typed(app);
  verificationApiRoute(api, verify);
  credentialRoute(api, verify);
  verificationPageRoute(api, verify);
  pagePdfRoute(api, verify);
  previewImageRoute(api, verify);
  frontDoorRoute(api);
  codeBoxRoute(api);
  verifyFileRoutes(app);
}

// The verification as JSON: the API operation, counted like the page. The service hands out one
// answer object per cached entry (and expiry state), so its bytes, serialised by the route's
// response schema, are made once and kept as long as that object lives.
function verificationApiRoute(api: Api, verify: VerifyService) {
  const bodies = new WeakMap<object, string>();
  api.get(
    '/api/v1/verify/:code',
    {
      config: { access: { kind: 'verify' } },
      schema: {
        operationId: 'verifyCertificate',
        tags: ['Verification'],
        summary: 'Verify a certificate by its public code (no key)',
        description:
          'Rate limited per caller IP (separate from the key limiter). Each successful call counts one verification. ' +
          'A code that cannot be a code (wrong length or characters) is 422; a well-formed unknown code is 404.',
        security: [],
        params: CodeParams,
        response: {
          200: withRateHeaders(
            example(dataOf(Verification), { data: VERIFICATION_EXAMPLE }),
            'The verification',
          ),
          ...errorResponses(404, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const view = await verify.verify(request.params.code, { count: request.method === 'GET' });
      let body = bodies.get(view);
      if (body === undefined) {
        body = String(reply.serialize({ data: view }));
        bodies.set(view, body);
      }
      // A string with its content type is sent as it is (the schema made it).
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );
}

// The signed credential by public code: frozen bytes, read from the verify cache (verify-cache.ts).
const CREDENTIAL_MEDIA = 'application/vc';
function credentialRoute(api: Api, verify: VerifyService) {
  const body = example(
    Type.Object(
      {},
      { additionalProperties: true, description: 'An OpenBadgeCredential (W3C VC 2.0), signed' },
    ),
    {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential', 'OpenBadgeCredential'],
    },
  );
  api.get(
    '/api/v1/verify/:code/credential',
    {
      config: { access: { kind: 'verify' } },
      schema: {
        operationId: 'getVerifiedCredential',
        tags: ['Verification'],
        summary: 'The signed credential of a certificate, by its public code (no key)',
        description:
          'The same bytes as the owner reads. Shares the per-IP verify limit and does not count a verification.',
        security: [],
        params: CodeParams,
        response: {
          200: nonJson(CREDENTIAL_MEDIA, body, 'The signed credential, the same bytes forever', rateHeaders),
          ...errorResponses(404, 422, 429),
        },
      },
    },
    async (request, reply) => {
      const credential = await verify.credential(request.params.code);
      if (!credential) throw new NotFoundError('Credential');
      return reply.type(CREDENTIAL_MEDIA).header('Cache-Control', 'public, max-age=300').send(credential);
    },
  );
}

// The public page that the certificate's link and QR code open; shares the per-IP verify limit.
// Not in the API description (hide), which is /api/v1 only: a client generated from it would
// treat this page as a JSON operation. The response schemas document the page here.
function verificationPageRoute(api: Api, verify: VerifyService) {
  api.get(
    '/verify/:code',
    pageRoute({
      operationId: 'verifyCertificatePage',
      summary: 'Public verification page (HTML)',
      description:
        "The page the certificate's link and QR code open: says plainly whether it is valid or revoked, shows the " +
        'recipient, what was earned, the issuer and the date, and checks a PDF in hand against pdfSha256. Shares the ' +
        'per-IP verify limit. Every answer, refusals included, is an HTML page.',
      response: {
        200: nonJson('text/html', page('Valid certificate'), 'HTML page: valid or revoked', rateHeaders),
        404: nonJson(
          'text/html',
          page('No certificate with this code'),
          'HTML page: no certificate with this code',
          rateHeaders,
        ),
        429: nonJson(
          'text/html',
          page('Too many verifications'),
          'HTML page: too many verifications from this address',
          {
            ...rateHeaders,
            'Retry-After': Type.Integer({ description: 'Seconds until a request is allowed' }),
          },
        ),
        500: nonJson('text/html', page('Something went wrong'), 'HTML page: server fault; safe to retry'),
        503: nonJson(
          'text/html',
          page('Temporarily unavailable'),
          'HTML page: the database or the rate-limit store is not answering, or this server is shutting down',
          { 'Retry-After': Type.Integer({ description: 'Seconds to wait before retrying' }) },
        ),
      },
    }),
    async (request, reply) => {
      const { code } = request.params;
      reply.type('text/html; charset=utf-8').headers(VERIFY_PAGE_HEADERS).header('Vary', 'Accept-Language');
      try {
        const view = await verify.verify(code, { count: request.method === 'GET' });
        const lang = pageLanguage(request, view.defaultLanguage);
        return reply.header('Content-Language', lang).send(renderVerifyPage(view, lang));
      } catch (err) {
        if (err instanceof AppError && (err.code === 'not_found' || err.code === 'validation_error')) {
          const lang = pageLanguage(request);
          return reply.code(404).header('Content-Language', lang).send(renderNotFoundPage(code, lang));
        }
        throw err;
      }
    },
  );
}

// "Download PDF" on the verification page: the frozen bytes for anyone with the code, counted as a
// download, under the per-IP verify limit; not for a revoked certificate, nor when the account
// turned public download off (both the 404 page). Part of the page, not of the API.
function pagePdfRoute(api: Api, verify: VerifyService) {
  api.get(
    '/verify/:code/pdf',
    pageRoute({
      operationId: 'verificationPagePdf',
      summary: "The certificate's frozen PDF, from its verification page",
      response: {
        200: fileAnswer('application/pdf', '%PDF-1.7 … (the frozen PDF)', 'The frozen PDF, as an attachment'),
        404: nonJson('text/html', page('This page cannot be shown'), 'HTML page: no PDF to download'),
      },
    }),
    async (request, reply) => {
      const pdf = await verify.publicPdf(request.params.code, { count: request.method === 'GET' });
      return reply
        .header('Content-Type', 'application/pdf')
        .header('Content-Disposition', `attachment; filename="${certificateFileName(pdf.uniqueCode)}"`)
        .header('ETag', `"${pdf.sha256}"`)
        .header('Cache-Control', 'no-store')
        .send(pdf.pdf);
    },
  );
}

// The picture of a shared link (og:image, twitter:image): the first page of the frozen PDF as a
// PNG, 1200 pixels on its longer side, made once per PDF by pdftoppm in a child process and cached
// (preview-image.ts). Offered when the page offers "Download PDF" (else the 404 page); under the
// per-IP verify limit like the page. Part of the page, not of the API.
function previewImageRoute(api: Api, verify: VerifyService) {
  api.get(
    '/verify/:code/preview.png',
    pageRoute({
      operationId: 'verificationPagePreviewImage',
      summary: "The link preview image of a verification page: the certificate's first page (PNG)",
      response: {
        200: fileAnswer(
          'image/png',
          '(the bytes of the PNG)',
          "The certificate's first page, 1200 pixels on its longer side",
        ),
        404: nonJson('text/html', page('This page cannot be shown'), 'HTML page: no preview image'),
      },
    }),
    async (request, reply) => {
      let preview: { png: Buffer; sha256: string };
      try {
        preview = await verify.previewPng(request.params.code);
      } catch (err) {
        if (err instanceof PreviewUnavailableError) {
          request.log.warn({ err }, 'link preview image not made');
          throw Object.assign(
            new AppError('service_unavailable', 'The preview image cannot be made now; retry later'),
            {
              headers: { 'Retry-After': '30' },
            },
          );
        }
        throw err;
      }
      return reply
        .header('Content-Type', 'image/png')
        .header('X-Content-Type-Options', 'nosniff')
        .header('ETag', `"${preview.sha256}"`)
        .header('Cache-Control', 'public, max-age=86400')
        .send(preview.png);
    },
  );
}

// The front door: people who arrive without a link get the dashboard, the API reference and a
// code box (decisions section 19). Pages, not API: hidden from the description.
function frontDoorRoute(api: Api) {
  api.get(
    '/',
    {
      schema: {
        hide: true,
        operationId: 'frontDoorPage',
        summary: 'Front door (HTML): dashboard, API reference, verify a certificate',
        response: { 200: nonJson('text/html', page('Certificates'), 'HTML page') },
      },
    },
    async (request, reply) => {
      const lang = pageLanguage(request);
      return frontDoorReply(reply, lang).send(renderFrontDoor(lang));
    },
  );
}

// The code box's target: /verify/?code=... redirects to the verification page of that code (303,
// relative, so it works under a base path); without a code, or with text that cannot be one, the
// box again. No lookup happens here, so no limiter either: the page it leads to has its own.
function codeBoxRoute(api: Api) {
  api.get(
    '/verify/',
    {
      schema: {
        hide: true,
        operationId: 'verifyCodeBoxPage',
        summary: 'Verify a certificate by typing its code (HTML)',
        response: {
          200: nonJson('text/html', page('Verify a certificate'), 'HTML page: the code box'),
          303: { description: 'Redirect to /verify/<code>', type: 'null' },
        },
      },
    },
    async (request, reply) => {
      const typed = (request.query as Record<string, unknown>).code;
      const input = typeof typed === 'string' ? typed.slice(0, CODE_INPUT_MAX_LENGTH) : '';
      const code = input.trim() ? codeFromInput(input) : undefined;
      if (code) return reply.code(303).header('Location', code).header('Cache-Control', 'no-store').send();
      const lang = pageLanguage(request);
      return frontDoorReply(reply, lang).send(renderCodeBoxPage(input.trim(), lang));
    },
  );
}
