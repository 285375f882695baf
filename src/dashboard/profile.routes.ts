import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { userDoer } from '../modules/users/security.service.js';
import { ForbiddenError, ValidationError } from '../platform/errors.js';
import { originOf } from './auth.routes.js';
import type { DashboardDeps } from './deps.js';
import { profilePage, type ProfileView } from './pages/profile.page.js';
import { form } from './params.js';
import { pageFrame, routeKit } from './routes.js';
import { html as send, PROFILE_PATH, setFlash, signedIn } from './session.js';

// Settings > Your profile: every role's own password and two-factor sign-in, and the owner's
// "require two-factor for everyone". Each form goes through the services (modules/users/security).

export function profileRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { services } = deps;
  const security = services.security;
  const kit = routeKit(app, deps);

  const who = (request: FastifyRequest) => {
    const { user } = signedIn(request);
    return { user, doer: userDoer(user, originOf(request)) };
  };

  async function view(
    request: FastifyRequest,
    reply: FastifyReply,
    extra: Partial<ProfileView> = {},
  ): Promise<ProfileView> {
    const { user } = signedIn(request);
    const current = (await services.users.getForSession(user.id))!;
    const enabled = current.twoFactorEnabledAt !== null;
    // The page may show a secret or recovery codes: never kept by a cache.
    reply.header('Cache-Control', 'no-store');
    return {
      ...pageFrame(request, reply),
      twoFactorEnabledAt: current.twoFactorEnabledAt,
      recoveryCodesLeft: enabled ? await security.recoveryCodesLeft(user.id) : 0,
      pending: enabled ? undefined : await security.pendingTwoFactor(user),
      requireTwoFactor: current.accountRequiresTwoFactor,
      ...extra,
    };
  }

  // A refused form: the page again with the message beside that form, 422 and nothing changed.
  async function refused(
    request: FastifyRequest,
    reply: FastifyReply,
    formName: NonNullable<ProfileView['error']>['form'],
    err: unknown,
  ) {
    if (!(err instanceof ValidationError)) throw err;
    return send(
      reply,
      profilePage(await view(request, reply, { error: { form: formName, text: err.message } })),
      422,
    );
  }

  kit.page('/settings/profile', 'read', async (request, reply) => profilePage(await view(request, reply)));
  // The answer to "confirm" shows the recovery codes at that address; a reload of it comes here.
  app.get(
    '/settings/profile/two-factor/confirm',
    { preHandler: kit.allow('read') },
    async (_request, reply) => reply.redirect(PROFILE_PATH, 303),
  );

  app.post('/settings/profile/password', { preHandler: kit.form('read') }, async (request, reply) => {
    const { user, doer } = who(request);
    const fields = form(request);
    try {
      await security.changePassword(doer, user, {
        current: fields.current ?? '',
        password: fields.password ?? '',
        again: fields.again ?? '',
      });
    } catch (err) {
      return refused(request, reply, 'password', err);
    }
    // Every session of the user ended with the change; this one goes on under a new id.
    const signedInAt = request.session.signedInAt;
    await request.session.regenerate();
    request.session.userId = user.id;
    request.session.signedInAt = signedInAt;
    setFlash(request, { kind: 'ok', text: 'Password changed. Your other sessions are signed out.' });
    return reply.redirect(PROFILE_PATH, 303);
  });

  app.post('/settings/profile/two-factor/start', { preHandler: kit.form('read') }, async (request, reply) => {
    await security.startTwoFactor(signedIn(request).user);
    return reply.redirect(PROFILE_PATH, 303);
  });

  app.post(
    '/settings/profile/two-factor/confirm',
    { preHandler: kit.form('read') },
    async (request, reply) => {
      const { user, doer } = who(request);
      let codes: string[];
      try {
        codes = await security.confirmTwoFactor(doer, user, (form(request).code ?? '').slice(0, 40));
      } catch (err) {
        return refused(request, reply, 'confirm', err);
      }
      // Signed in already: this session needs no code (mustSetUpTwoFactor is read per request).
      const flash = { kind: 'ok' as const, text: 'Two-factor sign-in is on.' };
      return send(reply, profilePage(await view(request, reply, { flash, recoveryCodes: codes })));
    },
  );

  app.post(
    '/settings/profile/two-factor/disable',
    { preHandler: kit.form('read') },
    async (request, reply) => {
      const { user, doer } = who(request);
      if ((await services.users.getForSession(user.id))?.accountRequiresTwoFactor) {
        throw new ForbiddenError('Your organisation requires two-factor sign-in: it cannot be turned off.');
      }
      const fields = form(request);
      try {
        await security.disableTwoFactor(doer, user, {
          password: fields.password ?? '',
          code: (fields.code ?? '').slice(0, 40),
        });
      } catch (err) {
        return refused(request, reply, 'disable', err);
      }
      setFlash(request, { kind: 'ok', text: 'Two-factor sign-in is off.' });
      return reply.redirect(PROFILE_PATH, 303);
    },
  );

  app.post(
    '/settings/profile/require-two-factor',
    { preHandler: kit.form('organisation') },
    async (request, reply) => {
      const { user, doer } = who(request);
      if (user.role !== 'owner') {
        throw new ForbiddenError('Only an owner of the organisation can require two-factor sign-in.');
      }
      const on = form(request).require === 'on';
      await security.setRequireTwoFactor(doer, user.accountId, on);
      const text = on
        ? 'Two-factor sign-in is now required: users without it set it up at their next page.'
        : 'Two-factor sign-in is no longer required.';
      setFlash(request, { kind: 'ok', text });
      return reply.redirect(PROFILE_PATH, 303);
    },
  );
}
