import type { FastifyInstance } from 'fastify';
import type { DashboardDeps } from './deps.js';
import { form, pathId } from './params.js';
import { correctionsPage } from './pages/corrections.page.js';
import { flashOutcome, pageFrame, routeKit } from './routes.js';
import { signedIn } from './session.js';

// Certificates > Corrections (issue 31, decisions 22): the recipients' requests, approved (a
// reissue, the same as the certificate page's "Correct and reissue") or rejected with a reason.

const MAIL_FAILED = ' The email to the recipient could not be sent: tell them yourself.';

export function correctionsPages(app: FastifyInstance, deps: DashboardDeps) {
  const { corrections } = deps.services;
  const kit = routeKit(app, deps);
  const back = '/dashboard/certificates/corrections';

  kit.page('/certificates/corrections', 'read', async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const { open, decided } = await corrections.list(accountId);
    return correctionsPage({ ...pageFrame(request, reply), open, decided });
  });

  app.post(
    '/certificates/corrections/:id/approve',
    { preHandler: kit.form('issue') },
    async (request, reply) => {
      const s = signedIn(request);
      await flashOutcome(request, 'Not approved', async () => {
        const { certificate, mailed } = await corrections.approve(s.principal, pathId(request));
        return (
          `Approved: the certificate was reissued as ${certificate.uniqueCode} and the old one superseded.` +
          (mailed ? ' The recipient was told by email.' : MAIL_FAILED)
        );
      });
      return reply.redirect(back, 303);
    },
  );

  app.post(
    '/certificates/corrections/:id/reject',
    { preHandler: kit.form('issue') },
    async (request, reply) => {
      const s = signedIn(request);
      const reason = form(request).reason ?? '';
      await flashOutcome(request, 'Not rejected', async () => {
        const { mailed } = await corrections.reject(s.principal, pathId(request), reason);
        return 'Rejected.' + (mailed ? ' The recipient was told by email, with your reason.' : MAIL_FAILED);
      });
      return reply.redirect(back, 303);
    },
  );
}
