import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, NotFoundError, ValidationError } from '../platform/errors.js';
import { AT_ONCE_ROWS } from '../modules/imports/imports.service.js';
import { readRecipientsCsv } from '../modules/imports/recipients-csv.js';
import { validityExpiry } from '../modules/certificates/issue-plan.js';
import { dayExpiry } from '../modules/certificates/recipient.js';
import { durationText } from '../platform/duration.js';
import type { TemplateView } from '../modules/templates/templates.schemas.js';
import type { DashboardDeps } from './deps.js';
import { sendCsv, sendZip } from './downloads.js';
import { form, isUuid, pathId } from './params.js';
import {
  issueOnePage,
  resultsPage,
  uploadPage,
  type DefaultExpiry,
  type ListColumns,
} from './pages/issue.page.js';
import { emailedText } from './imports.routes.js';
import { flashOutcome, pageFrame, routeKit } from './routes.js';
import { html as send, setFlash, signedIn, takeFlash, userFrame } from './session.js';
import { heldUploadPages } from './upload-hold.routes.js';

// Issuing from the dashboard: one certificate from a form, or many from a CSV file. Every upload is
// an import (decisions section 20): one of at most AT_ONCE_ROWS rows is issued at once, in the
// request, and answered on its results page here; a larger one goes to the import workers.
export function issuePages(app: FastifyInstance, deps: DashboardDeps) {
  const kit = routeKit(app, deps);
  const choice = templateChoice(deps);
  issueOneRoutes(app, deps, kit, choice);
  uploadRoutes(app, deps, kit, choice);
  uploadResultsRoutes(app, deps, kit);
  heldUploadPages(app, deps);
}

type Kit = ReturnType<typeof routeKit>;
type Choice = ReturnType<typeof templateChoice>;

function templateChoice(deps: DashboardDeps) {
  const { templates } = deps.services;
  return {
    list: (accountId: string) => templates.list(accountId, { page: 1, perPage: 100 }).then((p) => p.data),
    of: async (accountId: string, id: string | undefined) =>
      isUuid(id) ? templates.get(accountId, id.toLowerCase()).catch(() => undefined) : undefined,
    query: (request: FastifyRequest) => (request.query as { templateId?: string }).templateId,
  };
}

// What the form says beyond the fields: the expiry an empty date gives (the template's validity from
// now; null: the certificate does not expire; the issue computes it again, from its own issue time),
// and for each list field the columns of the table that shows it.
async function formFacts(
  deps: DashboardDeps,
  accountId: string,
  template?: TemplateView,
): Promise<{ expiry?: DefaultExpiry; lists: ListColumns }> {
  if (!template) return { lists: {} };
  const { issuedDesign } = await deps.services.templates.working(accountId, template.id);
  const now = deps.now();
  const expiry = validityExpiry(issuedDesign, now);
  const lists: ListColumns = {};
  for (const e of issuedDesign.elements) {
    if (e.type === 'table') lists[e.field] ??= e.columns.map((c) => ({ key: c.key, label: c.label }));
  }
  return {
    expiry: {
      today: now.toISOString().slice(0, 10),
      byValidity: expiry && { at: expiry.expiresAt.toISOString(), validity: durationText(expiry.validity) },
    },
    lists,
  };
}

// A list field's text in the form as items: one per line, values separated by semicolons in the
// table's column order (a JSON array when no table shows the list). Empty lines are skipped.
function listItems(
  text: string,
  key: string,
  columns: { key: string; label: string }[] | undefined,
): { items: Record<string, string>[] } | { issue: { path: (string | number)[]; message: string } } {
  const path = ['recipient', 'data', key];
  if (!columns?.length) {
    try {
      const items = JSON.parse(text) as unknown;
      if (Array.isArray(items)) return { items: items as Record<string, string>[] };
    } catch {
      // said below
    }
    return { issue: { path, message: 'must be a JSON array of items, e.g. [{"name": "Unit 1"}]' } };
  }
  const items: Record<string, string>[] = [];
  for (const [n, line] of text.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    const cells = line.split(';').map((c) => c.trim());
    if (cells.length > columns.length) {
      const order = columns.map((c) => c.label).join('; ');
      return {
        issue: {
          path,
          message: `line ${n + 1} has ${cells.length} values; there are ${columns.length} columns (${order})`,
        },
      };
    }
    const item: Record<string, string> = {};
    cells.forEach((value, i) => {
      if (value !== '') item[columns[i]!.key] = value;
    });
    if (Object.keys(item).length > 0) items.push(item);
  }
  return { items };
}

