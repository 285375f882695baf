import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError, ValidationError } from '../platform/errors.js';
import type { DashboardDeps } from './deps.js';
import type { Flash } from './html.js';
import { confirmRevokeKeyPage, keysPage } from './pages/keys.page.js';
import { formList, pathId } from './params.js';
import { routeKit } from './routes.js';
import { html as send, setFlash, signedIn, takeFlash, userFrame } from './session.js';

export function keysRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const keys = deps.services.keys;
  const kit = routeKit(app, deps);
  const base = '/settings/api-keys';

  const listPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { flash?: Flash; created?: { key: string; name: string | null } } = {},
  ) =>
    keysPage({
      user: userFrame(request, reply),
      flash: extra.flash ?? takeFlash(request),
      keys: await keys.list(signedIn(request).user.accountId),
      created: extra.created,
    });

  kit.page(base, 'keys', (request, reply) => listPage(request, reply));

  // The new key is shown in this answer only, never stored (the database keeps its hash alone) and
  // never cached. Reloading asks the browser to send the form again, which makes another key.
  app.post(base, { preHandler: kit.form('keys') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const scopes = formList(request, 'scopes');
    try {
      if (scopes.length === 0) {
        throw new ValidationError(
          [{ path: ['scopes'], message: 'choose at least one' }],
          'Choose at least one scope.',
        );
      }
      const key = await keys.create(
        accountId,
        { name: typeof body.name === 'string' ? body.name : undefined, scopes },
        signedIn(request).principal,
      );
      reply.header('Cache-Control', 'no-store');
      return send(reply, await listPage(request, reply, { created: { key: key.key, name: key.name } }));
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const flash: Flash = { kind: 'error', text: `The key was not created: ${err.message}` };
      return send(reply, await listPage(request, reply, { flash }), 422);
    }
  });

  kit.page(`${base}/:id/revoke`, 'keys', async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const id = pathId(request);
    const key = (await keys.list(accountId)).find((k) => k.id === id && !k.revokedAt);
    if (!key) throw new NotFoundError('API key');
    return confirmRevokeKeyPage({ user: userFrame(request, reply), key });
  });

  app.post(`${base}/:id/revoke`, { preHandler: kit.form('keys') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const key = await keys.revoke(pathId(request), accountId, signedIn(request).principal);
    setFlash(request, {
      kind: 'ok',
      text: `The key ${key.name ?? key.prefix} is revoked: the next API request made with it is refused.`,
    });
    return reply.redirect(`/dashboard${base}`, 303);
  });
}
