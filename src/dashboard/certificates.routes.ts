import type { FastifyInstance } from 'fastify';
import { NotFoundError, ValidationError } from '../platform/errors.js';
import { compileBodyValidator } from '../platform/validation.js';
import { certificateFileName, codeOfText } from '../modules/shared/certificate-links.js';
import type { CertificateStatus } from '../modules/certificates/certificates.repository.js';
import { SendBody } from '../modules/emails/emails.schemas.js';
import type { DashboardDeps } from './deps.js';
import { sendZip } from './downloads.js';
import { form, pageNumber, pathId } from './params.js';
import { certificatePage } from './pages/certificate.page.js';
import { certificatesPage, PER_PAGE } from './pages/certificates.page.js';
import { flashOutcome, pageFrame, routeKit } from './routes.js';
import { signedIn } from './session.js';
import type { DataValue } from '../pdf/pdf-renderer.js';

// The certificates of the account: the list and its search, one certificate's page and files, and
// what its page's forms do (send, revoke, correct and reissue). Issuing is issue.routes.ts.

const STATUSES: CertificateStatus[] = ['Issued', 'Revoked', 'Draft'];
// The API's own body schema: the dashboard's form sends what a client would.
const validSendBody = compileBodyValidator(SendBody);

// The list's search, as the list page and the ZIP download read it from the query. A search with an
// @ is an email address. Anything else that reads as a code (any case, with or without dashes and
// spaces) and is the code of one of the account's certificates finds that certificate, through the
// unique index of codes; otherwise it looks in the recipients' names.
async function searchOf(deps: DashboardDeps, accountId: string, query: Record<string, string | undefined>) {
  const status = STATUSES.find((s) => s === query.status);
  const search = (query.q ?? '').trim().slice(0, 200);
  const code = search.includes('@') ? undefined : codeOfText(search);
  const found = code ? await deps.services.certificates.searchIds(accountId, { uniqueCode: code }) : [];
  const filter: { status?: CertificateStatus; recipientEmail?: string; q?: string; uniqueCode?: string } = {
    status,
    ...(search.includes('@')
      ? { recipientEmail: search }
      : found.length > 0
        ? { uniqueCode: code }
        : search
          ? { q: search }
          : {}),
  };
  return { status, search, filter };
}

export function certificatesPages(app: FastifyInstance, deps: DashboardDeps) {
  listRoutes(app, deps);
  certificateRoutes(app, deps);
  certificateForms(app, deps);
}

function listRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { certificates } = deps.services;
  const kit = routeKit(app, deps);

  kit.page('/certificates', 'read', async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const query = request.query as Record<string, string | undefined>;
    const { status, search, filter } = await searchOf(deps, accountId, query);
    const { uniqueCode, ...rest } = filter;
    const input = { ...rest, page: pageNumber(query.page), perPage: PER_PAGE };
    const list = await certificates.list(accountId, input, { uniqueCode });
    return certificatesPage({ ...pageFrame(request, reply), list, status, search });
  });

  // The PDFs of the current search (the newest 5,000: ZIP_MAX), as one ZIP streamed while it is read.
  // Like every download that counts, refused when it comes from another site (downloads.ts).
  app.get('/certificates/pdfs.zip', { preHandler: kit.allow('issue') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const { filter } = await searchOf(deps, accountId, request.query as Record<string, string | undefined>);
    const ids = await certificates.searchIds(accountId, filter);
    const fileName = `certificates-${deps.now().toISOString().slice(0, 10)}.zip`;
    const entries = certificates.pdfEntries(signedIn(request).principal, accountId, ids, 'search');
    return sendZip(reply, fileName, entries);
  });
}

