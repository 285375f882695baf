import { randomBytes } from 'node:crypto';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import session from '@fastify/session';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AppError, STATUS_BY_CODE } from '../platform/errors.js';
import { DASHBOARD_HEADERS } from '../dashboard/html.js';
import { csrfToken } from '../dashboard/params.js';
import { sharedSecret } from '../dashboard/sessions.repository.js';
import { adminAccountsRoutes } from './accounts.routes.js';
import { adminAuthRoutes } from './auth.routes.js';
import type { AdminDeps } from './deps.js';
import { adminErrorPage } from './pages/frame.js';
import { createOperatorSessionStore } from './session-store.js';
import { IDLE_MS, loadOperator } from './session.js';

function sendPage(reply: FastifyReply, status: number, message: string) {
  return reply
    .code(status)
    .headers(DASHBOARD_HEADERS)
    .type('text/html; charset=utf-8')
    .send(adminErrorPage(status, message));
}

function errorAnswer(error: FastifyError): { status: number; message: string } | undefined {
  const domain: unknown = error;
  if (domain instanceof AppError) {
    if (domain.code === 'not_found') return { status: 404, message: 'There is nothing here.' };
    return { status: STATUS_BY_CODE[domain.code] ?? 500, message: domain.message };
  }
  if (error.code?.startsWith('FST_CSRF_')) {
    return {
      status: 403,
      message: 'This form has expired or did not come from this console. Reload the page and send it again.',
    };
  }
  if (error.validation || error.code?.startsWith('FST_ERR_CTP_') || error.statusCode === 400) {
    return { status: 422, message: 'The form could not be read. Go back and send it again.' };
  }
  return undefined;
}

// The instance operators' console at /admin (decisions 21): its own sign-in, session cookie
// (certsvc_admin, Path=/admin, sessions in operator_sessions under a key of their own) and CSRF
// cookie, two-factor required; the dashboard's page frame, styles and headers. No account user's
// session opens it, and an operator's session opens nothing of the dashboard.
export async function adminPlugin(app: FastifyInstance, deps: AdminDeps) {
  const secret = await sharedSecret(deps.db, 'admin-session', randomBytes(48).toString('base64url'));
  await app.register(cookie, { secret });
  await app.register(session, {
    secret,
    cookieName: 'certsvc_admin',
    store: createOperatorSessionStore(deps.db, deps.now, IDLE_MS),
    saveUninitialized: false,
    rolling: true,
    cookie: { path: '/admin', httpOnly: true, secure: 'auto', sameSite: 'strict', maxAge: IDLE_MS },
  });
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'certsvc_admin_csrf',
    cookieOpts: { path: '/admin', httpOnly: true, secure: 'auto', sameSite: 'strict', signed: true },
    getToken: csrfToken,
  });

  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true };
  });
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(DASHBOARD_HEADERS);
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const answer = errorAnswer(error);
    if (answer) return sendPage(reply, answer.status, answer.message);
    request.log.error({ err: error }, 'unhandled console error');
    return sendPage(reply, 500, 'Something went wrong on our side. Try again in a moment.');
  });
  app.setNotFoundHandler(async (request, reply) => {
    const signed = await loadOperator(request, deps);
    if (!signed) return reply.redirect('/admin', 303);
    if (!signed.verified) return reply.redirect('/admin/two-factor', 303);
    return sendPage(reply, 404, 'There is nothing here.');
  });

  const { signInPage } = adminAuthRoutes(app, deps);
  adminAccountsRoutes(app, deps, signInPage);
}
