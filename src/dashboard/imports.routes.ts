import type { FastifyInstance } from 'fastify';
import type { ImportView } from '../modules/imports/imports.service.js';
import type { DashboardDeps } from './deps.js';
import { sendCsv, sendZip } from './downloads.js';
import { DASHBOARD_CSP_SELF_CONNECT } from './html.js';
import { pathId } from './params.js';
import { importPage, importsPage } from './pages/imports.page.js';
import { flashOutcome, pageFrame, routeKit } from './routes.js';
import { setFlash, signedIn } from './session.js';

const count = (n: number) => n.toLocaleString('en-US');

function cancelledText(imp: ImportView): string {
  const certificates = `${count(imp.created)} certificate${imp.created === 1 ? ' was' : 's were'} issued`;
  return (
    `The import is cancelled after ${count(imp.done)} of ${count(imp.rows)} rows: ${certificates} ` +
    `and stay${imp.created === 1 ? 's' : ''}, ${count(imp.failed)} failed; ` +
    `the other ${count(imp.rows - imp.done)} will not be issued.`
  );
}

// What "Email all created" says when it queued them (an import's page, an upload's results).
export function emailedText(queued: number): string {
  return `${count(queued)} certificate${queued === 1 ? '' : 's'} queued for email. Each certificate's page shows its send history.`;
}

// Large imports (decisions section 20): the list, one import's live page (polled progress), cancel,
// and its results: the per-row CSV and the created certificates' PDFs, both streamed.
export function importsPages(app: FastifyInstance, deps: DashboardDeps) {
  const { certificates, imports, templates } = deps.services;
  const kit = routeKit(app, deps);

  kit.page('/imports', 'read', async (request, reply) =>
    importsPage({
      ...pageFrame(request, reply),
      imports: await imports.list(signedIn(request).user.accountId),
    }),
  );

  kit.page('/imports/:id', 'read', async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const imp = await imports.get(accountId, pathId(request));
    const template = await templates.get(accountId, imp.templateId).catch(() => undefined);
    // Its script polls progress.json.
    reply.header('Content-Security-Policy', DASHBOARD_CSP_SELF_CONNECT);
    return importPage({
      ...pageFrame(request, reply),
      imp,
      templateName: template?.name,
      csrf: reply.generateCsrf(),
      emailDelivery: signedIn(request).principal.emailDelivery,
      reasons: await imports.failureReasons(accountId, imp.id),
    });
  });

  // What the page's script polls: the import's counters, never its rows.
  app.get('/imports/:id/progress.json', { preHandler: kit.allow('read') }, async (request, reply) => {
    const imp = await imports.get(signedIn(request).user.accountId, pathId(request));
    return reply.header('Cache-Control', 'no-store').send(imp);
  });

  app.post('/imports/:id/cancel', { preHandler: kit.form('issue') }, async (request, reply) => {
    // The counts read after the cancel are final: a chunk being issued meanwhile either committed
    // first (and is counted) or rolls back (imports.repository.ts, finishChunk).
    const s = signedIn(request);
    const imp = await imports.cancel(s.principal, s.user.accountId, pathId(request));
    setFlash(request, {
      kind: imp.state === 'cancelled' ? 'ok' : 'warn',
      text: imp.state === 'cancelled' ? cancelledText(imp) : `The import had already ended (${imp.state}).`,
    });
    return reply.redirect(`/dashboard/imports/${imp.id}`, 303);
  });

  app.post('/imports/:id/email', { preHandler: kit.form('issue') }, async (request, reply) => {
    const id = pathId(request);
    await flashOutcome(request, 'Not emailed', async () =>
      emailedText(await imports.emailAll(signedIn(request).principal, id)),
    );
    return reply.redirect(`/dashboard/imports/${id}`, 303);
  });

  app.get('/imports/:id/results.csv', { preHandler: kit.allow('read') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const id = pathId(request);
    await imports.get(accountId, id);
    return sendCsv(reply, 'import-results.csv', imports.resultsCsv(accountId, id));
  });

  app.get('/imports/:id/pdfs.zip', { preHandler: kit.allow('issue') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const id = pathId(request);
    const ids = await imports.createdIds(accountId, id);
    const entries = certificates.pdfEntries(signedIn(request).principal, accountId, ids, `import ${id}`);
    return sendZip(reply, 'import-certificates.zip', entries);
  });
}
