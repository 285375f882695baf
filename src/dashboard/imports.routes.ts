import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../platform/errors.js';
import type { ImportView } from '../modules/imports/imports.service.js';
import { zipStream } from '../platform/zip.js';
import type { DashboardDeps } from './deps.js';
import { DASHBOARD_CSP_SELF_CONNECT } from './html.js';
import { pathId } from './params.js';
import { importPage, importsPage } from './pages/imports.page.js';
import { html as send, requireSignIn, setFlash, signedIn, takeFlash, userFrame } from './session.js';

const count = (n: number) => n.toLocaleString('en-US');

function cancelledText(imp: ImportView): string {
  const certificates = `${count(imp.created)} certificate${imp.created === 1 ? ' was' : 's were'} issued`;
  return (
    `The import is cancelled after ${count(imp.done)} of ${count(imp.rows)} rows: ${certificates} ` +
    `and stay${imp.created === 1 ? 's' : ''}, ${count(imp.failed)} failed; ` +
    `the other ${count(imp.rows - imp.done)} will not be issued.`
  );
}

// Large imports (decisions section 20): the list, one import's live page (polled progress), cancel,
// and its results: the per-row CSV and the created certificates' PDFs, both streamed.
export function importsPages(app: FastifyInstance, deps: DashboardDeps) {
  const { certificates, imports, templates } = deps.services;
  const signIn = requireSignIn(deps);

  app.get('/imports', { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    return send(
      reply,
      importsPage({
        user: userFrame(request, reply),
        flash: takeFlash(request),
        imports: await imports.list(accountId),
      }),
    );
  });

  app.get('/imports/:id', { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const imp = await imports.get(accountId, pathId(request));
    const template = await templates.get(accountId, imp.templateId).catch(() => undefined);
    // Its script polls progress.json.
    reply.header('Content-Security-Policy', DASHBOARD_CSP_SELF_CONNECT);
    return send(
      reply,
      importPage({
        user: userFrame(request, reply),
        flash: takeFlash(request),
        imp,
        templateName: template?.name,
        csrf: reply.generateCsrf(),
        emailDelivery: signedIn(request).principal.emailDelivery,
      }),
    );
  });

  // What the page's script polls: the import's counters, never its rows.
  app.get('/imports/:id/progress.json', { preHandler: signIn }, async (request, reply) => {
    const imp = await imports.get(signedIn(request).user.accountId, pathId(request));
    return reply.header('Cache-Control', 'no-store').send(imp);
  });

  app.post('/imports/:id/cancel', { preHandler: [signIn, app.csrfProtection] }, async (request, reply) => {
    // The counts read after the cancel are final: a chunk being issued meanwhile either committed
    // first (and is counted) or rolls back (imports.repository.ts, finishChunk).
    const imp = await imports.cancel(signedIn(request).user.accountId, pathId(request));
    setFlash(request, {
      kind: imp.state === 'cancelled' ? 'ok' : 'warn',
      text: imp.state === 'cancelled' ? cancelledText(imp) : `The import had already ended (${imp.state}).`,
    });
    return reply.redirect(`/dashboard/imports/${imp.id}`, 303);
  });

  app.post('/imports/:id/email', { preHandler: [signIn, app.csrfProtection] }, async (request, reply) => {
    const s = signedIn(request);
    const id = pathId(request);
    try {
      const queued = await imports.emailAll(s.principal, id);
      setFlash(request, {
        kind: 'ok',
        text: `${queued.toLocaleString('en-US')} certificate${queued === 1 ? '' : 's'} queued for email. Each certificate's page shows its send history.`,
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'not_found') throw err;
      setFlash(request, { kind: 'error', text: `Not emailed: ${err.message}` });
    }
    return reply.redirect(`/dashboard/imports/${id}`, 303);
  });

  app.get('/imports/:id/results.csv', { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const id = pathId(request);
    await imports.get(accountId, id);
    return reply
      .header('Content-Disposition', 'attachment; filename="import-results.csv"')
      .header('Cache-Control', 'private, no-store')
      .type('text/csv; charset=utf-8')
      .send(Readable.from(imports.resultsCsv(accountId, id)));
  });

  app.get('/imports/:id/pdfs.zip', { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const ids = await imports.createdIds(accountId, pathId(request));
    return reply
      .header('Content-Disposition', 'attachment; filename="import-certificates.zip"')
      .header('Cache-Control', 'private, no-store')
      .type('application/zip')
      .send(Readable.from(zipStream(certificates.pdfEntries(accountId, ids))));
  });
}
