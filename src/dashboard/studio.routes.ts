import { BODY_LIMIT, BODY_LIMIT_TEXT } from '../platform/limits.js';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { galleryDesign, galleryDesigns } from '../modules/templates/gallery.js';
import type { SampleInput } from '../modules/templates/design-preview.service.js';
import type { WorkingTemplate } from '../modules/templates/templates.views.js';
import { fontNames } from '../pdf/fonts.js';
import { AppError, NotFoundError, ValidationError } from '../platform/errors.js';
import type { DashboardDeps } from './deps.js';
import { DASHBOARD_CSP_SELF_CONNECT } from './html.js';
import { draftRoutes } from './drafts.routes.js';
import { editorPage } from './pages/editor.page.js';
import { confirmArchivePage, galleryPage, historyPage } from './pages/studio.page.js';
import { form, pathId } from './params.js';
import { pageFrame, routeKit } from './routes.js';
import { html as send, setFlash, signedIn, takeFlash, userFrame } from './session.js';
import { PDFJS_FILES } from './studio-assets.js';

// The design studio (issue 18, docs/dashboard.md): the gallery of starting designs, the editor,
// versions, duplicate and archive. Every POST carries the CSRF token; the pages keep the
// dashboard's CSP, and the editor alone may also fetch its previews from the service ('self').

function versionParam(request: FastifyRequest): number {
  const { version } = request.params as { version: string };
  if (!/^[1-9]\d{0,8}$/.test(version)) throw new NotFoundError('Page');
  return Number(version);
}

// Sample values from a query or a JSON body: recipientName and data.KEY (or data: {KEY}).
function sampleInput(source: Record<string, unknown>): SampleInput {
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(source)) {
    if (k.startsWith('data.') && typeof v === 'string') data[k.slice(5)] = v;
  }
  const nested = source.data;
  if (nested && typeof nested === 'object') {
    for (const [k, v] of Object.entries(nested as Record<string, unknown>)) {
      if (typeof v === 'string') data[k] = v;
    }
  }
  const name = source.recipientName;
  return { recipientName: typeof name === 'string' ? name : undefined, data };
}

// The editor's script asks for the preview with Accept: application/pdf, application/json.
const wantsJson = (request: FastifyRequest) => (request.headers.accept ?? '').includes('application/json');

function sendPdf(reply: FastifyReply, pdf: Buffer, download: boolean) {
  const disposition = download
    ? 'attachment; filename="template-preview.pdf"'
    : 'inline; filename="template-preview.pdf"';
  return reply
    .header('Content-Security-Policy', "default-src 'none'; frame-ancestors 'self'")
    .header('X-Frame-Options', 'SAMEORIGIN')
    .header('Cache-Control', 'private, no-store')
    .header('Content-Disposition', disposition)
    .type('application/pdf')
    .send(pdf);
}

export function studioRoutes(app: FastifyInstance, deps: DashboardDeps) {
  studioScripts(app);
  galleryRoutes(app, deps);
  editorRoutes(app, deps);
  draftRoutes(app, deps);
  versionRoutes(app, deps);
}

// pdf.js, cached for good (its paths carry its version). The editor's own script is one of the
// dashboard's hashed assets (dashboard.plugin.ts).
function studioScripts(app: FastifyInstance) {
  for (const file of Object.values(PDFJS_FILES)) {
    app.get(file.path.replace('/dashboard', ''), async (_request, reply) =>
      reply
        .header('Cache-Control', 'public, max-age=31536000, immutable')
        .type('text/javascript; charset=utf-8')
        .send(await file.body()),
    );
  }
}

// "New template": the starting designs, their previews, and a new draft from one of them.
function galleryRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { templates, designPreview } = deps.services;
  const kit = routeKit(app, deps);

  kit.page('/templates/new', 'design', async (request, reply) =>
    galleryPage({ ...pageFrame(request, reply), designs: await galleryDesigns() }),
  );

  app.get(
    '/templates/gallery/:slug/preview.pdf',
    { preHandler: kit.allow('design') },
    async (request, reply) => {
      const start = await galleryDesign((request.params as { slug: string }).slug);
      if (!start) throw new NotFoundError('Page');
      return sendPdf(reply, await designPreview.render(start.design), false);
    },
  );

  app.post('/templates/new', { preHandler: kit.form('design') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const made = await templates.createFromGallery(
      signedIn(request).principal,
      accountId,
      form(request).design ?? '',
    );
    setFlash(request, {
      kind: 'ok',
      text: 'A new draft: change it, save it, and publish it when it is ready.',
    });
    return reply.redirect(`/dashboard/templates/${made.id}/edit`, 303);
  });
}

