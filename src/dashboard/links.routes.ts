import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError, ValidationError } from '../platform/errors.js';
import { isLinkToken, LinkGoneError } from '../modules/users/link-token.js';
import { consumeReset, openReset } from '../modules/users/password-resets.js';
import type { DashboardDeps } from './deps.js';
import { errorPage } from './html.js';
import { invitationPage, resetPasswordPage } from './pages/links.page.js';
import { form } from './params.js';
import { html as send, setFlash } from './session.js';

// The pages single-use links open, signed out (issue 29): an invitation (choose a password, join the
// account, signed in) and a password reset (choose a new password; every session of the user ends).
// A used, cancelled or expired link answers 410 and changes nothing; an unknown one 404.

function token(request: FastifyRequest): string {
  const { token: value } = request.params as { token: string };
  if (!isLinkToken(value)) throw new NotFoundError('Link');
  return value;
}

// A link that can no longer be used: a clear page, 410.
async function orGone(reply: FastifyReply, run: () => Promise<unknown>) {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof LinkGoneError)) throw err;
    return send(reply, errorPage(410, err.message, false), 410);
  }
}

export function linksRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { services, db } = deps;

  app.get('/invitations/:token', async (request, reply) =>
    orGone(reply, async () => {
      const t = token(request);
      const invitation = await services.team.openInvitation(t);
      return send(reply, invitationPage({ token: t, csrf: reply.generateCsrf(), invitation }));
    }),
  );

  app.post('/invitations/:token', { preHandler: app.csrfProtection }, async (request, reply) =>
    orGone(reply, async () => {
      const t = token(request);
      try {
        const user = await services.team.accept(t, form(request).password ?? '', {
          ip: request.ip,
          requestId: request.id,
        });
        await request.session.regenerate();
        request.session.userId = user.id;
        request.session.signedInAt = deps.now().getTime();
        setFlash(request, { kind: 'ok', text: `Welcome: you joined as ${user.role}.` });
        return reply.redirect('/dashboard', 303);
      } catch (err) {
        if (!(err instanceof ValidationError) && (err as { code?: string }).code !== 'conflict') throw err;
        const invitation = await services.team.openInvitation(t);
        const page = invitationPage({
          token: t,
          csrf: reply.generateCsrf(),
          invitation,
          error: (err as Error).message,
        });
        return send(reply, page, err instanceof ValidationError ? 422 : 409);
      }
    }),
  );

  app.get('/reset-password/:token', async (request, reply) =>
    orGone(reply, async () => {
      const t = token(request);
      const { email } = await openReset(db, t, deps.now());
      return send(reply, resetPasswordPage({ token: t, csrf: reply.generateCsrf(), email }));
    }),
  );

  app.post('/reset-password/:token', { preHandler: app.csrfProtection }, async (request, reply) =>
    orGone(reply, async () => {
      const t = token(request);
      try {
        await consumeReset(db, {
          token: t,
          password: form(request).password ?? '',
          now: deps.now,
          origin: { ip: request.ip, requestId: request.id },
        });
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        const { email } = await openReset(db, t, deps.now());
        return send(
          reply,
          resetPasswordPage({ token: t, csrf: reply.generateCsrf(), email, error: err.message }),
          422,
        );
      }
      // Whoever was signed in on this browser is signed out: the new password is for signing in again.
      if (request.session.userId) await request.session.regenerate();
      setFlash(request, { kind: 'ok', text: 'Your password is changed. Sign in with it.' });
      return reply.redirect('/dashboard', 303);
    }),
  );
}