function issueOneRoutes(app: FastifyInstance, deps: DashboardDeps, kit: Kit, choice: Choice) {
  const { issue } = deps.services;

  kit.page('/certificates/new', 'issue', async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const list = await choice.list(accountId);
    const template = await choice.of(accountId, choice.query(request));
    const facts = await formFacts(deps, accountId, template);
    return issueOnePage({ user: userFrame(request, reply), templates: list, template, ...facts, values: {} });
  });

  app.post('/certificates/new', { preHandler: kit.form('issue') }, async (request, reply) => {
    const s = signedIn(request);
    const values = form(request);
    const template = await choice.of(s.user.accountId, values.templateId);
    const facts = await formFacts(deps, s.user.accountId, template);
    const again = async (
      status: number,
      error: string,
      issues: { path: (string | number)[]; message: string }[] = [],
    ) =>
      send(
        reply,
        issueOnePage({
          user: userFrame(request, reply),
          templates: await choice.list(s.user.accountId),
          template,
          ...facts,
          values,
          error,
          issues,
        }),
        status,
      );
    if (!template) return again(422, 'Choose a template.');
    const data: Record<string, string | Record<string, string>[]> = {};
    for (const f of template.fields) {
      const v = (values[`data.${f.key}`] ?? '').trim();
      if (!v) continue;
      if (f.type !== 'list') {
        data[f.key] = v;
        continue;
      }
      const list = listItems(v, f.key, facts.lists[f.key]);
      if ('issue' in list)
        return again(422, 'The certificate was not issued: correct the fields below.', [list.issue]);
      data[f.key] = list.items;
    }
    // The expiry is a day (its end, UTC); empty: the template's validity.
    const day = (values.expiresOn ?? '').trim();
    const expiresAt = day ? dayExpiry(day) : undefined;
    if (day && !expiresAt) {
      const message = 'must be a date, such as 2028-11-27';
      return again(422, 'The certificate was not issued: correct the fields below.', [
        { path: ['recipient', 'expiresOn'], message },
      ]);
    }
    try {
      const certificate = await issue.issueOne(s.principal, template.id, {
        name: values.name ?? '',
        email: (values.email ?? '').trim(),
        data,
        ...(expiresAt ? { expiresAt } : {}),
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
}

function uploadRoutes(app: FastifyInstance, deps: DashboardDeps, kit: Kit, choice: Choice) {
  const { imports, usage } = deps.services;

  kit.page('/certificates/upload', 'issue', async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const template = await choice.of(accountId, choice.query(request));
    return uploadPage({
      user: userFrame(request, reply),
      flash: takeFlash(request),
      templates: await choice.list(accountId),
      template,
      usage: await usage.get(signedIn(request).principal),
    });
  });

  app.post('/certificates/upload', { preHandler: kit.form('issue') }, async (request, reply) => {
    const s = signedIn(request);
    const template = await choice.of(s.user.accountId, form(request).templateId);
    const file = (request.body as { file?: MultipartFile } | undefined)?.file;
    const again = async (error: string) =>
      send(
        reply,
        uploadPage({
          user: userFrame(request, reply),
          templates: await choice.list(s.user.accountId),
          template,
          usage: await usage.get(s.principal),
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
    const input = {
      accountId: s.user.accountId,
      templateId: template.id,
      fileName: (file?.type === 'file' && file.filename) || 'recipients.csv',
      createdBy: `user:${s.user.id}`,
      rows,
    };
    // More rows than the period has left: held, and the user chooses (issue 29). A plan with no
    // limit (partner contract) never asks.
    const left = (await usage.get(s.principal)).certificates.remaining;
    if (left !== null && rows.length > left) {
      const hold = await imports.hold(input);
      return reply.redirect(`/dashboard/certificates/upload/held/${hold.id}`, 303);
    }
    // A larger file is issued in the background, with a page of its own (decisions section 20).
    if (rows.length > AT_ONCE_ROWS) {
      const imp = await imports.create(s.principal, input);
      return reply.redirect(`/dashboard/imports/${imp.id}`, 303);
    }
    // The results stay with the import, never in the session: recipients' text is theirs.
    const imp = await imports.issueAtOnce(s.principal, input);
    // Post/redirect/get: reloading the results never issues the file again.
    return reply.redirect(`/dashboard/certificates/upload/results/${imp.id}`, 303);
  });
}

// The results of an upload issued at once: its page, "Email all created", its PDFs and its CSV.
function uploadResultsRoutes(app: FastifyInstance, deps: DashboardDeps, kit: Kit) {
  const { certificates, imports, templates } = deps.services;
  const base = '/certificates/upload/results/:id';

  // An upload of the account issued at once (an import of more rows has its own page).
  const uploadOf = async (request: FastifyRequest) => {
    const imp = await imports.get(signedIn(request).user.accountId, pathId(request));
    if (imp.rows > AT_ONCE_ROWS) throw new NotFoundError('Upload');
    return imp;
  };

  kit.page(base, 'issue', async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const imp = await uploadOf(request);
    const template = await templates.get(accountId, imp.templateId).catch(() => undefined);
    return resultsPage({
      ...pageFrame(request, reply),
      imp,
      templateName: template?.name ?? 'an archived template',
      rows: await imports.rows(accountId, imp.id, AT_ONCE_ROWS),
      reasons: await imports.failureReasons(accountId, imp.id),
      emailDelivery: signedIn(request).principal.emailDelivery,
    });
  });

  // "Email all created": the upload's created certificates still Issued, queued at once, once.
  app.post(`${base}/email`, { preHandler: kit.form('issue') }, async (request, reply) => {
    const imp = await uploadOf(request);
    await flashOutcome(request, 'Not emailed', async () =>
      emailedText(await imports.emailAll(signedIn(request).principal, imp.id)),
    );
    return reply.redirect(`/dashboard/certificates/upload/results/${imp.id}`, 303);
  });

  app.get(`${base}/pdfs.zip`, { preHandler: kit.allow('issue') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const upload = await uploadOf(request);
    const ids = await imports.createdIds(accountId, upload.id);
    const entries = certificates.pdfEntries(
      signedIn(request).principal,
      accountId,
      ids,
      `upload ${upload.id}`,
    );
    return sendZip(reply, 'certificates-upload.zip', entries);
  });

  app.get(`${base}/results.csv`, { preHandler: kit.allow('issue') }, async (request, reply) => {
    const imp = await uploadOf(request);
    const csv = imports.resultsCsv(signedIn(request).user.accountId, imp.id);
    return sendCsv(reply, 'certificates-upload-results.csv', csv);
  });
}
