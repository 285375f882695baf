import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../platform/db/db.js';
import { AppError, ForbiddenError, NotFoundError } from '../../platform/errors.js';
import { UUID_PATTERN } from '../../platform/ids.js';
import type { RateLimitStore } from '../../platform/rate-limit/rate-limit.store.js';
import { certificateFileName } from '../shared/certificate-links.js';
import { resolveClaimToken } from '../shared/claim-tokens.js';
import type { CertificatesService } from '../certificates/certificates.service.js';
import { badgeFormat } from '../wallet/badges.js';
import type { CorrectionsService } from './corrections.service.js';
import { askPage, correctionPage, listPage, requestedPage, sentPage } from './my.pages.js';
import { normalEmail, RECIPIENT_SESSION_TTL_MS, type RecipientSession } from './recipient-links.js';
import { correctionInput, fieldsOf, installRecipientPages, overLimit, page } from './recipient-http.js';
import { looksLikeEmail, type RecipientsService } from './recipients.service.js';
import { messagePage } from './recipient-page.js';

// "My certificates" at /my (decisions 22) and the claim page's correction form at
// /claim/{token}/correction: pages for recipients, who have no account. POST /my answers 202 and the
// same page whatever the address; the sign-in link it mails opens a recipient session (cookie
// certsvc_recipient, Path=/my, HttpOnly, SameSite=Lax), in which every form carries the session's
// CSRF token. Nothing is listed without that session.

export const MY_LINK_LIMITS = {
  perEmail: { max: 5, windowMs: 60 * 60 * 1000 },
  perIp: { max: 20, windowMs: 60 * 60 * 1000 },
};
export const RECIPIENT_COOKIE = 'certsvc_recipient';

export interface RecipientRoutesDeps {
  db: Db;
  now: () => Date;
  rateLimitStore: RateLimitStore;
  services: {
    recipients: RecipientsService;
    corrections: CorrectionsService;
    certificates: Pick<CertificatesService, 'pdf'>;
  };
}

const uuid = new RegExp(UUID_PATTERN);
function pathId(request: FastifyRequest): string {
  const { id } = request.params as { id: string };
  if (!uuid.test(id)) throw new NotFoundError('Certificate');
  return id.toLowerCase();
}

function cookieOf(request: FastifyRequest): string | undefined {
  const header = request.headers.cookie ?? '';
  const match = new RegExp(`(?:^|;\\s*)${RECIPIENT_COOKIE}=([^;]+)`).exec(header);
  return match?.[1];
}

function setCookie(request: FastifyRequest, reply: FastifyReply, value: string, maxAgeS: number) {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'Set-Cookie',
    `${RECIPIENT_COOKIE}=${value}; Path=/my; Max-Age=${maxAgeS}; HttpOnly; SameSite=Lax${secure}`,
  );
}

const sameToken = (a: string, b: string) => {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
};

// Downloads count only when they come from this site (as the dashboard's, decisions 25).
const fromThisSite = (request: FastifyRequest) => {
  const site = request.headers['sec-fetch-site'];
  return site === undefined || site === 'same-origin' || site === 'none';
};

