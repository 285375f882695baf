import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DashboardDeps } from './deps.js';
import { completeSignIn, originOf, overLimit, SIGN_IN_LIMITS } from './auth.routes.js';
import { signInCodePage } from './pages/sign-in.page.js';
import { TwoFactorSecretUnreadableError } from '../modules/users/security.service.js';
import { form } from './params.js';
import { html as send } from './session.js';

// The second step of a sign-in with two-factor on (issue 29): after a right password the session
// holds only `codeUserId`, which opens no page (loadSignedIn reads `userId` alone), until a code of
// the user's app or one of their recovery codes completes the sign-in. The half-way state lasts
// CODE_STEP_MS; code attempts are counted like password attempts, in buckets of their own.

export const CODE_STEP_MS = 10 * 60 * 1000;

export function signInCodeRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { services } = deps;

  // The user half-way through signing in, or undefined (the half-way state is then dropped).
  async function halfway(request: FastifyRequest) {
    const s = request.session;
    if (!s.codeUserId || !s.codeSince) return undefined;
    if (deps.now().getTime() - s.codeSince > CODE_STEP_MS) {
      await s.destroy();
      return undefined;
    }
    const user = await services.users.get(s.codeUserId);
    if (!user?.twoFactorEnabledAt) await s.destroy();
    return user?.twoFactorEnabledAt ? user : undefined;
  }

  app.get('/sign-in/code', async (request, reply) => {
    if (!(await halfway(request))) return reply.redirect('/dashboard', 303);
    return send(reply, signInCodePage({ csrf: reply.generateCsrf() }));
  });

  app.post('/sign-in/code', { preHandler: app.csrfProtection }, async (request, reply) => {
    const user = await halfway(request);
    if (!user) return reply.redirect('/dashboard', 303);
    const again = (status: number, error: string) =>
      send(reply, signInCodePage({ csrf: reply.generateCsrf(), error }), status);
    const code = (form(request).code ?? '').trim();
    if (!code) return again(422, 'Enter the code of your authenticator app, or a recovery code.');
    const userKey = createHash('sha256').update(user.id).digest('base64url');
    const { perEmailAndIp, perEmail, perIp } = SIGN_IN_LIMITS;
    const wait = await overLimit(deps.rateLimitStore, [
      [`signin-code-ip:${request.ip}`, perIp],
      [`signin-code-user-ip:${userKey}:${request.ip}`, perEmailAndIp],
      [`signin-code-user:${userKey}`, perEmail],
    ]);
    if (wait !== undefined) {
      reply.header('Retry-After', wait);
      return again(429, `Too many code attempts. Wait ${Math.ceil(wait / 60)} minute(s) and try again.`);
    }
    let method: Awaited<ReturnType<typeof services.security.takeCode>>;
    try {
      method = code.length <= 40 ? await services.security.takeCode(user.id, code) : undefined;
    } catch (err) {
      if (err instanceof TwoFactorSecretUnreadableError) return again(503, err.message);
      throw err;
    }
    if (!method) {
      await services.security.recordSignInFailed(user, originOf(request), 'code');
      return again(401, 'The code is not right, or it was used already. Enter the current code of your app.');
    }
    await completeSignIn(request, deps, user, method);
    return reply.redirect('/dashboard', 303);
  });
}
