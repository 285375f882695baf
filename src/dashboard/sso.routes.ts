import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, ValidationError } from '../platform/errors.js';
import { SSO_PENDING_MS, SsoRefusal } from '../modules/sso/sso.service.js';
import type { Pending } from '../modules/sso/oidc.js';
import type { SsoInput } from '../modules/sso/sso-settings.js';
import type { DashboardDeps } from './deps.js';
import { errorPage } from './html.js';
import { signInSettingsPage } from './pages/sign-in-settings.page.js';
import { ssoStartPage } from './pages/sso-start.page.js';
import { form, isUuid } from './params.js';
import { flashOutcome, pageFrame, routeKit } from './routes.js';
import { html as send, setFlash, signedIn, userFrame } from './session.js';

// Single sign-on (decisions 21): Settings > Sign-in, and the sign-in through the account's OpenID
// Provider. Between start and callback the browser holds what the callback must match (state, nonce,
// PKCE verifier) in a signed, HttpOnly cookie of its own that lives 10 minutes: nothing is stored on
// the server for a visitor who is not signed in yet.

const PENDING_COOKIE = 'certsvc_sso';
const PENDING_PATH = '/dashboard/sso';
// Starting a sign-in reads the provider's discovery document: bounded per address.
const START_LIMIT = { max: 60, windowMs: 15 * 60 * 1000 };

function refusalPage(reply: FastifyReply, status: number, message: string) {
  reply.clearCookie(PENDING_COOKIE, { path: PENDING_PATH });
  return send(reply, errorPage(status, message, false), status);
}

function readPending(request: FastifyRequest): Pending | undefined {
  const raw = request.cookies[PENDING_COOKIE];
  if (!raw) return undefined;
  const unsigned = request.unsignCookie(raw);
  if (!unsigned.valid || !unsigned.value) return undefined;
  try {
    const pending = JSON.parse(unsigned.value) as Pending;
    return typeof pending.state === 'string' && isUuid(pending.accountId) ? pending : undefined;
  } catch {
    return undefined;
  }
}

function settingsInput(request: FastifyRequest): SsoInput {
  const f = form(request);
  return {
    issuerUrl: f.issuerUrl ?? '',
    clientId: f.clientId ?? '',
    clientSecret: f.clientSecret ?? '',
    allowedDomains: f.allowedDomains ?? '',
    defaultRole: f.defaultRole ?? '',
    roleClaim: f.roleClaim ?? '',
    roleMap: f.roleMap ?? '',
    // Only an owner turns password sign-in off; everyone else's form leaves it as it is.
    passwordSignIn: signedIn(request).user.role === 'owner' ? f.passwordSignIn === 'on' : undefined,
  };
}

export function ssoRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { sso } = deps.services;
  const kit = routeKit(app, deps);
  const path = '/settings/sign-in';
  const startUrl = (accountId: string) => `${sso.redirectUri.replace(/\/callback$/, '')}/${accountId}/start`;

  kit.page(path, 'organisation', async (request, reply) => {
    const { accountId } = signedIn(request).user;
    return signInSettingsPage({
      ...pageFrame(request, reply),
      sso: await sso.settings(accountId),
      redirectUri: sso.redirectUri,
      startUrl: startUrl(accountId),
    });
  });

  // Owners only: whoever sets the provider can sign in as any user of the account (an owner too),
  // so an admin, who may not make owners, may read these settings but not change them.
  app.post(path, { preHandler: kit.form('organisation') }, async (request, reply) => {
    const { accountId, role } = signedIn(request).user;
    if (role !== 'owner') {
      throw new ForbiddenError(
        'Only an owner can change single sign-on: its provider can sign in as anyone.',
      );
    }
    const input = settingsInput(request);
    try {
      await sso.save(signedIn(request).principal, accountId, input);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      const page = signInSettingsPage({
        user: userFrame(request, reply),
        flash: { kind: 'error', text: `Not saved: ${err.message}.` },
        sso: await sso.settings(accountId),
        redirectUri: sso.redirectUri,
        startUrl: startUrl(accountId),
        typed: { ...input, clientSecret: '' },
      });
      return send(reply, page, 422);
    }
    setFlash(request, { kind: 'ok', text: 'Sign-in settings saved.' });
    return reply.redirect(`/dashboard${path}`, 303);
  });

  app.post(`${path}/remove`, { preHandler: kit.form('organisation') }, async (request, reply) => {
    const { user, principal } = signedIn(request);
    await flashOutcome(request, 'Not turned off', async () => {
      await sso.remove(principal, user.accountId, user.role === 'owner');
      return 'Single sign-on is off: everyone signs in with their password.';
    });
    return reply.redirect(`/dashboard${path}`, 303);
  });

  // "Sign in with your organisation": the email's domain finds the account.
  app.get('/sso', async (request, reply) => {
    const email = String((request.query as { email?: unknown }).email ?? '').trim();
    if (!email) return send(reply, ssoStartPage({}));
    const accountId = await sso.accountForEmail(email);
    if (!accountId) {
      const error = 'No organisation on this service signs in with single sign-on for that email domain.';
      return send(reply, ssoStartPage({ email, error }), 404);
    }
    return reply.redirect(`/dashboard/sso/${accountId}/start?login_hint=${encodeURIComponent(email)}`, 303);
  });

  app.get('/sso/:accountId/start', async (request, reply) => {
    const { accountId } = request.params as { accountId: string };
    if (!isUuid(accountId))
      return refusalPage(reply, 404, 'This organisation does not sign in with single sign-on.');
    const limit = await deps.rateLimitStore.consume(
      `sso-start:${request.ip}`,
      START_LIMIT.max,
      START_LIMIT.windowMs,
    );
    if (!limit.allowed) {
      reply.header('Retry-After', Math.max(limit.retryAfter, 1));
      return refusalPage(
        reply,
        429,
        'Too many sign-ins started from this address. Wait a few minutes and try again.',
      );
    }
    const hint = (request.query as { login_hint?: unknown }).login_hint;
    try {
      const { url, pending } = await sso.start(
        accountId.toLowerCase(),
        typeof hint === 'string' ? hint : undefined,
      );
      reply.setCookie(PENDING_COOKIE, JSON.stringify(pending), {
        path: PENDING_PATH,
        httpOnly: true,
        secure: 'auto',
        sameSite: 'lax',
        signed: true,
        maxAge: SSO_PENDING_MS / 1000,
      });
      return reply.redirect(url.href, 303);
    } catch (err) {
      if (err instanceof SsoRefusal) return refusalPage(reply, err.status, err.message);
      throw err;
    }
  });

  app.get('/sso/callback', async (request, reply) => {
    const pending = readPending(request);
    if (!pending) {
      return refusalPage(
        reply,
        400,
        'This sign-in was not started in this browser or has expired. Start it again from the sign-in page.',
      );
    }
    const { state } = request.query as { state?: unknown };
    if (state !== pending.state) {
      return refusalPage(
        reply,
        400,
        'Sign-in refused: the answer does not belong to the sign-in this browser started. Start it again.',
      );
    }
    const search = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    try {
      const user = await sso.finish(pending, search, { ip: request.ip, requestId: request.id });
      reply.clearCookie(PENDING_COOKIE, { path: PENDING_PATH });
      // A new session id at sign-in, as with the password (auth.routes.ts).
      await request.session.regenerate();
      request.session.userId = user.id;
      request.session.signedInAt = deps.now().getTime();
      return reply.redirect('/dashboard', 303);
    } catch (err) {
      if (err instanceof SsoRefusal) return refusalPage(reply, err.status, err.message);
      throw err;
    }
  });
}
