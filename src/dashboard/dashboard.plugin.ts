import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import session from '@fastify/session';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AppError, STATUS_BY_CODE } from '../platform/errors.js';
import { MAX_IMPORT_BYTES } from '../modules/imports/imports.service.js';
import { BODY_LIMIT } from '../platform/limits.js';
import { DASHBOARD_CSS } from './assets.js';
import { browserAssetByFile, IMMUTABLE } from '../platform/http/browser-assets.js';
import { authRoutes } from './auth.routes.js';
import { certificatesPages } from './certificates.routes.js';
import { correctionsPages } from './corrections.routes.js';
import { DASHBOARD_HEADERS, errorPage } from './html.js';
import type { DashboardDeps } from './deps.js';
import { guardDownloads } from './downloads.js';
import { keysRoutes } from './keys.routes.js';
import { linksRoutes } from './links.routes.js';
import { teamRoutes } from './team.routes.js';
import { importsPages } from './imports.routes.js';
import { issuePages } from './issue.routes.js';
import { csrfToken } from './params.js';
import { createSessionStore, sessionSecret } from './session-store.js';
import { IDLE_MS, loadSignedIn } from './session.js';
import { settingsRoutes } from './settings.routes.js';
import { signInCodeRoutes } from './sign-in-code.routes.js';
import { forgotPasswordRoutes } from './forgot-password.routes.js';
import { profileRoutes } from './profile.routes.js';
import { ssoRoutes } from './sso.routes.js';
import { organisationRoutes } from './organisation.routes.js';
import { auditRoutes } from './audit.routes.js';
import { studioRoutes } from './studio.routes.js';
import { badgeRoutes } from './badges.routes.js';
import { templatesPages } from './templates.routes.js';

function sendPage(reply: FastifyReply, status: number, message: string) {
  const signedIn = Boolean(reply.request.session?.userId);
  return reply
    .code(status)
    .headers(DASHBOARD_HEADERS)
    .type('text/html; charset=utf-8')
    .send(errorPage(status, message, signedIn));
}

declare module 'fastify' {
  interface FastifyRequest {
    // From preParsing until the handler's preHandlers: the body is being read and parsed.
    readingBody?: boolean;
  }
}

const UNREADABLE = { status: 422, message: 'The form could not be read. Go back and send it again.' };

function errorAnswer(
  error: FastifyError,
  readingBody: boolean,
): { status: number; message: string } | undefined {
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
    return {
      status: 413,
      message: `The upload is too large: a file of at most ${MAX_IMPORT_BYTES / 1024 / 1024} MiB, one file per upload.`,
    };
  }
  if (
    error.validation ||
    error.code?.startsWith('FST_ERR_CTP_') ||
    error.statusCode === 400 ||
    error.statusCode === 415
  ) {
    return UNREADABLE;
  }
  // The multipart reader (busboy) throws plain errors for a body it cannot read ("Multipart:
  // Boundary not found", "Unexpected end of form"): anything thrown while the body is read is the
  // client's doing.
  if (readingBody) return UNREADABLE;
  return undefined;
}

// The dashboard for the people of an account: server-rendered pages under /dashboard, signed in with
// a server-side session. It calls the same services as the API, so quota, counters and states agree.
export async function dashboardPlugin(app: FastifyInstance, deps: DashboardDeps) {
  const secret = await sessionSecret(deps.db);
  await app.register(cookie, { secret });
  await app.register(session, {
    secret,
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
    // The CSV upload takes files of up to 20 MiB (large imports); a field may be as large as the
    // body limit: the studio's design JSON carries its images inline.
    limits: { fileSize: MAX_IMPORT_BYTES, fieldSize: BODY_LIMIT, files: 1, fields: 10, parts: 12 },
  });
  // CSRF tokens are signed double-submit cookies, not session data: the sign-in form stores nothing
  // on the server, so anonymous visitors cannot fill the sessions table.
  await app.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: 'certsvc_csrf',
    cookieOpts: { path: '/dashboard', httpOnly: true, secure: 'auto', sameSite: 'lax', signed: true },
    getToken: csrfToken,
  });

  // The pages are for people, not part of the JSON API: kept out of openapi.json.
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true };
  });
  // Downloads (a PDF, the ZIP exports) count only when they come from this site (decisions 25).
  app.addHook('onRoute', guardDownloads);
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(DASHBOARD_HEADERS);
  });

  app.addHook('preParsing', async (request) => {
    request.readingBody = true;
  });
  app.addHook('preHandler', async (request) => {
    request.readingBody = false;
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const answer = errorAnswer(error, request.readingBody === true);
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

  // The bundled scripts of src/browser/ (the dashboard's and the studio's) and the stylesheet, under
  // their hashed names.
  app.get('/assets/:file', async (request, reply) => {
    const { file } = request.params as { file: string };
    if (file === DASHBOARD_CSS.file) {
      return reply
        .header('Cache-Control', IMMUTABLE)
        .type('text/css; charset=utf-8')
        .send(DASHBOARD_CSS.body);
    }
    const asset = browserAssetByFile(file, ['dashboard.js', 'studio.js']);
    if (!asset) return sendPage(reply, 404, 'There is nothing here: the page does not exist.');
    return reply.header('Cache-Control', IMMUTABLE).type(asset.type).send(asset.body);
  });

  authRoutes(app, deps);
  signInCodeRoutes(app, deps);
  forgotPasswordRoutes(app, deps);
  profileRoutes(app, deps);
  keysRoutes(app, deps);
  studioRoutes(app, deps);
  badgeRoutes(app, deps);
  templatesPages(app, deps);
  certificatesPages(app, deps);
  correctionsPages(app, deps);
  issuePages(app, deps);
  importsPages(app, deps);
  settingsRoutes(app, deps);
  teamRoutes(app, deps);
  linksRoutes(app, deps);
  ssoRoutes(app, deps);
  organisationRoutes(app, deps);
  auditRoutes(app, deps);
}
