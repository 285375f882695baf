import type { FastifyInstance } from 'fastify';
import type { DashboardDeps } from './deps.js';
import { templatesPage } from './pages/templates.page.js';
import { html as send, requireSignIn, signedIn, takeFlash, userFrame } from './session.js';
import { savedPreview } from './studio.routes.js';

// At most this many templates are listed (an account has a handful; the API pages through more).
const LISTED = 100;

export function templatesPages(app: FastifyInstance, deps: DashboardDeps) {
  const { templates } = deps.services;
  const signIn = requireSignIn(deps);

  // Drafts and published templates (archived ones are gone), newest first.
  app.get('/templates', { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    return send(
      reply,
      templatesPage({
        user: userFrame(request, reply),
        flash: takeFlash(request),
        templates: await templates.listWorking(accountId, LISTED),
      }),
    );
  });

  // The preview PDF, framed by the templates page (same origin only); see savedPreview.
  app.get('/templates/:id/preview.pdf', { preHandler: signIn }, async (request, reply) =>
    savedPreview(deps, request, reply),
  );
}
