import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { NotFoundError, ValidationError } from '../platform/errors.js';
import type { TeamActor } from '../modules/users/team.service.js';
import { can, type Role } from '../modules/shared/roles.js';
import type { DashboardDeps } from './deps.js';
import { confirmRemovePage, teamPage } from './pages/team.page.js';
import { form, pathId } from './params.js';
import { flashOutcome, pageFrame, routeKit } from './routes.js';
import { html as send, setFlash, signedIn, userFrame } from './session.js';

// Settings > Team (issue 29): the same team service as the CLI's `user` commands; the rules (who
// may change whom, an account keeps an owner) are the service's.
export function teamRoutes(app: FastifyInstance, deps: DashboardDeps) {
  const team = deps.services.team;
  const kit = routeKit(app, deps);
  const base = '/settings/team';
  const back = (reply: FastifyReply) => reply.redirect(`/dashboard${base}`, 303);
  const actor = (request: FastifyRequest): TeamActor => ({
    ...signedIn(request).principal,
    role: signedIn(request).user.role,
  });

  const listPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    typed?: { email: string; role: string },
  ) => {
    const frame = pageFrame(request, reply);
    const { members, invitations } = await team.list(signedIn(request).user.accountId);
    return teamPage({ ...frame, members, invitations, typed });
  };

  kit.page(base, 'team', (request, reply) => listPage(request, reply));

  app.post(`${base}/invitations`, { preHandler: kit.form('team') }, async (request, reply) => {
    const { email = '', role = '' } = form(request);
    try {
      const invitation = await team.invite(signedIn(request).user.accountId, actor(request), { email, role });
      setFlash(request, {
        kind: 'ok',
        text: `Invitation sent to ${invitation.email}: the link works once, for 7 days.`,
      });
      return back(reply);
    } catch (err) {
      if (!(err instanceof ValidationError) && !isRefusal(err)) throw err;
      const page = teamPage({
        user: userFrame(request, reply),
        flash: { kind: 'error', text: `Not invited: ${(err as Error).message}` },
        ...(await team.list(signedIn(request).user.accountId)),
        typed: { email, role },
      });
      return send(reply, page, statusOf(err));
    }
  });

  for (const [what, done] of [
    ['resend', 'sent again: the earlier link no longer works'],
    ['cancel', 'cancelled: its link no longer works'],
  ] as const) {
    app.post(`${base}/invitations/:id/${what}`, { preHandler: kit.form('team') }, async (request, reply) => {
      const { accountId } = signedIn(request).user;
      const id = pathId(request);
      await flashOutcome(request, `Not ${what === 'resend' ? 'sent' : 'cancelled'}`, async () => {
        const invitation = await team[what](accountId, actor(request), id);
        return `The invitation to ${invitation.email} is ${done}.`;
      });
      return back(reply);
    });
  }

  app.post(`${base}/:id/role`, { preHandler: kit.form('team') }, async (request, reply) => {
    const { accountId, id: me } = signedIn(request).user;
    const id = pathId(request);
    let role: Role | undefined;
    await flashOutcome(request, 'The role was not changed', async () => {
      const member = await team.changeRole(accountId, actor(request), id, form(request).role ?? '');
      role = member.role;
      return `${member.email} is now ${member.role}.`;
    });
    // One's own new role may no longer open this page: the home page says what happened.
    if (id === me && role && !can(role, 'team')) return reply.redirect('/dashboard', 303);
    return back(reply);
  });

  kit.page(`${base}/:id/remove`, 'team', async (request, reply) => {
    const id = pathId(request);
    const member = (await team.list(signedIn(request).user.accountId)).members.find((m) => m.id === id);
    if (!member) throw new NotFoundError('User');
    return confirmRemovePage({ user: userFrame(request, reply), member });
  });

  app.post(`${base}/:id/remove`, { preHandler: kit.form('team') }, async (request, reply) => {
    const { accountId, id: me } = signedIn(request).user;
    const id = pathId(request);
    let removed = false;
    await flashOutcome(request, 'Not removed', async () => {
      const member = await team.remove(accountId, actor(request), id);
      removed = true;
      return `${member.email} is removed: their sessions have ended.`;
    });
    // Removing oneself signs one out: the session went with the user.
    if (removed && id === me) return reply.redirect('/dashboard', 303);
    return back(reply);
  });
}

function isRefusal(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'conflict' || code === 'forbidden' || code === 'service_unavailable';
}

function statusOf(err: unknown): number {
  const code = (err as { code?: string }).code;
  return code === 'conflict' ? 409 : code === 'forbidden' ? 403 : code === 'service_unavailable' ? 503 : 422;
}
