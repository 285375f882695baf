import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Deps } from './deps.js';
import { installAccessControl } from './platform/http/access.js';
import { installCors } from './platform/http/cors.js';
import { installVerifyQueue } from './platform/http/verify-queue.js';
import { installErrorHandling } from './platform/http/error-handler.js';
import { validatorCompiler } from './platform/http/validation.js';
import { installBodyParsers } from './platform/http/body.js';
import { BODY_LIMIT } from './platform/limits.js';
import { fastifyEdgeOptions, installEdge } from './platform/http/edge.js';
import { uuidv7 } from './platform/ids.js';
import { ServiceUnavailableError } from './platform/errors.js';
import { docsRoutes } from './modules/openapi/docs.routes.js';
import { faviconRoutes } from './platform/http/favicon.js';
import { openapiRoutes } from './modules/openapi/openapi.routes.js';
import { templatesRoutes } from './modules/templates/templates.routes.js';
import { Template } from './modules/templates/templates.schemas.js';
import { usageRoutes } from './modules/usage/usage.routes.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { AuditEventSchema } from './modules/audit/audit.schemas.js';
import { certificatesRoutes } from './modules/certificates/certificates.routes.js';
import { BatchResult, Certificate } from './modules/certificates/certificates.schemas.js';
import { verifyRoutes } from './modules/verify/verify.routes.js';
import { renderErrorPage, VERIFY_PAGE_HEADERS } from './modules/verify/verify.page.js';
import { emailsRoutes } from './modules/certificates/certificate-emails.routes.js';
import { EmailSend } from './modules/emails/emails.schemas.js';
import { healthRoutes, installRequestMetrics } from './modules/health/health.routes.js';
import { dashboardPlugin } from './dashboard/dashboard.plugin.js';
import { adminPlugin } from './admin/admin.plugin.js';
import { credentialsRoutes } from './modules/proof/credentials.routes.js';
import { sdJwtRoutes } from './modules/proof/sd-jwt.routes.js';
import { badgeRoutes } from './modules/wallet/badges.routes.js';
import { claimCorrectionRoutes, myRoutes } from './modules/recipients/my.routes.js';
import { oid4vciRoutes } from './modules/wallet/oid4vci-issuer.routes.js';
import { walletRoutes } from './modules/wallet/wallet.routes.js';

const OPTIONAL_BODY_OPERATIONS = ['sendCertificate', 'revokeCertificate'];
type Operation = { operationId?: string; requestBody?: { required?: boolean } };

// A hop count trusts that many proxies nearest to the service; addresses and CIDRs go to Fastify's
// proxy-addr as they are.
function trustProxyOption(trust: false | number | string[]) {
  return typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** At the shutdown signal, before close(): /readyz answers 503 from now on, so that a load
     * balancer stops routing here while the listener still accepts and serves as usual. */
    stopReadiness(): void;
  }
}

// At the shutdown signal, stopReadiness() turns /readyz to 503 (src/cli/serve.ts). Once close()
// begins, a request that arrives on a kept-alive connection gets a 503 in the envelope (liveness
// excepted), and every answer tells the client to go: Connection: close, so the socket closes after
// the response instead of waiting idle. Fastify drops the idle sockets itself.
function installDraining(app: FastifyInstance) {
  let draining = false;
  let unready = false;
  app.decorate('stopReadiness', () => {
    unready = true;
  });
  app.addHook('preClose', async () => {
    draining = true;
  });
  app.addHook('onRequest', (request, _reply, done) => {
    const refused =
      (draining && request.url !== '/healthz') || (unready && request.url.split('?')[0] === '/readyz');
    done(refused ? new ServiceUnavailableError('shutdown') : undefined);
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (draining) reply.header('Connection', 'close');
    done(null, payload);
  });
}