// One certificate: its page, its signed credential and its frozen PDF.
function certificateRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { certificates, emails, proof, signingKeys, templates, wallet } = deps.services;
  const kit = routeKit(app, deps);

  kit.page('/certificates/:id', 'read', async (request, reply) => {
    const s = signedIn(request);
    const certificate = await certificates.get(s.user.accountId, pathId(request));
    const [history, template, credential, pdfSigner, templateVersion, claims] = await Promise.all([
      emails.history(s.user.accountId, certificate.id, { page: 1, perPage: 20 }),
      templates.get(s.user.accountId, certificate.templateId).catch(() => undefined),
      proof.credential(s.user.accountId, certificate.id),
      signingKeys.pdfSignerOf(s.user.accountId, certificate.id),
      certificates.templateVersion(s.user.accountId, certificate.id),
      wallet.claims(s.user.accountId, certificate.id),
    ]);
    return certificatePage({
      ...pageFrame(request, reply),
      certificate,
      templateName: template?.name,
      templateVersion,
      history: history.data,
      historyTotal: history.pagination.total,
      emailDelivery: s.principal.emailDelivery,
      signed: credential !== undefined,
      pdfSigner,
      templateFields: template?.fields,
      claims,
    });
  });

  // The signed credential, the same frozen bytes as the API serves.
  app.get('/certificates/:id/credential', { preHandler: kit.allow('read') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const certificate = await certificates.get(accountId, pathId(request));
    const body = await proof.credential(accountId, certificate.id);
    if (!body) throw new NotFoundError('Credential');
    return reply
      .header('Cache-Control', 'private, no-cache')
      .header('Content-Disposition', `attachment; filename="credential-${certificate.uniqueCode}.json"`)
      .type('application/vc')
      .send(body);
  });

  // The frozen PDF, as the API serves it (and counted as a download the same way; refused when the
  // request comes from another site: downloads.ts).
  app.get('/certificates/:id/pdf', { preHandler: kit.allow('read') }, async (request, reply) => {
    const pdf = await certificates.pdf(
      signedIn(request).user.accountId,
      pathId(request),
      request.method === 'GET',
    );
    const disposition = (request.query as { download?: string }).download === '1' ? 'attachment' : 'inline';
    return reply
      .header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'self'")
      .header('Cache-Control', 'private, no-cache')
      .header('Content-Disposition', `${disposition}; filename="${certificateFileName(pdf.uniqueCode)}"`)
      .type('application/pdf')
      .send(pdf.pdf);
  });
}

// The forms of a certificate's page: each says what it did, or why not, on the page it returns to.
function certificateForms(app: FastifyInstance, deps: DashboardDeps) {
  const { certificates, emails, issue, templates } = deps.services;
  const kit = routeKit(app, deps);
  const back = (id: string) => `/dashboard/certificates/${id}`;

  app.post('/certificates/:id/send', { preHandler: kit.form('issue') }, async (request, reply) => {
    const s = signedIn(request);
    const id = pathId(request);
    const override = (form(request).recipientEmail ?? '').trim();
    await flashOutcome(request, 'Not sent', async () => {
      await emails.assertSendable(s.principal, id);
      // The typed address is not repeated in the message: it would be stored in the session.
      if (override && !validSendBody({ recipientEmail: override })) {
        throw new ValidationError(
          [{ path: ['recipientEmail'], message: 'is not an email address' }],
          'the address typed is not an email address.',
        );
      }
      const queued = await emails.send(s.principal, id, override || undefined);
      return `The certificate is queued for delivery to ${queued.recipientEmail}.`;
    });
    return reply.redirect(back(id), 303);
  });

  app.post('/certificates/:id/revoke', { preHandler: kit.form('issue') }, async (request, reply) => {
    const s = signedIn(request);
    const id = pathId(request);
    const fields = form(request);
    // An empty box is no reason; anything typed is held to the API's rule by the service.
    const reason = fields.reason?.trim() ? fields.reason : undefined;
    await flashOutcome(request, 'Not revoked', async () => {
      if (fields.confirm !== 'yes') {
        throw new ValidationError(
          [{ path: ['confirm'], message: 'required' }],
          'Tick the box to confirm that revocation is permanent.',
        );
      }
      await certificates.revoke(s.principal, s.user.accountId, id, reason);
      return 'The certificate is revoked. Its verification page now says so.';
    });
    return reply.redirect(back(id), 303);
  });

  // Correct and reissue: the same service call as POST /api/v1/certificates/:id/reissue. The data
  // keys the design does not show are kept; a field left empty is dropped.
  app.post('/certificates/:id/reissue', { preHandler: kit.form('issue') }, async (request, reply) => {
    const s = signedIn(request);
    const id = pathId(request);
    const fields = form(request);
    const old = await certificates.get(s.user.accountId, id);
    const template = await templates.get(s.user.accountId, old.templateId).catch(() => undefined);
    const oldData = old.data as Record<string, DataValue>;
    const data = { ...oldData };
    for (const f of template?.fields ?? []) {
      if (f.type === 'list') continue; // a list is kept as it is: the form does not edit it
      const value = (fields[`data.${f.key}`] ?? '').trim();
      if (value === '') delete data[f.key];
      else if (String(oldData[f.key] ?? '') !== value) data[f.key] = value;
    }
    let shown = id;
    await flashOutcome(
      request,
      'Not reissued',
      async () => {
        const fresh = await issue.reissue(s.principal, id, {
          name: fields.name ?? '',
          email: (fields.email ?? '').trim(),
          data,
        });
        shown = fresh.id;
        return `Reissued: this is the corrected certificate. The old one (${old.uniqueCode}) is revoked and links here.`;
      },
      (err) =>
        err instanceof ValidationError
          ? err.issues.map((i) => `${i.path.slice(1).join('.')} ${i.message}`).join('; ')
          : err.message,
    );
    return reply.redirect(back(shown), 303);
  });
}
