import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DashboardDeps } from './dashboard.plugin.js';
import { html as send, loadSignedIn, requireSignIn, takeFlash, userFrame } from './session.js';
import { signInPage } from './pages/sign-in.page.js';
import { homePage } from './pages/home.page.js';

// Sign-in attempts, counted before the password is checked (decisions: the project's rate-limit
// stores, exact across instances with Redis): per email address and per client IP.
export const SIGN_IN_LIMITS = {
  perEmail: { max: 5, windowMs: 15 * 60 * 1000 },
  perIp: { max: 30, windowMs: 15 * 60 * 1000 },
};

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
    const usage = await services.usage.get(user.principal);
    const templates = await services.templates.list(user.user.accountId, { page: 1, perPage: 1 });
    return send(
      reply,
      homePage({
        user: userFrame(request, reply),
        flash: takeFlash(request),
        usage,
        templateCount: templates.pagination.total,
      }),
    );
  });

  app.post('/sign-in', { preHandler: app.csrfProtection }, async (request, reply) => {
    const email = field(request, 'email').trim().toLowerCase();
    const password = field(request, 'password');
    const again = (status: number, error: string) =>
      send(reply, signInPage({ csrf: reply.generateCsrf(), email, error }), status);

    const store = deps.rateLimitStore;
    const { perEmail, perIp } = SIGN_IN_LIMITS;
    const byIp = await store.consume(`signin-ip:${request.ip}`, perIp.max, perIp.windowMs);
    const byEmail = byIp.allowed
      ? await store.consume(`signin-email:${email}`, perEmail.max, perEmail.windowMs)
      : byIp;
    if (!byIp.allowed || !byEmail.allowed) {
      const wait = Math.max(byIp.retryAfter, byEmail.retryAfter, 1);
      reply.header('Retry-After', wait);
      return again(429, `Too many sign-in attempts. Wait ${Math.ceil(wait / 60)} minute(s) and try again.`);
    }
    if (!email || !password) return again(422, 'Enter your email address and your password.');
    const user = await services.users.authenticate(email, password);
    if (!user) return again(401, 'The email address or the password is not right.');
    // A new session id at sign-in, so that an id planted before it is worth nothing after it.
    await request.session.regenerate();
    request.session.userId = user.id;
    request.session.signedInAt = deps.now().getTime();
    return reply.redirect('/dashboard', 303);
  });

  app.post('/sign-out', { preHandler: [requireSignIn(deps), app.csrfProtection] }, async (request, reply) => {
    await request.session.destroy();
    return reply.redirect('/dashboard', 303);
  });
}