// Builds the HTTP application from the composition root's dependencies. Nothing here reads the
// environment or opens connections: the server, the tests and the benchmarks all come through here.
export async function createApp(deps: Deps): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: deps.logger,
    trustProxy: trustProxyOption(deps.config.trustProxy),
    bodyLimit: BODY_LIMIT,
    genReqId: () => uuidv7(),
    // Requests during the drain get the envelope from installDraining instead of Fastify's own body.
    return503OnClosing: false,
    ...fastifyEdgeOptions(deps.config.httpTimeouts, () => app),
  }) as unknown as FastifyInstance;
  installEdge(app, {
    html: {
      prefix: '/verify/',
      render: renderErrorPage,
      headers: VERIFY_PAGE_HEADERS,
    },
  });

  app.setValidatorCompiler(validatorCompiler);
  app.addSchema(Template);
  app.addSchema(Certificate);
  app.addSchema(BatchResult);
  app.addSchema(EmailSend);
  app.addSchema(AuditEventSchema);

  installBodyParsers(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'certsvc API',
        version: '1.1.0',
        description:
          'Issues verifiable certificates with frozen PDFs. Errors use the envelope `{ error: { code, message, details? } }`; ' +
          'clients switch on `code`. Every /api/v1 response carries the X-RateLimit-* headers of the bucket it used ' +
          '(60 requests per rolling 60 s per key; per IP for verification and anonymous calls).',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'certsvc API reference', url: `${deps.config.publicBaseUrl}/docs` },
      },
      servers: [{ url: deps.config.publicBaseUrl }],
      tags: [
        { name: 'Templates', description: 'Active certificate templates of the account' },
        { name: 'Certificates', description: 'Issue, read, download, email and revoke certificates' },
        { name: 'Usage', description: 'Plan and period quota' },
        { name: 'Audit', description: "The account's audit trail (scope audit:read)" },
        { name: 'Verification', description: 'Public verification by unique code' },
        { name: 'Meta', description: 'This description' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'API key: svc_live_ followed by 32 alphanumeric characters',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
    // Fastify's swagger marks every declared body as required; these two are optional (docs/api.md, Certificates and Email).
    transformObject: (input) => {
      const doc = (
        input as unknown as { openapiObject: { paths?: Record<string, Record<string, Operation>> } }
      ).openapiObject;
      for (const methods of Object.values(doc.paths ?? {})) {
        for (const op of Object.values(methods)) {
          if (op.requestBody && OPTIONAL_BODY_OPERATIONS.includes(op.operationId ?? ''))
            op.requestBody.required = false;
        }
      }
      return doc as never;
    },
  });

  installErrorHandling(app);
  installRequestMetrics(app, deps.metrics);
  installDraining(app);
  installCors(app, deps.config.corsPartnerDomains);
  installAccessControl(app, {
    keys: deps.services.keys,
    store: deps.rateLimitStore,
    limits: deps.config.rateLimit,
    onRefused: (limiter) => deps.metrics.rateLimitRefusals.inc({ limiter }),
  });
  installVerifyQueue(app, { max: deps.config.verifyQueueMax });

  templatesRoutes(app, deps.services.templates);
  usageRoutes(app, deps.services.usage);
  certificatesRoutes(app, deps.services, deps.db);
  emailsRoutes(app, deps.services.emails, deps.db);
  auditRoutes(app, deps.services.audit);
  verifyRoutes(app, deps.services.verify);
  credentialsRoutes(app, deps.services.proof);
  sdJwtRoutes(app, deps.services.proof);
  badgeRoutes(app, { db: deps.db, now: deps.now });
  await app.register(oid4vciRoutes, { oid4vci: deps.services.oid4vci });
  walletRoutes(app, {
    wallet: deps.services.wallet,
    publicBaseUrl: deps.config.publicBaseUrl,
    rateLimitStore: deps.rateLimitStore,
  });
  openapiRoutes(app);
  docsRoutes(app);
  faviconRoutes(app);
  healthRoutes(app, {
    db: deps.db,
    store: deps.rateLimitStore,
    redisConfigured: deps.config.redisUrl !== undefined,
    metrics: deps.metrics,
    metricsToken: deps.config.metricsToken,
  });
  await app.register(dashboardPlugin, {
    prefix: '/dashboard',
    db: deps.db,
    services: deps.services,
    rateLimitStore: deps.rateLimitStore,
    now: deps.now,
    publicBaseUrl: deps.config.publicBaseUrl,
    studioAutosaveS: deps.config.studioAutosaveS,
  });
  // Issue 31: the recipient's pages, "My certificates" and the claim page's correction form.
  const recipientDeps = {
    db: deps.db,
    now: deps.now,
    rateLimitStore: deps.rateLimitStore,
    services: deps.services,
  };
  await app.register(myRoutes, { prefix: '/my', ...recipientDeps });
  await app.register(claimCorrectionRoutes, recipientDeps);
  await app.register(adminPlugin, {
    prefix: '/admin',
    db: deps.db,
    services: deps.services,
    rateLimitStore: deps.rateLimitStore,
    plans: deps.config.plans.map((p) => p.name),
    now: deps.now,
  });

  await app.ready();
  return app;
}
