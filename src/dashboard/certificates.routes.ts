import type { MultipartFile } from '@fastify/multipart';
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, NotFoundError, ValidationError } from '../platform/errors.js';
import { uuidv7 } from '../platform/ids.js';
import { compileBodyValidator } from '../platform/validation.js';
import { zipStream } from '../platform/zip.js';
import { certificateFileName } from '../modules/shared/certificate-links.js';
import type { CertificateStatus } from '../modules/certificates/certificates.repository.js';
import { SendBody } from '../modules/emails/emails.schemas.js';
import { MAX_ROWS, resultsCsv, rowResults } from './csv-batch.js';
import { readRecipientsCsv } from '../modules/imports/recipients-csv.js';
import type { DashboardDeps } from './deps.js';
import { form, isUuid, pageNumber, pathId } from './params.js';
import { claimUploadEmail, findUpload, insertUpload } from './uploads.repository.js';
import { certificatePage, certificatesPage, PER_PAGE } from './pages/certificates.page.js';
import { issueOnePage, resultsPage, uploadPage } from './pages/issue.page.js';
import { html as send, requireSignIn, setFlash, signedIn, takeFlash, userFrame } from './session.js';

// An upload's results stay viewable for a week, then are purged with expired sessions.
const UPLOAD_KEPT_MS = 7 * 24 * 60 * 60 * 1000;
const STATUSES: CertificateStatus[] = ['Issued', 'Revoked', 'Draft'];
// The API's own body schema: the dashboard's form sends what a client would.
const validSendBody = compileBodyValidator(SendBody);

// The list's search, as the list page and the ZIP download read it from the query.
function searchOf(query: Record<string, string | undefined>) {
  const status = STATUSES.find((s) => s === query.status);
  const search = (query.q ?? '').trim().slice(0, 200);
  // A search with an @ is an email address; anything else looks in the recipients' names.
  const filter = {
    status,
    ...(search.includes('@') ? { recipientEmail: search } : search ? { q: search } : {}),
  };
  return { status, search, filter };
}

