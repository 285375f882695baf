import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AT_ONCE_ROWS, type ImportView } from '../modules/imports/imports.service.js';
import { AppError } from '../platform/errors.js';
import type { DashboardDeps } from './deps.js';
import { form, pathId } from './params.js';
import { count } from './pages/quota.js';
import { heldUploadPage } from './pages/upload-hold.page.js';
import { routeKit } from './routes.js';
import { html as send, setFlash, signedIn, takeFlash, userFrame } from './session.js';

// The quota in view (issue 29, docs/dashboard.md): an upload whose rows exceed what the period has
// left is held until the user issues its first N rows or cancels it; an ended import's failed rows
// are retried, once, as a new import.

// Where an upload's outcome is shown: an upload issued at once has its results page, a larger one
// its import's page.
export function outcomeUrl(imp: ImportView): string {
  return imp.rows > AT_ONCE_ROWS
    ? `/dashboard/imports/${imp.id}`
    : `/dashboard/certificates/upload/results/${imp.id}`;
}

export function heldUploadPages(app: FastifyInstance, deps: DashboardDeps) {
  const { imports, templates, usage } = deps.services;
  const kit = routeKit(app, deps);
  const base = '/certificates/upload/held/:id';

  const render = async (request: FastifyRequest, reply: FastifyReply, error?: string) => {
    const s = signedIn(request);
    const hold = await imports.held(s.user.accountId, pathId(request));
    const template = await templates.get(s.user.accountId, hold.templateId).catch(() => undefined);
    return heldUploadPage({
      user: userFrame(request, reply),
      flash: takeFlash(request),
      hold,
      templateName: template?.name ?? 'an archived template',
      usage: await usage.get(s.principal),
      plans: usage.plans(),
      error,
    });
  };

  kit.page(base, 'issue', (request, reply) => render(request, reply));

  // "Issue the first N": the held rows start as any upload does, limited to the first N.
  app.post(`${base}/start`, { preHandler: kit.form('issue') }, async (request, reply) => {
    const s = signedIn(request);
    const hold = await imports.held(s.user.accountId, pathId(request));
    const limit = Number(form(request).limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > hold.rows) {
      const error = `Choose how many rows to issue: a whole number from 1 to ${count(hold.rows)}.`;
      return send(reply, await render(request, reply, error), 422);
    }
    const imp = await imports.startHeld(s.principal, s.user.accountId, hold.id, limit, `user:${s.user.id}`);
    return reply.redirect(outcomeUrl(imp), 303);
  });

  app.post(`${base}/cancel`, { preHandler: kit.form('issue') }, async (request, reply) => {
    const s = signedIn(request);
    const hold = await imports.held(s.user.accountId, pathId(request));
    await imports.dropHeld(s.user.accountId, hold.id);
    setFlash(request, {
      kind: 'ok',
      text: `The upload of ${hold.fileName} is cancelled: nothing was issued.`,
    });
    return reply.redirect(`/dashboard/certificates/upload?templateId=${hold.templateId}`, 303);
  });

  // "Retry the failed rows": a new import of exactly them; a second click shows the same import.
  app.post('/imports/:id/retry', { preHandler: kit.form('issue') }, async (request, reply) => {
    const s = signedIn(request);
    const id = pathId(request);
    try {
      const imp = await imports.retryFailed(s.principal, s.user.accountId, id, `user:${s.user.id}`);
      const rows = `${count(imp.rows)} failed row${imp.rows === 1 ? '' : 's'}`;
      setFlash(request, { kind: 'ok', text: `This import retries the ${rows}; none is issued twice.` });
      return reply.redirect(`/dashboard/imports/${imp.id}`, 303);
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'not_found') throw err;
      setFlash(request, { kind: 'error', text: `Not retried: ${err.message}.` });
      return reply.redirect(`/dashboard/imports/${id}`, 303);
    }
  });
}
