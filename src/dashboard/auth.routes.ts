import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError } from '../platform/errors.js';
import type { DashboardDeps } from './deps.js';
import type { Origin } from '../platform/principal.js';
import type { RateLimitStore } from '../platform/rate-limit/rate-limit.store.js';
import type { UserView } from '../modules/users/users.service.js';
import {
  html as send,
  loadSignedIn,
  requireSignIn,
  SUSPENDED_MESSAGE,
  sendToTwoFactorSetUp,
  takeFlash,
  userFrame,
} from './session.js';
import { signInPage } from './pages/sign-in.page.js';
import { homePage } from './pages/home.page.js';

// Sign-in attempts, counted before the password is checked (decisions: the project's rate-limit
// stores, exact across instances with Redis). Tight per (email, address), so guessing from one place
// stops soon; loose per email, so a stranger elsewhere cannot lock a colleague out, yet guessing
// from many places stays bounded; and per address, so one place cannot try many emails.
export const SIGN_IN_LIMITS = {
  perEmailAndIp: { max: 5, windowMs: 15 * 60 * 1000 },
  perEmail: { max: 100, windowMs: 60 * 60 * 1000 },
  perIp: { max: 30, windowMs: 15 * 60 * 1000 },
};

type Limit = { max: number; windowMs: number };

/**
 * Counts an attempt in each bucket, in order, each only if the ones before it allowed it: undefined
 * when all did, or the seconds to wait (at least 1).
 */
export async function overLimit(
  store: RateLimitStore,
  buckets: readonly (readonly [string, Limit])[],
): Promise<number | undefined> {
  for (const [bucket, limit] of buckets) {
    const result = await store.consume(bucket, limit.max, limit.windowMs);
    if (!result.allowed) return Math.max(result.retryAfter, 1);
  }
  return undefined;
}

export function originOf(request: FastifyRequest): Origin {
  return { ip: request.ip, requestId: request.id };
}

// The end of a sign-in (the password, and the code when two-factor is on): a new session id that
// names the user (so that an id planted before it is worth nothing after it), the user's last sign-in, and its audit event.
export async function completeSignIn(
  request: FastifyRequest,
  deps: DashboardDeps,
  user: UserView,
  method: 'password' | 'totp' | 'recovery',
) {
  await request.session.regenerate();
  request.session.userId = user.id;
  request.session.signedInAt = deps.now().getTime();
  await deps.services.security.recordSignedIn(user, originOf(request), method);
}

function field(request: FastifyRequest, name: string): string {
  const value = (request.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

export function authRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { services } = deps;

  // /dashboard is the home page when signed in and the sign-in page otherwise.
  app.get('/', async (request, reply) => {
    const user = await loadSignedIn(request, deps);
    if (!user) return send(reply, signInPage({ csrf: reply.generateCsrf(), flash: takeFlash(request) }));
    if (user.mustSetUpTwoFactor) return sendToTwoFactorSetUp(request, reply);
    const usage = await services.usage.get(user.principal);
    const templates = await services.templates.list(user.user.accountId, { page: 1, perPage: 1 });
    return send(
      reply,
      homePage({
        user: userFrame(request, reply),
        flash: takeFlash(request),
        usage,
        plans: services.usage.plans(),
        issuer: {
          did: services.signingKeys.issuerDid(user.user.accountId),
          keys: await services.signingKeys.listKeys(user.user.accountId),
          pdfCertificates: await services.signingKeys.listPdfCertificates(user.user.accountId),
        },
        templateCount: templates.pagination.total,
      }),
    );
  });

  app.post('/sign-in', { preHandler: app.csrfProtection }, async (request, reply) => {
    const email = field(request, 'email').trim().toLowerCase();
    const password = field(request, 'password');
    const again = (status: number, error: string) =>
      send(reply, signInPage({ csrf: reply.generateCsrf(), email, error }), status);

    if (!email || !password) return again(422, 'Enter your email address and your password.');
    // The email is hashed into the buckets' names: any text makes a well-formed key.
    const emailKey = createHash('sha256').update(email).digest('base64url');
    const { perEmailAndIp, perEmail, perIp } = SIGN_IN_LIMITS;
    const wait = await overLimit(deps.rateLimitStore, [
      [`signin-ip:${request.ip}`, perIp],
      [`signin-email-ip:${emailKey}:${request.ip}`, perEmailAndIp],
      [`signin-email:${emailKey}`, perEmail],
    ]);
    if (wait !== undefined) {
      reply.header('Retry-After', wait);
      return again(429, `Too many sign-in attempts. Wait ${Math.ceil(wait / 60)} minute(s) and try again.`);
    }
    let user;
    try {
      user = await services.users.authenticate(email, password);
    } catch (err) {
      if (err instanceof ValidationError) return again(422, 'The email address is not valid.');
      throw err;
    }
    if (!user) {
      const known = await services.users.findByEmail(email);
      if (known) await services.security.recordSignInFailed(known, originOf(request), 'password');
      return again(401, 'The email address or the password is not right.');
    }
    if ((await services.accounts.get(user.accountId)).suspendedAt) return again(403, SUSPENDED_MESSAGE);
    // An account that signs in with SSO may have turned passwords off for all but its owners.
    if (!(await services.sso.passwordSignInAllowed(user.accountId, user.role))) {
      return again(
        403,
        'Your organisation signs in with single sign-on: use "Sign in with your organisation" below.',
      );
    }
    if (user.twoFactorEnabledAt) {
      // A new session id here too (and again when the code is right: completeSignIn).
      await request.session.regenerate();
      // Half-way: the session names no signed-in user until the code is right (two-factor.routes).
      request.session.codeUserId = user.id;
      request.session.codeSince = deps.now().getTime();
      return reply.redirect('/dashboard/sign-in/code', 303);
    }
    await completeSignIn(request, deps, user, 'password');
    return reply.redirect('/dashboard', 303);
  });

  app.post('/sign-out', { preHandler: [requireSignIn(deps), app.csrfProtection] }, async (request, reply) => {
    await request.session.destroy();
    return reply.redirect('/dashboard', 303);
  });
}
