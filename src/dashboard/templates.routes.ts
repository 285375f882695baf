import type { FastifyInstance } from 'fastify';
import type { DashboardDeps } from './deps.js';
import { pathId } from './params.js';
import { templatesPage } from './pages/templates.page.js';
import { html as send, requireSignIn, signedIn, takeFlash, userFrame } from './session.js';

// At most this many templates are listed (an account has a handful; the API pages through more).
const LISTED = 100;

export function templatesPages(app: FastifyInstance, deps: DashboardDeps) {
  const { templates, issue } = deps.services;
  const signIn = requireSignIn(deps);

  app.get('/templates', { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const list = await templates.list(accountId, { page: 1, perPage: LISTED });
    return send(
      reply,
      templatesPage({
        user: userFrame(request, reply),
        flash: takeFlash(request),
        templates: list.data,
        total: list.pagination.total,
      }),
    );
  });

  // The preview PDF, framed by the templates page (same origin only).
  app.get('/templates/:id/preview.pdf', { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const { pdf } = await issue.preview(accountId, pathId(request));
    return reply
      .header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'self'")
      .header('X-Frame-Options', 'SAMEORIGIN')
      .header('Cache-Control', 'private, max-age=300')
      .header('Content-Disposition', 'inline; filename="template-preview.pdf"')
      .type('application/pdf')
      .send(pdf);
  });
}
