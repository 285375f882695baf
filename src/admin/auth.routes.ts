import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../platform/errors.js';
import { form } from '../dashboard/params.js';
import type { AdminDeps } from './deps.js';
import { signInPage, twoFactorPage } from './pages/sign-in.page.js';
import { html as send, loadOperator, operatorOf, requirePassword, takeFlash } from './session.js';

// Operators' sign-in attempts: the dashboard's buckets (SIGN_IN_LIMITS), named apart. Codes: a few
// per operator, whatever the address, so that six digits cannot be guessed.
export const OPERATOR_SIGN_IN_LIMITS = {
  perEmailAndIp: { max: 5, windowMs: 15 * 60 * 1000 },
  perEmail: { max: 100, windowMs: 60 * 60 * 1000 },
  perIp: { max: 30, windowMs: 15 * 60 * 1000 },
};
export const OPERATOR_CODE_LIMITS = {
  perOperator: { max: 10, windowMs: 15 * 60 * 1000 },
  perIp: { max: 30, windowMs: 15 * 60 * 1000 },
};

// Counts an attempt in each bucket in turn; the wait in seconds when one refuses it.
async function refused(
  deps: AdminDeps,
  buckets: (readonly [string, { max: number; windowMs: number }])[],
): Promise<number | undefined> {
  for (const [bucket, limit] of buckets) {
    const result = await deps.rateLimitStore.consume(bucket, limit.max, limit.windowMs);
    if (!result.allowed) return Math.max(result.retryAfter, 1);
  }
  return undefined;
}

function tooMany(reply: FastifyReply, wait: number): string {
  reply.header('Retry-After', wait);
  return `Too many attempts. Wait ${Math.ceil(wait / 60)} minute(s) and try again.`;
}

async function twoFactor(request: FastifyRequest, reply: FastifyReply, deps: AdminDeps, error?: string) {
  const { operator } = operatorOf(request);
  const setup = operator.twoFactor ? undefined : await deps.services.operators.twoFactorSetup(operator.id);
  return twoFactorPage({ csrf: reply.generateCsrf(), email: operator.email, setup, error });
}

export function adminAuthRoutes(app: FastifyInstance, deps: AdminDeps) {
  const { services } = deps;
  const passwordGiven = requirePassword(deps);

  app.post('/sign-in', { preHandler: app.csrfProtection }, async (request, reply) => {
    const fields = form(request);
    const email = (fields.email ?? '').trim().toLowerCase();
    const password = fields.password ?? '';
    const again = (status: number, error: string) =>
      send(reply, signInPage({ csrf: reply.generateCsrf(), email, error }), status);
    if (!email || !password) return again(422, 'Enter your email address and your password.');
    const emailKey = createHash('sha256').update(email).digest('base64url');
    const { perIp, perEmailAndIp, perEmail } = OPERATOR_SIGN_IN_LIMITS;
    const wait = await refused(deps, [
      [`admin-signin-ip:${request.ip}`, perIp],
      [`admin-signin-email-ip:${emailKey}:${request.ip}`, perEmailAndIp],
      [`admin-signin-email:${emailKey}`, perEmail],
    ]);
    if (wait !== undefined) return again(429, tooMany(reply, wait));
    let operator;
    try {
      operator = await services.operators.authenticate(email, password);
    } catch (err) {
      if (err instanceof ValidationError) return again(422, 'The email address is not valid.');
      throw err;
    }
    if (!operator) return again(401, 'The email address or the password is not right.');
    // Half signed in: only the two-factor page is open until the code is given.
    await request.session.regenerate();
    request.session.operatorId = operator.id;
    request.session.operatorSignedInAt = deps.now().getTime();
    request.session.operatorVerified = false;
    return reply.redirect('/admin/two-factor', 303);
  });

  app.get('/two-factor', { preHandler: passwordGiven }, async (request, reply) =>
    send(reply, await twoFactor(request, reply, deps)),
  );

  app.post('/two-factor', { preHandler: [passwordGiven, app.csrfProtection] }, async (request, reply) => {
    const { operator } = operatorOf(request);
    const { perOperator, perIp } = OPERATOR_CODE_LIMITS;
    const wait = await refused(deps, [
      [`admin-code-ip:${request.ip}`, perIp],
      [`admin-code:${operator.id}`, perOperator],
    ]);
    if (wait !== undefined)
      return send(reply, await twoFactor(request, reply, deps, tooMany(reply, wait)), 429);
    const code = form(request).code ?? '';
    if (!(await services.operators.checkCode(operator.id, code))) {
      const error = 'The code is not right (or was used already). Type the code your app shows now.';
      return send(reply, await twoFactor(request, reply, deps, error), 401);
    }
    // A new session id once the console opens, as at the password.
    const signedInAt = request.session.operatorSignedInAt;
    await request.session.regenerate();
    request.session.operatorId = operator.id;
    request.session.operatorSignedInAt = signedInAt;
    request.session.operatorVerified = true;
    return reply.redirect('/admin', 303);
  });

  app.post('/sign-out', { preHandler: app.csrfProtection }, async (request, reply) => {
    if (await loadOperator(request, deps)) await request.session.destroy();
    return reply.redirect('/admin', 303);
  });

  // Signed out: the sign-in page (the console itself is in accounts.routes).
  return {
    signInPage: (request: FastifyRequest, reply: FastifyReply) =>
      send(reply, signInPage({ csrf: reply.generateCsrf(), flash: takeFlash(request) })),
  };
}