// The JSON of the editor's form, parsed; a refusal names it.
function designOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError([{ path: [], message: 'is not valid JSON' }], 'The design is not valid JSON.');
  }
}

// What the editor says after a save (or a publish) from its form.
function savedText(saved: WorkingTemplate & { saved: boolean }, publish: boolean): string {
  const what = saved.saved
    ? `Saved as version ${saved.latestVersion}`
    : 'Nothing changed since the last save';
  return publish
    ? `${what}. Published: certificates issued from now on use version ${saved.version}.`
    : `${what}.${saved.status === 'draft' ? ' It stays a draft until you publish it.' : ' Publish it to issue with it.'}`;
}

// The editor: its page, Save and Publish from its form, and what its script asks for (an uploaded
// image or font, the live preview).
function editorRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { templates, designPreview } = deps.services;
  const kit = routeKit(app, deps);

  const editor = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { designText?: string; error?: string } = {},
  ) => {
    const { accountId, id: userId } = signedIn(request).user;
    const id = pathId(request);
    const working = await templates.working(accountId, id);
    // The user's unsaved edits autosaved after the newest version: offered, or (?draft=1) restored.
    const draft =
      extra.designText === undefined ? await templates.newerDraft(accountId, userId, id) : undefined;
    const restore = draft !== undefined && (request.query as { draft?: unknown }).draft === '1';
    reply.header('Content-Security-Policy', DASHBOARD_CSP_SELF_CONNECT);
    return editorPage({
      user: userFrame(request, reply),
      flash: extra.error ? { kind: 'error', text: extra.error } : takeFlash(request),
      template: working,
      design: working.design,
      designText: restore ? JSON.stringify(draft.design, null, 2) : extra.designText,
      fonts: [...fontNames, ...(working.design.fonts ?? []).map((f) => f.name)],
      draft: draft && { savedAt: draft.savedAt, restored: restore },
      autosaveS: deps.studioAutosaveS ?? 30,
      hasBadge: (await deps.services.badgeImages.read(accountId, id)) !== undefined,
    });
  };

  kit.page('/templates/:id/edit', 'design', (request, reply) => editor(request, reply));

  // Save (a new version) or Publish (save if changed, then issue with it), from the form.
  app.post('/templates/:id/edit', { preHandler: kit.form('design') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const id = pathId(request);
    const fields = form(request);
    const text = fields.design ?? '';
    const publish = fields.intent === 'publish';
    try {
      const saved = await templates.saveVersion(signedIn(request).principal, accountId, id, designOf(text), {
        publish,
      });
      // Saved: the autosaved draft of these edits is done with.
      await templates.discardDraft(accountId, signedIn(request).user.id, id);
      setFlash(request, { kind: 'ok', text: savedText(saved, publish) });
      return reply.redirect(`/dashboard/templates/${id}/edit`, 303);
    } catch (err) {
      if (!(err instanceof ValidationError)) throw err;
      return send(
        reply,
        await editor(request, reply, { designText: text, error: `Not saved. ${err.message}` }),
        422,
      );
    }
  });

  app.post('/templates/:id/publish', { preHandler: kit.form('design') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const t = await templates.publish(signedIn(request).principal, accountId, pathId(request));
    await templates.discardDraft(accountId, signedIn(request).user.id, t.id);
    setFlash(request, { kind: 'ok', text: `Published version ${t.version} of ${t.name}.` });
    return reply.redirect(`/dashboard/templates/${t.id}/edit`, 303);
  });

  // An image or a font for the design being edited (multipart: kind, file), checked and decoded,
  // answered as JSON { src, width?, height? } for the editor to put into the design; nothing is
  // stored, and the design changes only when it is saved. A refusal is the error page (422, 413).
  app.post('/templates/:id/uploads', { preHandler: kit.form('design') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    await templates.working(accountId, pathId(request));
    const file = (request.body as { file?: MultipartFile } | undefined)?.file;
    const bytes = file && file.type === 'file' ? await file.toBuffer() : undefined;
    if (!bytes) {
      throw new ValidationError([{ path: ['file'], message: 'choose a file' }], 'Choose a file to upload.');
    }
    // The multipart limit (20 MiB) is the last bound of a CSV upload; an image or a font is held to the body limit.
    if (bytes.length > BODY_LIMIT) {
      throw new AppError(
        'payload_too_large',
        `The upload is too large: an image or font of at most ${BODY_LIMIT_TEXT}.`,
      );
    }
    const { uploads } = deps.services;
    const answer = form(request).kind === 'font' ? await uploads.font(bytes) : await uploads.image(bytes);
    return reply.header('Cache-Control', 'no-store').type('application/json; charset=utf-8').send(answer);
  });

  // The editor's live preview: the design being edited (saved or not) with the sample values, as
  // JSON { design, sample }. A POST for its size; it changes nothing but still needs the token.
  app.post('/templates/:id/preview.pdf', { preHandler: kit.form('design') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    await templates.working(accountId, pathId(request));
    const body = (request.body ?? {}) as { design?: unknown; sample?: Record<string, unknown> };
    try {
      const design = await templates.parse(body.design);
      return sendPdf(reply, await designPreview.render(design, sampleInput(body.sample ?? {})), false);
    } catch (err) {
      // The studio asks for JSON: the issues' paths let it outline the elements at fault.
      if (!(err instanceof ValidationError) || !wantsJson(request)) throw err;
      return reply
        .code(422)
        .header('Cache-Control', 'no-store')
        .type('application/json; charset=utf-8')
        .send(
          JSON.stringify({
            error: { code: err.code, message: err.message, details: { issues: err.issues } },
          }),
        );
    }
  });
}