export async function myRoutes(app: FastifyInstance, deps: RecipientRoutesDeps) {
  await installRecipientPages(app);
  const { recipients, corrections, certificates } = deps.services;

  async function sessionOf(
    request: FastifyRequest,
  ): Promise<(RecipientSession & { id: string }) | undefined> {
    const id = cookieOf(request);
    const session = id ? await recipients.session(id) : undefined;
    return session && id ? { ...session, id } : undefined;
  }
  // A form of the session: its CSRF token must match, else nothing is done.
  async function formSession(request: FastifyRequest) {
    const session = await sessionOf(request);
    if (!session) throw new ForbiddenError('Your session has ended. Ask for a new sign-in link at /my.');
    if (!sameToken(fieldsOf(request)._csrf ?? '', session.csrf)) {
      throw new ForbiddenError('This form has expired. Go back, reload the page and send it again.');
    }
    return session;
  }

  app.setNotFoundHandler(async (_request, reply) =>
    page(reply, messagePage(404, 'There is nothing here: the link or page does not exist.'), 404),
  );
  app.get('/', async (_request, reply) => page(reply, askPage()));

  app.post('/', async (request, reply) => {
    const typed = (fieldsOf(request).email ?? '').trim();
    if (!looksLikeEmail(typed)) {
      return page(reply, askPage({ error: 'Enter a valid email address.', email: typed.slice(0, 254) }), 422);
    }
    const email = normalEmail(typed);
    const { perEmail, perIp } = MY_LINK_LIMITS;
    const ipWait = await overLimit(deps.rateLimitStore, [[`my-ip:${request.ip}`, perIp]]);
    if (ipWait !== undefined) {
      reply.header('Retry-After', ipWait);
      const error = `Too many requests from your address. Wait ${Math.ceil(ipWait / 60)} minute(s) and try again.`;
      return page(reply, askPage({ error }), 429);
    }
    const emailKey = createHash('sha256').update(email).digest('base64url');
    // Counted for every address, known or not; past it, the same answer and no mail.
    if ((await overLimit(deps.rateLimitStore, [[`my-email:${emailKey}`, perEmail]])) === undefined) {
      const send = await recipients.prepareLink(email);
      // After the answer: neither the page nor its timing says whether a mail went out.
      send?.().catch((err: unknown) => request.log.error({ err }, 'the sign-in link could not be sent'));
    }
    return page(reply, sentPage(), 202);
  });

  app.get('/enter/:token', async (request, reply) => {
    const { token } = request.params as { token: string };
    const opened = await recipients.enter(token);
    setCookie(request, reply, opened.id, RECIPIENT_SESSION_TTL_MS / 1000);
    return reply.redirect('/my/certificates', 303);
  });

  app.post('/sign-out', async (request, reply) => {
    const session = await formSession(request);
    await recipients.signOut(session.id);
    setCookie(request, reply, '', 0);
    return reply.redirect('/my', 303);
  });

  app.get('/certificates', async (request, reply) => {
    const session = await sessionOf(request);
    if (!session) return reply.redirect('/my', 303);
    const list = await recipients.list(session.email);
    return page(reply, listPage({ email: session.email, csrf: session.csrf, certificates: list }));
  });

  app.get('/certificates/:id/pdf', async (request, reply) => {
    const session = await sessionOf(request);
    if (!session) return reply.redirect('/my', 303);
    const mine = await recipients.get(session.email, pathId(request));
    const pdf = await certificates.pdf(mine.accountId, mine.id, fromThisSite(request));
    return reply
      .header('Content-Security-Policy', "default-src 'none'")
      .header('Cache-Control', 'private, no-cache')
      .header('Content-Disposition', `attachment; filename="${certificateFileName(pdf.uniqueCode)}"`)
      .type('application/pdf')
      .send(pdf.pdf);
  });

  // "Add to your wallet" and "Download badge": a new claim token, then the wallet's pages.
  app.post('/certificates/:id/wallet', async (request, reply) => {
    const session = await formSession(request);
    const token = await recipients.walletToken(session.email, pathId(request));
    return reply.redirect(`/claim/${token}`, 303);
  });
  app.post('/certificates/:id/badge', async (request, reply) => {
    const session = await formSession(request);
    const id = pathId(request);
    const token = await recipients.walletToken(session.email, id);
    // PNG when the template's badge image is one, else SVG (the SVG image or the default seal).
    return reply.redirect(`/claim/${token}/badge.${(await badgeFormat(deps.db, id)) ?? 'svg'}`, 303);
  });

  app.get('/certificates/:id/correction', async (request, reply) => {
    const session = await sessionOf(request);
    if (!session) return reply.redirect('/my', 303);
    const mine = await recipients.get(session.email, pathId(request));
    const form = await corrections.form(mine.id);
    return page(
      reply,
      correctionPage({
        form,
        action: `/my/certificates/${mine.id}/correction`,
        back: '/my/certificates',
        csrf: session.csrf,
      }),
    );
  });

  app.post('/certificates/:id/correction', async (request, reply) => {
    const session = await formSession(request);
    const mine = await recipients.get(session.email, pathId(request));
    const fields = fieldsOf(request);
    const action = `/my/certificates/${mine.id}/correction`;
    return requestCorrection(reply, corrections, mine.id, fields, 'my', {
      action,
      back: '/my/certificates',
      csrf: session.csrf,
      origin: { ip: request.ip, requestId: request.id },
    });
  });
}

// Records the request and answers its page; a refusal (a value refused, nothing changed, one open
// already) shows the form again with the reason, and the status.
async function requestCorrection(
  reply: FastifyReply,
  corrections: CorrectionsService,
  certificateId: string,
  fields: Record<string, string>,
  via: 'my' | 'claim',
  opts: { action: string; back: string; csrf?: string; origin: { ip: string; requestId: string } },
) {
  try {
    await corrections.request(certificateId, correctionInput(fields), via, opts.origin);
    return page(reply, requestedPage(opts.back), 201);
  } catch (err) {
    if (!(err instanceof AppError) || (err.code !== 'validation_error' && err.code !== 'conflict')) throw err;
    const form = await corrections.form(certificateId);
    const status = err.code === 'conflict' ? 409 : 422;
    const notice = { kind: 'error' as const, text: err.message };
    return page(reply, correctionPage({ ...opts, form, notice, values: fields }), status);
  }
}

// The claim page's "Request a correction" (decisions 22): the claim token is the proof of being the
// recipient, so its form needs no session.
export async function claimCorrectionRoutes(app: FastifyInstance, deps: RecipientRoutesDeps) {
  await installRecipientPages(app);
  const { corrections } = deps.services;

  const target = async (request: FastifyRequest) => {
    const { token } = request.params as { token: string };
    const claim = await resolveClaimToken(deps.db, token, deps.now());
    return { token, certificateId: claim.certificateId };
  };

  app.get('/claim/:token/correction', async (request, reply) => {
    const { token, certificateId } = await target(request);
    const form = await corrections.form(certificateId);
    return page(
      reply,
      correctionPage({ form, action: `/claim/${token}/correction`, back: `/claim/${token}` }),
    );
  });

  app.post('/claim/:token/correction', async (request, reply) => {
    const { token, certificateId } = await target(request);
    return requestCorrection(reply, corrections, certificateId, fieldsOf(request), 'claim', {
      action: `/claim/${token}/correction`,
      back: `/claim/${token}`,
      origin: { ip: request.ip, requestId: request.id },
    });
  });
}
