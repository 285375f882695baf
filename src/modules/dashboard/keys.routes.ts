import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { plainTextProblem } from '../../platform/text.js';
import type { DashboardDeps } from './dashboard.plugin.js';
import { confirmRevokeKeyPage, keysPage } from './pages/keys.page.js';
import { html as send, requireSignIn, setFlash, signedIn, takeFlash, userFrame } from './session.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A path id that is not an id is simply a page that does not exist.
export function pathId(request: FastifyRequest): string {
  const { id } = request.params as { id: string };
  if (!UUID.test(id)) throw new NotFoundError('Page');
  return id.toLowerCase();
}

function formScopes(body: Record<string, unknown>): string[] {
  const raw = body.scopes;
  const list = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return list.filter((s): s is string => typeof s === 'string');
}

export function keysRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const keys = deps.services.keys;
  const signIn = requireSignIn(deps);
  const base = '/settings/api-keys';

  app.get(base, { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    // The full key of a key just created is in the session for exactly one page view.
    const created = request.session.newKey;
    if (created) delete request.session.newKey;
    return send(
      reply,
      keysPage({
        user: userFrame(request, reply),
        flash: takeFlash(request),
        keys: await keys.list(accountId),
        created,
      }),
    );
  });

  app.post(base, { preHandler: [signIn, app.csrfProtection] }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    const scopes = formScopes(body);
    const problem = name ? plainTextProblem(name, 100) : undefined;
    try {
      if (problem) throw new ValidationError([{ path: ['name'], message: problem }], `The name ${problem}.`);
      if (scopes.length === 0) {
        throw new ValidationError(
          [{ path: ['scopes'], message: 'choose at least one' }],
          'Choose at least one scope.',
        );
      }
      const key = await keys.create(accountId, { name: name || undefined, scopes });
      request.session.newKey = { id: key.id, key: key.key, name: key.name };
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      setFlash(request, { kind: 'error', text: `The key was not created: ${err.message}` });
    }
    // Post/redirect/get: reloading the list never creates a key again nor shows the key again.
    return reply.redirect(`/dashboard${base}`, 303);
  });

  app.get(`${base}/:id/revoke`, { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const id = pathId(request);
    const key = (await keys.list(accountId)).find((k) => k.id === id && !k.revokedAt);
    if (!key) throw new NotFoundError('API key');
    return send(reply, confirmRevokeKeyPage({ user: userFrame(request, reply), key }));
  });

  app.post(`${base}/:id/revoke`, { preHandler: [signIn, app.csrfProtection] }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const key = await keys.revoke(pathId(request), accountId);
    setFlash(request, {
      kind: 'ok',
      text: `The key ${key.name ?? key.prefix} is revoked: the next API request made with it is refused.`,
    });
    return reply.redirect(`/dashboard${base}`, 303);
  });
}
