import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../platform/errors.js';
import type { DashboardDeps } from './deps.js';
import { form, pathId } from './params.js';
import { routeKit } from './routes.js';
import { setFlash, signedIn } from './session.js';

// The studio's unsaved edits (issue 30, item 8, docs/dashboard.md): the editor's script autosaves
// the design being edited as the user's draft of the template; "Discard" forgets it. Restoring it
// is the editor page itself (GET /templates/:id/edit?draft=1). Every POST carries the CSRF token.

// The design of the request: JSON { design } from the editor's script, or the form field `design`.
function designInput(request: FastifyRequest): unknown {
  const body = request.body;
  if (body && typeof body === 'object' && typeof (body as { design?: unknown }).design === 'object') {
    return (body as { design: unknown }).design;
  }
  const text = form(request).design ?? '';
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError(
      [{ path: ['design'], message: 'is not valid JSON' }],
      'The design is not valid JSON.',
    );
  }
}

function sendJson(reply: FastifyReply, status: number, body: unknown) {
  return reply
    .code(status)
    .header('Cache-Control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(body));
}

export function draftRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { templates } = deps.services;
  const kit = routeKit(app, deps);

  // Autosave: { savedAt } (200); a design of the wrong shape or too large is a 422 in the error
  // envelope, and the draft stored before stays.
  app.post('/templates/:id/draft', { preHandler: kit.form('design') }, async (request, reply) => {
    const { accountId, id: userId } = signedIn(request).user;
    const id = pathId(request);
    try {
      const { savedAt } = await templates.saveDraft(accountId, userId, id, designInput(request));
      return sendJson(reply, 200, { savedAt: savedAt.toISOString() });
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const { code, message, issues } = err;
      return sendJson(reply, 422, { error: { code, message, details: { issues } } });
    }
  });

  app.post('/templates/:id/draft/discard', { preHandler: kit.form('design') }, async (request, reply) => {
    const { accountId, id: userId } = signedIn(request).user;
    const id = pathId(request);
    await templates.working(accountId, id);
    await templates.discardDraft(accountId, userId, id);
    setFlash(request, { kind: 'ok', text: 'The unsaved changes are discarded.' });
    return reply.redirect(`/dashboard/templates/${id}/edit`, 303);
  });
}
