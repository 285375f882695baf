import type { FastifyInstance } from 'fastify';
import type { DashboardDeps } from './deps.js';
import { templatesPage } from './pages/templates.page.js';
import { pageFrame, routeKit } from './routes.js';
import { signedIn } from './session.js';
import { savedPreview } from './studio.routes.js';

// At most this many templates are listed (an account has a handful; the API pages through more).
const LISTED = 100;

export function templatesPages(app: FastifyInstance, deps: DashboardDeps) {
  const { templates } = deps.services;
  const kit = routeKit(app, deps);

  // Drafts and published templates (archived ones are gone), newest first.
  kit.page('/templates', 'read', async (request, reply) =>
    templatesPage({
      ...pageFrame(request, reply),
      templates: await templates.listWorking(signedIn(request).user.accountId, LISTED),
    }),
  );

  // The preview PDF, framed by the templates page (same origin only); see savedPreview.
  app.get('/templates/:id/preview.pdf', { preHandler: kit.allow('read') }, async (request, reply) =>
    savedPreview(deps, request, reply),
  );
}
