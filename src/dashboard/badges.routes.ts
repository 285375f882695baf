import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { badgeFor, badgeFormat } from '../modules/wallet/badges.js';
import { sendBadge } from '../modules/wallet/badges.routes.js';
import { defaultBadgeSvg } from '../modules/wallet/default-badge.js';
import { AppError, NotFoundError, ValidationError } from '../platform/errors.js';
import { BODY_LIMIT, BODY_LIMIT_TEXT } from '../platform/limits.js';
import type { DashboardDeps } from './deps.js';
import { pathId } from './params.js';
import { routeKit } from './routes.js';
import { signedIn } from './session.js';

// Badges in the dashboard (issue 31): the studio's badge image of a template (upload, remove and
// its preview, from the Settings panel's Badge section; stored at once, outside the design's
// versions) and a certificate's "Download badge" (baked with its frozen credential).

function sendImage(reply: FastifyReply, type: string, body: Buffer | string) {
  return reply
    .type(type)
    .header('Content-Security-Policy', "default-src 'none'; img-src data:; style-src 'unsafe-inline'")
    .header('X-Content-Type-Options', 'nosniff')
    .header('Cache-Control', 'private, no-store')
    .send(body);
}

const json = (reply: FastifyReply, body: unknown) =>
  reply
    .header('Cache-Control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(body));

export function badgeRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { badgeImages, templates, certificates } = deps.services;
  const kit = routeKit(app, deps);

  // The template's badge image (multipart: file), checked and stored; JSON { mediaType }. A refusal
  // is the error page (422 naming the problem, 413), and nothing changes.
  app.post('/templates/:id/badge', { preHandler: kit.form('design') }, async (request, reply) => {
    const s = signedIn(request);
    await templates.working(s.user.accountId, pathId(request));
    const file = (request.body as { file?: MultipartFile } | undefined)?.file;
    const bytes = file && file.type === 'file' ? await file.toBuffer() : undefined;
    if (!bytes) {
      throw new ValidationError([{ path: ['file'], message: 'choose a file' }], 'Choose a PNG or SVG file.');
    }
    if (bytes.length > BODY_LIMIT) {
      throw new AppError(
        'payload_too_large',
        `The upload is too large: a badge image of at most ${BODY_LIMIT_TEXT}.`,
      );
    }
    return json(reply, await badgeImages.upload(s.principal, s.user.accountId, pathId(request), bytes));
  });

  app.post('/templates/:id/badge/remove', { preHandler: kit.form('design') }, async (request, reply) => {
    const s = signedIn(request);
    await badgeImages.remove(s.principal, s.user.accountId, pathId(request));
    return json(reply, { removed: true });
  });

  // The studio's preview: the stored image, or the seal drawn from the design being edited.
  app.get('/templates/:id/badge', { preHandler: kit.allow('design') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const id = pathId(request);
    const working = await templates.working(accountId, id);
    const image = await badgeImages.read(accountId, id);
    if (image) return sendImage(reply, image.mediaType, image.body);
    const design = working.design;
    const texts = design.elements.filter((e) => e.type === 'text');
    return sendImage(
      reply,
      'image/svg+xml',
      defaultBadgeSvg({ name: working.name, texts, background: design.background?.color }),
    );
  });

  // "Download badge": the certificate's badge in its template's format (PNG when its badge image is
  // one, otherwise SVG), with its frozen credential baked in.
  app.get('/certificates/:id/badge', { preHandler: kit.allow('read') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const certificate = await certificates.get(accountId, pathId(request));
    const format = await badgeFormat(deps.db, certificate.id);
    if (!format) throw new NotFoundError('Certificate');
    return sendBadge(reply, await badgeFor(deps.db, certificate.id, format));
  });
}
