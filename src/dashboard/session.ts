import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError } from '../platform/errors.js';
import type { Principal } from '../platform/principal.js';
import type { Role } from '../modules/shared/roles.js';
import type { Services } from '../services.js';
import type { Flash } from './html.js';

export const SUSPENDED_MESSAGE =
  "Your organisation's account is suspended by the operators of this service, so nobody can sign in " +
  'to it for now. Ask them to resume it.';

// A session ends after IDLE_MS without a request, and at the latest ABSOLUTE_MS after sign-in.
export const IDLE_MS = 2 * 60 * 60 * 1000;
export const ABSOLUTE_MS = 12 * 60 * 60 * 1000;

declare module 'fastify' {
  interface Session {
    userId?: string;
    signedInAt?: number;
    // Between a right password and the two-factor code: signed in to nothing yet.
    codeUserId?: string;
    codeSince?: number;
    // Shown once on the next page, then deleted.
    flash?: Flash;
  }
  interface FastifyRequest {
    signedIn?: SignedIn;
  }
}

export interface SignedIn {
  user: { id: string; email: string; accountId: string; role: Role };
  accountName: string;
  principal: Principal;
  /** The account requires two-factor sign-in and this user has not set it up yet. */
  mustSetUpTwoFactor: boolean;
}

// The pages and forms a user who must set up two-factor sign-in may reach (their profile).
export const TWO_FACTOR_SET_UP_PATHS = new Set([
  '/dashboard/settings/profile',
  '/dashboard/settings/profile/two-factor/start',
  '/dashboard/settings/profile/two-factor/confirm',
  '/dashboard/settings/profile/password',
  '/dashboard/sign-out',
]);
export const PROFILE_PATH = '/dashboard/settings/profile';

// The signed-in user of the request, read once per request; undefined when signed out, when the
// session has outlived ABSOLUTE_MS, or when the user no longer exists.
export async function loadSignedIn(
  request: FastifyRequest,
  deps: { services: Services; now: () => Date },
): Promise<SignedIn | undefined> {
  if (request.signedIn) return request.signedIn;
  const s = request.session;
  if (!s?.userId || !s.signedInAt) return undefined;
  if (deps.now().getTime() - s.signedInAt > ABSOLUTE_MS) {
    await s.destroy();
    return undefined;
  }
  const user = await deps.services.users.getForSession(s.userId);
  if (!user) {
    await s.destroy();
    return undefined;
  }
  const account = await deps.services.accounts.get(user.accountId);
  // An account suspended by an operator: its open sessions end at their next request.
  if (account.suspendedAt) {
    await s.destroy();
    throw new ForbiddenError(SUSPENDED_MESSAGE);
  }
  request.signedIn = {
    user: { id: user.id, email: user.email, accountId: user.accountId, role: user.role },
    accountName: account.name,
    mustSetUpTwoFactor: user.accountRequiresTwoFactor && user.twoFactorEnabledAt === null,
    principal: await deps.services.accounts.actingPrincipal(user.accountId, `user:${user.id}`, {
      actor: { type: 'user', id: user.id, label: user.email },
      origin: { ip: request.ip, requestId: request.id },
    }),
  };
  return request.signedIn;
}

// preHandler of every page but sign-in: a signed-out request goes to the sign-in page; a user who
// must set up two-factor sign-in (the account requires it) goes to their profile first.
export function requireSignIn(deps: { services: Services; now: () => Date }) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await loadSignedIn(request, deps);
    if (!user) return reply.redirect('/dashboard', 303);
    if (user.mustSetUpTwoFactor && !TWO_FACTOR_SET_UP_PATHS.has(request.routeOptions.url ?? '')) {
      return sendToTwoFactorSetUp(request, reply);
    }
  };
}

export function sendToTwoFactorSetUp(request: FastifyRequest, reply: FastifyReply) {
  setFlash(request, {
    kind: 'warn',
    text: 'Your organisation requires two-factor sign-in: set it up before anything else.',
  });
  return reply.redirect(PROFILE_PATH, 303);
}

export function signedIn(request: FastifyRequest): SignedIn {
  return request.signedIn!;
}

// The frame of a page for the signed-in user, with a CSRF token for its forms.
export function userFrame(request: FastifyRequest, reply: FastifyReply) {
  const s = signedIn(request);
  return { email: s.user.email, accountName: s.accountName, role: s.user.role, csrf: reply.generateCsrf() };
}

export function takeFlash(request: FastifyRequest): Flash | undefined {
  const flash = request.session.flash;
  if (flash) delete request.session.flash;
  return flash;
}

export function setFlash(request: FastifyRequest, flash: Flash) {
  request.session.flash = flash;
}

export function html(reply: FastifyReply, body: string, status = 200) {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}
