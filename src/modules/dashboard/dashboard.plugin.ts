import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import session from '@fastify/session';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../platform/db/db.js';
import { AppError, STATUS_BY_CODE } from '../../platform/errors.js';
import type { RateLimitStore } from '../../platform/rate-limit/rate-limit.store.js';
import type { Services } from '../../services.js';
import { DASHBOARD_CSS, DASHBOARD_JS } from './assets.js';
import { authRoutes } from './auth.routes.js';
import { certificatesPages } from './certificates.routes.js';
import { DASHBOARD_HEADERS, errorPage } from './html.js';
import { keysRoutes } from './keys.routes.js';
import { createSessionStore, sessionSecret } from './session-store.js';
import { IDLE_MS, loadSignedIn } from './session.js';
import { templatesPages } from './templates.routes.js';

export interface DashboardDeps {
  db: Db;
  services: Services;
  rateLimitStore: RateLimitStore;
  now: () => Date;
}

export const UPLOAD_LIMIT = 2 * 1024 * 1024;

// A form's CSRF token: a urlencoded field, a multipart field ({ value }), or a header.
function csrfToken(request: FastifyRequest): string {
  const field = (request.body as { _csrf?: string | { value?: string } } | undefined)?._csrf;
  const value = typeof field === 'object' ? field?.value : field;
  return value ?? String(request.headers['x-csrf-token'] ?? '');
}

function sendPage(reply: FastifyReply, status: number, message: string) {
  const signedIn = Boolean(reply.request.session?.userId);
  return reply
    .code(status)
    .headers(DASHBOARD_HEADERS)
    .type('text/html; charset=utf-8')
    .send(errorPage(status, message, signedIn));
}

function errorAnswer(error: FastifyError): { status: number; message: string } | undefined {
  const domain: unknown = error;
  if (domain instanceof AppError) {
    if (domain.code === 'not_found')
      return {
        status: 404,
        message: 'There is nothing here: the page does not exist or belongs to another account.',
      };
    return { status: STATUS_BY_CODE[domain.code] ?? 500, message: domain.message };
  }
  if (error.code?.startsWith('FST_CSRF_')) {
    return {
      status: 403,
      message:
        'This form has expired or did not come from this dashboard. Go back, reload the page and send it again.',
    };
  }
  if (
    error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ||
    error.code === 'FST_REQ_FILE_TOO_LARGE' ||
    error.code === 'FST_FILES_LIMIT' ||
    error.code === 'FST_PARTS_LIMIT'
  ) {
    return { status: 413, message: 'The upload is too large: a file of at most 2 MiB, one file per upload.' };
  }
  if (
    error.validation ||
    error.code?.startsWith('FST_ERR_CTP_') ||
    error.statusCode === 400 ||
    error.statusCode === 415
  ) {
    return { status: 422, message: 'The form could not be read. Go back and send it again.' };
  }
  return undefined;
}

// The dashboard for the people of an account: server-rendered pages under /dashboard, signed in with
// a server-side session. It calls the same services as the API, so quota, counters and states agree.
export async function dashboardPlugin(app: FastifyInstance, deps: DashboardDeps) {
  await app.register(cookie);
  await app.register(session, {
    secret: await sessionSecret(deps.db),
    cookieName: 'certsvc_session',
    store: createSessionStore(deps.db, deps.now, IDLE_MS),
    saveUninitialized: false,
    rolling: true,
    // Secure whenever the request came over HTTPS (behind a proxy: TRUST_PROXY lets Fastify believe
    // its X-Forwarded-Proto); HttpOnly and SameSite=Lax always.
    cookie: { path: '/dashboard', httpOnly: true, secure: 'auto', sameSite: 'lax', maxAge: IDLE_MS },
  });
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await app.register(multipart, {
    attachFieldsToBody: true,
    limits: { fileSize: UPLOAD_LIMIT, files: 1, fields: 10, parts: 12 },
  });
  await app.register(csrf, { sessionPlugin: '@fastify/session', getToken: csrfToken });

  // The pages are for people, not part of the JSON API: kept out of openapi.json.
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true };
  });
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(DASHBOARD_HEADERS);
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const answer = errorAnswer(error);
    if (answer) return sendPage(reply, answer.status, answer.message);
    request.log.error({ err: error }, 'unhandled dashboard error');
    return sendPage(reply, 500, 'Something went wrong on our side. Try again in a moment.');
  });
  app.setNotFoundHandler(async (request, reply) => {
    // Signed out, every page (existing or not) leads to the sign-in page.
    if (!(await loadSignedIn(request, deps))) return reply.redirect('/dashboard', 303);
    return sendPage(
      reply,
      404,
      'There is nothing here: the page does not exist or belongs to another account.',
    );
  });

  for (const [file, asset, type] of [
    ['dashboard.css', DASHBOARD_CSS, 'text/css; charset=utf-8'],
    ['dashboard.js', DASHBOARD_JS, 'text/javascript; charset=utf-8'],
  ] as const) {
    app.get(`/assets/${file}`, async (_request, reply) =>
      reply.header('Cache-Control', 'public, max-age=31536000, immutable').type(type).send(asset.body),
    );
  }

  authRoutes(app, deps);
  keysRoutes(app, deps);
  templatesPages(app, deps);
  certificatesPages(app, deps);
}
