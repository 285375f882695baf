import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ForbiddenError } from '../platform/errors.js';
import { can, ROLE_LABELS, type Permission } from '../modules/shared/roles.js';
import type { DashboardDeps } from './deps.js';
import type { Flash } from './html.js';
import { html as send, requireSignIn, setFlash, signedIn, takeFlash, userFrame } from './session.js';

// What the dashboard's route files are built from: the preHandlers of a signed-in page and of its
// forms, a page answered with its frame, and a form whose outcome is said on the next page.

export interface Frame {
  user: ReturnType<typeof userFrame>;
  flash: Flash | undefined;
}

// The frame of a page: the signed-in user (with a CSRF token) and the message left for it, taken.
export function pageFrame(request: FastifyRequest, reply: FastifyReply): Frame {
  return { user: userFrame(request, reply), flash: takeFlash(request) };
}

// The one check of what a signed-in user's role allows (modules/shared/roles.ts): every page and
// form of the dashboard names its permission through the kit below. Reads nothing beyond the
// session's user. Outside the role: a 403 page, and the handler never runs.
export function requirePermission(permission: Permission) {
  return async (request: FastifyRequest) => {
    const { role } = signedIn(request).user;
    if (!can(role, permission)) {
      throw new ForbiddenError(
        `Your role (${ROLE_LABELS[role]}) does not allow this. Ask an owner or an admin of your organisation.`,
      );
    }
  };
}

export function routeKit(app: FastifyInstance, deps: DashboardDeps) {
  const signIn = requireSignIn(deps);
  return {
    /** Signed in, whatever the role (sign out, one's own profile). */
    signIn,
    /** A page or download's preHandlers: signed in, and the role allows `permission`. */
    allow: (permission: Permission) => [signIn, requirePermission(permission)],
    /** A form's: signed in, the role allows `permission`, and its CSRF token. */
    form: (permission: Permission) => [signIn, requirePermission(permission), app.csrfProtection],
    /** A signed-in page the role allows: `render` builds it (a 200). */
    page(
      path: string,
      permission: Permission,
      render: (request: FastifyRequest, reply: FastifyReply) => Promise<string>,
    ) {
      app.get(path, { preHandler: [signIn, requirePermission(permission)] }, async (request, reply) =>
        send(reply, await render(request, reply)),
      );
    },
  };
}

// Runs what a form asks: its text is the next page's message. A refusal (an AppError other than
// not found) is said there instead, as `${refused}: ${its message}`; anything else is thrown.
export async function flashOutcome(
  request: FastifyRequest,
  refused: string,
  action: () => Promise<string>,
  describe: (err: AppError) => string = (err) => err.message,
): Promise<void> {
  try {
    setFlash(request, { kind: 'ok', text: await action() });
  } catch (err) {
    if (!(err instanceof AppError) || err.code === 'not_found') throw err;
    setFlash(request, { kind: 'error', text: `${refused}: ${describe(err)}` });
  }
}
