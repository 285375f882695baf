import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../platform/errors.js';
import type { DashboardDeps } from './deps.js';
import { sharingSettingsPage } from './pages/settings.page.js';
import { settingsIndexPage } from './pages/settings-nav.js';
import { form } from './params.js';
import { pageFrame, routeKit } from './routes.js';
import { html as send, setFlash, signedIn, userFrame } from './session.js';

// Settings > Sharing: the account's settings about its certificates' public life (issue 19),
// changed through the same accounts service as the CLI's `account settings`.
export function settingsRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const accounts = deps.services.accounts;
  const kit = routeKit(app, deps);
  const path = '/settings/sharing';

  kit.page('/settings', 'read', async (request, reply) => settingsIndexPage(pageFrame(request, reply)));

  kit.page(path, 'organisation', async (request, reply) => {
    const account = await accounts.get(signedIn(request).user.accountId);
    return sharingSettingsPage({ ...pageFrame(request, reply), settings: account.settings });
  });

  app.post(path, { preHandler: kit.form('organisation') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const fields = form(request);
    const linkedinOrganizationId = fields.linkedinOrganizationId ?? '';
    // The form always carries the checkbox: absent means unchecked.
    const publicDownload = fields.publicDownload === 'on';
    try {
      await accounts.updateSettings(signedIn(request).principal, accountId, {
        linkedinOrganizationId,
        publicDownload,
      });
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const account = await accounts.get(accountId);
      const page = sharingSettingsPage({
        user: userFrame(request, reply),
        flash: { kind: 'error', text: `Not saved: ${err.message}.` },
        settings: account.settings,
        typed: { linkedinOrganizationId, publicDownload },
      });
      return send(reply, page, 422);
    }
    setFlash(request, { kind: 'ok', text: 'Sharing settings saved.' });
    return reply.redirect(`/dashboard${path}`, 303);
  });
}