export function certificatesPages(app: FastifyInstance, deps: DashboardDeps) {
  const { certificates, emails, issue, proof, signingKeys, templates } = deps.services;
  const signIn = requireSignIn(deps);
  const sendZip = (reply: FastifyReply, fileName: string, accountId: string, ids: string[]) =>
    reply
      .header('Content-Disposition', `attachment; filename="${fileName}"`)
      .header('Cache-Control', 'private, no-store')
      .type('application/zip')
      .send(Readable.from(zipStream(certificates.pdfEntries(accountId, ids))));
  const templateList = (accountId: string) =>
    templates.list(accountId, { page: 1, perPage: 100 }).then((p) => p.data);
  const templateOf = async (accountId: string, id: string | undefined) =>
    isUuid(id) ? templates.get(accountId, id.toLowerCase()).catch(() => undefined) : undefined;

  app.get('/certificates', { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const query = request.query as Record<string, string | undefined>;
    const { status, search, filter } = searchOf(query);
    const input = { ...filter, page: pageNumber(query.page), perPage: PER_PAGE };
    const list = await certificates.list(accountId, input);
    return send(
      reply,
      certificatesPage({ user: userFrame(request, reply), flash: takeFlash(request), list, status, search }),
    );
  });

  // The PDFs of the current search (the newest 5,000: ZIP_MAX), as one ZIP streamed while it is read.
  // Like every download that counts, refused when it comes from another site (downloads.ts).
  app.get('/certificates/pdfs.zip', { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const { filter } = searchOf(request.query as Record<string, string | undefined>);
    const ids = await certificates.searchIds(accountId, filter);
    return sendZip(reply, `certificates-${deps.now().toISOString().slice(0, 10)}.zip`, accountId, ids);
  });

  app.get('/certificates/:id', { preHandler: signIn }, async (request, reply) => {
    const s = signedIn(request);
    const certificate = await certificates.get(s.user.accountId, pathId(request));
    const [history, template, credential, pdfSigner, templateVersion] = await Promise.all([
      emails.history(s.user.accountId, certificate.id, { page: 1, perPage: 20 }),
      templates.get(s.user.accountId, certificate.templateId).catch(() => undefined),
      proof.credential(s.user.accountId, certificate.id),
      signingKeys.pdfSignerOf(s.user.accountId, certificate.id),
      certificates.templateVersion(s.user.accountId, certificate.id),
    ]);
    return send(
      reply,
      certificatePage({
        user: userFrame(request, reply),
        flash: takeFlash(request),
        certificate,
        templateName: template?.name,
        templateVersion,
        history: history.data,
        historyTotal: history.pagination.total,
        emailDelivery: s.principal.emailDelivery,
        signed: credential !== undefined,
        pdfSigner,
        templateFields: template?.fields,
      }),
    );
  });

  // The signed credential, the same frozen bytes as the API serves.
  app.get('/certificates/:id/credential', { preHandler: signIn }, async (request, reply) => {
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
  app.get('/certificates/:id/pdf', { preHandler: signIn }, async (request, reply) => {
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

  app.post('/certificates/:id/send', { preHandler: [signIn, app.csrfProtection] }, async (request, reply) => {
    const s = signedIn(request);
    const id = pathId(request);
    const override = (form(request).recipientEmail ?? '').trim();
    try {
      await emails.assertSendable(s.principal, id);
      // The typed address is not repeated in the message: it would be stored in the session.
      if (override && !validSendBody({ recipientEmail: override })) {
        throw new ValidationError(
          [{ path: ['recipientEmail'], message: 'is not an email address' }],
          'the address typed is not an email address.',
        );
      }
      const queued = await emails.send(s.principal, id, override || undefined);
      setFlash(request, {
        kind: 'ok',
        text: `The certificate is queued for delivery to ${queued.recipientEmail}.`,
      });
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'not_found') throw err;
      setFlash(request, { kind: 'error', text: `Not sent: ${err.message}` });
    }
    return reply.redirect(`/dashboard/certificates/${id}`, 303);
  });

  app.post(
    '/certificates/:id/revoke',
    { preHandler: [signIn, app.csrfProtection] },
    async (request, reply) => {
      const { accountId } = signedIn(request).user;
      const id = pathId(request);
      const fields = form(request);
      // An empty box is no reason; anything typed is held to the API's rule by the service.
      const reason = fields.reason?.trim() ? fields.reason : undefined;
      try {
        if (fields.confirm !== 'yes') {
          throw new ValidationError(
            [{ path: ['confirm'], message: 'required' }],
            'Tick the box to confirm that revocation is permanent.',
          );
        }
        await certificates.revoke(accountId, id, reason);
        setFlash(request, {
          kind: 'ok',
          text: 'The certificate is revoked. Its verification page now says so.',
        });
      } catch (err) {
        if (!(err instanceof AppError) || err.code === 'not_found') throw err;
        setFlash(request, { kind: 'error', text: `Not revoked: ${err.message}` });
      }
      return reply.redirect(`/dashboard/certificates/${id}`, 303);
    },
  );

  // Correct and reissue: the same service call as POST /api/v1/certificates/:id/reissue. The data
  // keys the design does not show are kept; a field left empty is dropped.
  app.post(
    '/certificates/:id/reissue',
    { preHandler: [signIn, app.csrfProtection] },
    async (request, reply) => {
      const s = signedIn(request);
      const id = pathId(request);
      const fields = form(request);
      const old = await certificates.get(s.user.accountId, id);
      const template = await templates.get(s.user.accountId, old.templateId).catch(() => undefined);
      const oldData = old.data as Record<string, string | number | boolean>;
      const data = { ...oldData };
      for (const f of template?.fields ?? []) {
        const value = (fields[`data.${f.key}`] ?? '').trim();
        if (value === '') delete data[f.key];
        else if (String(oldData[f.key] ?? '') !== value) data[f.key] = value;
      }
      try {
        const fresh = await issue.reissue(s.principal, id, {
          name: fields.name ?? '',
          email: (fields.email ?? '').trim(),
          data,
        });
        setFlash(request, {
          kind: 'ok',
          text: `Reissued: this is the corrected certificate. The old one (${old.uniqueCode}) is revoked and links here.`,
        });
        return reply.redirect(`/dashboard/certificates/${fresh.id}`, 303);
      } catch (err) {
        if (!(err instanceof AppError) || err.code === 'not_found') throw err;
        const detail =
          err instanceof ValidationError
            ? err.issues.map((i) => `${i.path.slice(1).join('.')} ${i.message}`).join('; ')
            : err.message;
        setFlash(request, { kind: 'error', text: `Not reissued: ${detail}` });
        return reply.redirect(`/dashboard/certificates/${id}`, 303);
      }
    },
  );

  app.get('/certificates/new', { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const list = await templateList(accountId);
    const template = await templateOf(accountId, (request.query as { templateId?: string }).templateId);
    return send(
      reply,
      issueOnePage({ user: userFrame(request, reply), templates: list, template, values: {} }),
    );
  });

  app.post('/certificates/new', { preHandler: [signIn, app.csrfProtection] }, async (request, reply) => {
    const s = signedIn(request);
    const values = form(request);
    const template = await templateOf(s.user.accountId, values.templateId);
    const again = async (
      status: number,
      error: string,
      issues: { path: (string | number)[]; message: string }[] = [],
    ) =>
      send(
        reply,
        issueOnePage({
          user: userFrame(request, reply),
          templates: await templateList(s.user.accountId),
          template,
          values,
          error,
          issues,
        }),
        status,
      );
    if (!template) return again(422, 'Choose a template.');
    const data: Record<string, string> = {};
    for (const f of template.fields) {
      const v = (values[`data.${f.key}`] ?? '').trim();
      if (v) data[f.key] = v;
    }
    try {
      const certificate = await issue.issueOne(s.principal, template.id, {
        name: values.name ?? '',
        email: (values.email ?? '').trim(),
        data,
      });
      setFlash(request, { kind: 'ok', text: 'The certificate is issued.' });
      return reply.redirect(`/dashboard/certificates/${certificate.id}`, 303);
    } catch (err) {
      if (err instanceof ValidationError)
        return again(422, 'The certificate was not issued: correct the fields below.', err.issues);
      if (err instanceof AppError && err.code === 'quota_exceeded')
        return again(402, `Not issued: ${err.message}.`);
      throw err;
    }
  });

  app.get('/certificates/upload', { preHandler: signIn }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const template = await templateOf(accountId, (request.query as { templateId?: string }).templateId);
    return send(
      reply,
      uploadPage({ user: userFrame(request, reply), templates: await templateList(accountId), template }),
    );
  });

  app.post('/certificates/upload', { preHandler: [signIn, app.csrfProtection] }, async (request, reply) => {
    const s = signedIn(request);
    const fields = form(request);
    const template = await templateOf(s.user.accountId, fields.templateId);
    const file = (request.body as { file?: MultipartFile } | undefined)?.file;
    const again = async (error: string) =>
      send(
        reply,
        uploadPage({
          user: userFrame(request, reply),
          templates: await templateList(s.user.accountId),
          template,
          error,
        }),
        422,
      );
    if (!template) return again('Choose a template.');
    const bytes = file && file.type === 'file' ? await file.toBuffer() : undefined;
    if (!bytes || bytes.length === 0) return again('Choose a CSV file to upload.');
    let rows;
    try {
      rows = await readRecipientsCsv(bytes, template.fields);
    } catch (err) {
      if (err instanceof ValidationError) return again(err.message);
      throw err;
    }
    // A larger file is an import: a background job with a page of its own (decisions section 20).
    if (rows.length > MAX_ROWS) {
      const imp = await deps.services.imports.create({
        accountId: s.user.accountId,
        templateId: template.id,
        fileName: (file?.type === 'file' && file.filename) || 'recipients.csv',
        createdBy: `user:${s.user.id}`,
        rows,
      });
      return reply.redirect(`/dashboard/imports/${imp.id}`, 303);
    }
    const outcome = await issue.issueBatch(
      s.principal,
      template.id,
      rows.map((r) => r.recipient),
    );
    // The results go to a table of their own, never into the session: recipients' text is theirs.
    const id = uuidv7();
    await insertUpload(deps.db, {
      id,
      accountId: s.user.accountId,
      templateName: template.name,
      created: outcome.created,
      failed: outcome.failed,
      results: rowResults(rows, outcome),
      expiresAt: new Date(deps.now().getTime() + UPLOAD_KEPT_MS),
      // A template with emailOnIssue queued them with the issue (each created one has emailCount 1).
      emailedAt: outcome.results.some((r) => r.status === 'created' && r.certificate.emailCount > 0)
        ? deps.now()
        : null,
    });
    // Post/redirect/get: reloading the results never issues the file again.
    return reply.redirect(`/dashboard/certificates/upload/results/${id}`, 303);
  });

  const uploadOf = async (request: FastifyRequest) => {
    const upload = await findUpload(deps.db, signedIn(request).user.accountId, pathId(request), deps.now());
    if (!upload) throw new NotFoundError('Upload');
    return upload;
  };

  app.get('/certificates/upload/results/:id', { preHandler: signIn }, async (request, reply) => {
    const batch = await uploadOf(request);
    return send(
      reply,
      resultsPage({
        user: userFrame(request, reply),
        flash: takeFlash(request),
        id: pathId(request),
        batch,
        emailDelivery: signedIn(request).principal.emailDelivery,
      }),
    );
  });

  // "Email all created": the upload's created certificates still Issued, queued at once, once.
  app.post(
    '/certificates/upload/results/:id/email',
    { preHandler: [signIn, app.csrfProtection] },
    async (request, reply) => {
      const s = signedIn(request);
      const id = pathId(request);
      const batch = await uploadOf(request);
      const ids = batch.results.flatMap((r) =>
        r.status === 'created' && r.certificateId ? [r.certificateId] : [],
      );
      try {
        const queued = await emails.sendAll(s.principal, ids, (tx) =>
          claimUploadEmail(tx, s.user.accountId, id, deps.now()),
        );
        setFlash(request, {
          kind: 'ok',
          text: `${queued} certificate${queued === 1 ? '' : 's'} queued for email. Each certificate's page shows its send history.`,
        });
      } catch (err) {
        if (!(err instanceof AppError) || err.code === 'not_found') throw err;
        setFlash(request, { kind: 'error', text: `Not emailed: ${err.message}` });
      }
      return reply.redirect(`/dashboard/certificates/upload/results/${id}`, 303);
    },
  );

  app.get('/certificates/upload/results/:id/pdfs.zip', { preHandler: signIn }, async (request, reply) => {
    const batch = await uploadOf(request);
    const ids = batch.results.flatMap((r) => (r.certificateId ? [r.certificateId] : []));
    return sendZip(reply, 'certificates-upload.zip', signedIn(request).user.accountId, ids);
  });

  app.get('/certificates/upload/results/:id/results.csv', { preHandler: signIn }, async (request, reply) => {
    const batch = await uploadOf(request);
    return reply
      .header('Content-Disposition', 'attachment; filename="certificates-upload-results.csv"')
      .type('text/csv; charset=utf-8')
      .send(resultsCsv(batch.results));
  });
}