// A template's versions (history, restore), its copy, and archiving it.
function versionRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { templates } = deps.services;
  const kit = routeKit(app, deps);

  kit.page('/templates/:id/history', 'design', async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const id = pathId(request);
    const working = await templates.working(accountId, id);
    return historyPage({
      ...pageFrame(request, reply),
      template: working,
      versions: await templates.versions(accountId, id),
    });
  });

  app.post(
    '/templates/:id/versions/:version/restore',
    { preHandler: kit.form('design') },
    async (request, reply) => {
      const { accountId } = signedIn(request).user;
      const version = versionParam(request);
      const t = await templates.restore(signedIn(request).principal, accountId, pathId(request), version);
      setFlash(request, {
        kind: 'ok',
        text: `Version ${version} is restored as version ${t.latestVersion}.${t.status === 'active' ? ' Publish it to issue with it.' : ''}`,
      });
      return reply.redirect(`/dashboard/templates/${t.id}/edit`, 303);
    },
  );

  app.post('/templates/:id/duplicate', { preHandler: kit.form('design') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const copy = await templates.duplicate(signedIn(request).principal, accountId, pathId(request));
    setFlash(request, { kind: 'ok', text: `${copy.name} is a new draft.` });
    return reply.redirect(`/dashboard/templates/${copy.id}/edit`, 303);
  });

  kit.page('/templates/:id/archive', 'design', async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const working = await templates.working(accountId, pathId(request));
    return confirmArchivePage({ user: userFrame(request, reply), template: working });
  });

  app.post('/templates/:id/archive', { preHandler: kit.form('design') }, async (request, reply) => {
    const { accountId } = signedIn(request).user;
    const t = await templates.archiveOwned(signedIn(request).principal, accountId, pathId(request));
    setFlash(request, { kind: 'ok', text: `${t.name} is archived: nothing more can be issued with it.` });
    return reply.redirect('/dashboard/templates', 303);
  });
}

// The preview of a saved design: the one issued by default, ?latest=1 the newest saved, ?version=N
// any version; sample values from the query; ?download=1 as a file ("Download preview PDF").
export async function savedPreview(deps: DashboardDeps, request: FastifyRequest, reply: FastifyReply) {
  const { templates, designPreview } = deps.services;
  const { accountId } = signedIn(request).user;
  const id = pathId(request);
  const query = (request.query ?? {}) as Record<string, unknown>;
  const working = await templates.working(accountId, id);
  let design = working.issuedDesign;
  if (query.latest === '1') design = working.design;
  if (typeof query.version === 'string') {
    if (!/^[1-9]\d{0,8}$/.test(query.version)) throw new NotFoundError('Page');
    design = (await templates.version(accountId, id, Number(query.version))).design;
  }
  return sendPdf(reply, await designPreview.render(design, sampleInput(query)), query.download === '1');
}
