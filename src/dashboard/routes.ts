import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors.js';
import type { DashboardDeps } from './deps.js';
import type { Flash } from './html.js';
import { html as send, requireSignIn, setFlash, takeFlash, userFrame } from './session.js';

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

export function routeKit(app: FastifyInstance, deps: DashboardDeps) {
  const signIn = requireSignIn(deps);
  return {
    signIn,
    /** A form's: signed in, and its CSRF token. */
    csrf: [signIn, app.csrfProtection],
    /** A signed-in page: `render` builds it (a 200). */
    page(path: string, render: (request: FastifyRequest, reply: FastifyReply) => Promise<string>) {
      app.get(path, { preHandler: signIn }, async (request, reply) =>
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
