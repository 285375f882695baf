import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ProfileInput } from '../modules/accounts/account-profile.js';
import { ValidationError } from '../platform/errors.js';
import type { DashboardDeps } from './deps.js';
import { organisationSettingsPage } from './pages/organisation.page.js';
import { form } from './params.js';
import { pageFrame, routeKit } from './routes.js';
import { html as send, setFlash, signedIn, userFrame } from './session.js';

// Settings > Organisation: the organisation's profile (issue 29), changed through the accounts
// service's updateProfile, as `certsvc account update` does; the logo is served back to the page.
export function organisationRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const accounts = deps.services.accounts;
  const kit = routeKit(app, deps);
  const path = '/settings/organisation';

  kit.page(path, 'organisation', async (request, reply) => {
    const account = await accounts.get(signedIn(request).user.accountId);
    return organisationSettingsPage({ ...pageFrame(request, reply), account });
  });

  app.post(path, { preHandler: kit.form('organisation') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const fields = form(request);
    const input: ProfileInput = {
      name: fields.name ?? '',
      website: fields.website ?? '',
      contactEmail: fields.contactEmail ?? '',
      defaultLanguage: fields.defaultLanguage ?? 'en',
    };
    // An empty file input keeps the logo; "Remove the logo" removes it.
    const logo = await uploadedLogo(request);
    if (logo) input.logo = logo;
    else if (fields.removeLogo === 'on') input.logo = null;
    try {
      await accounts.updateProfile(accountId, input, signedIn(request).principal);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const page = organisationSettingsPage({
        user: userFrame(request, reply),
        flash: { kind: 'error', text: `Not saved: ${err.message}.` },
        account: await accounts.get(accountId),
        typed: fields,
      });
      return send(reply, page, 422);
    }
    setFlash(request, { kind: 'ok', text: 'Organisation saved.' });
    return reply.redirect(`/dashboard${path}`, 303);
  });

  // The logo as stored (checked as a PNG or JPEG when uploaded), never sniffed as anything else.
  app.get(`${path}/logo`, { preHandler: kit.allow('organisation') }, async (request, reply) => {
    const logo = await accounts.logo(signedIn(request).user.accountId);
    return reply
      .header('Cache-Control', 'private, no-cache')
      .header('ETag', `"${logo.sha256}"`)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', "default-src 'none'")
      .type(logo.type)
      .send(logo.bytes);
  });
}

async function uploadedLogo(request: FastifyRequest): Promise<Buffer | undefined> {
  const file = (request.body as { logo?: MultipartFile } | undefined)?.logo;
  if (!file || file.type !== 'file') return undefined;
  const bytes = await file.toBuffer();
  return bytes.length > 0 ? bytes : undefined;
}
