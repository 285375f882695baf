import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { createResetLink, RESET_LINK_TTL_MS } from '../modules/users/password-resets.js';
import type { UserView } from '../modules/users/users.service.js';
import { html } from '../platform/html.js';
import type { DashboardDeps } from './deps.js';
import { overLimit } from './auth.routes.js';
import { forgotPasswordPage } from './pages/sign-in.page.js';
import { form } from './params.js';
import { html as send } from './session.js';

// "Forgot password" (issue 29): a single-use link valid one hour, mailed at once through the
// account mail. The page answers the same whether or not the address is a user's, and the mail goes
// out after the answer, so neither the page nor its timing nor a mail server's refusal tells which
// addresses exist. At most 5 mails per address an hour (decisions 21): past it, the same page and no
// mail. Per client IP, requests are counted too: past that, a 429 (for every address alike).
export const FORGOT_PASSWORD_LIMITS = {
  perEmail: { max: 5, windowMs: 60 * 60 * 1000 },
  perIp: { max: 20, windowMs: 60 * 60 * 1000 },
};

function resetMail(link: string) {
  const minutes = RESET_LINK_TTL_MS / 60_000;
  return {
    subject: 'Reset your certsvc password',
    text:
      `Someone (we hope you) asked to reset the password of your certsvc dashboard account.\n\n` +
      `Open this link to choose a new password. It works once, within ${minutes} minutes:\n\n${link}\n\n` +
      `If you did not ask, ignore this email: your password stays as it is.\n`,
    html: String(
      html`<p>Someone (we hope you) asked to reset the password of your certsvc dashboard account.</p>
        <p>Open this link to choose a new password. It works once, within ${minutes} minutes:</p>
        <p><a href="${link}">${link}</a></p>
        <p>If you did not ask, ignore this email: your password stays as it is.</p>`,
    ),
  };
}

export function forgotPasswordRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const { services } = deps;

  async function sendLink(user: UserView) {
    const { path } = await createResetLink(deps.db, user.id, deps.now());
    await services.accountMail.send({ to: user.email, ...resetMail(`${deps.publicBaseUrl}${path}`) });
  }

  app.get('/forgot-password', async (_request, reply) =>
    send(reply, forgotPasswordPage({ csrf: reply.generateCsrf() })),
  );

  app.post('/forgot-password', { preHandler: app.csrfProtection }, async (request, reply) => {
    const email = (form(request).email ?? '').trim().toLowerCase();
    const sent = () => send(reply, forgotPasswordPage({ csrf: reply.generateCsrf(), sent: true }));
    if (!email || email.length > 254 || email.includes('\0')) {
      return send(
        reply,
        forgotPasswordPage({ csrf: reply.generateCsrf(), error: 'Enter a valid email address.' }),
        422,
      );
    }
    const emailKey = createHash('sha256').update(email).digest('base64url');
    const { perEmail, perIp } = FORGOT_PASSWORD_LIMITS;
    const ipWait = await overLimit(deps.rateLimitStore, [[`forgot-ip:${request.ip}`, perIp]]);
    if (ipWait !== undefined) {
      reply.header('Retry-After', ipWait);
      const error = `Too many requests from your address. Wait ${Math.ceil(ipWait / 60)} minute(s) and try again.`;
      return send(reply, forgotPasswordPage({ csrf: reply.generateCsrf(), error }), 429);
    }
    // Counted for every address, known or not: the answer is the same either way.
    if ((await overLimit(deps.rateLimitStore, [[`forgot-email:${emailKey}`, perEmail]])) !== undefined) {
      return sent();
    }
    const user = await services.users.findByEmail(email);
    if (user) {
      sendLink(user).catch((err: unknown) =>
        request.log.error({ err, userId: user.id }, 'the password reset link could not be sent'),
      );
    }
    return sent();
  });
}
