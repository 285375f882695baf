import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ValidationError } from '../platform/errors.js';
import { form, pathId } from '../dashboard/params.js';
import type { AdminDeps } from './deps.js';
import { accountPage, accountsPage } from './pages/accounts.page.js';
import type { OperatorFrame } from './pages/frame.js';
import { html as send, loadOperator, operatorOf, requireOperator, setFlash, takeFlash } from './session.js';

function frame(request: FastifyRequest, reply: FastifyReply): OperatorFrame {
  return { email: operatorOf(request).operator.email, csrf: reply.generateCsrf() };
}

// An end date from the form (YYYY-MM-DD, UTC midnight); empty: none.
function endDate(value: string | undefined): Date | null {
  const text = (value ?? '').trim();
  if (text === '') return null;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!d || d.getUTCDate() !== Number(m![3])) {
    throw new ValidationError([{ path: ['ends'], message: 'must be a date' }], 'The end must be a date');
  }
  return d;
}

// Runs an operator's change; its outcome is the next page's message. A refusal (an AppError other
// than not found) is said there too and changes nothing.
async function outcome(request: FastifyRequest, refused: string, action: () => Promise<string>) {
  try {
    setFlash(request, { kind: 'ok', text: await action() });
  } catch (err) {
    if (!(err instanceof AppError) || err.code === 'not_found') throw err;
    setFlash(request, { kind: 'error', text: `${refused}: ${err.message}` });
  }
}

export function adminAccountsRoutes(
  app: FastifyInstance,
  deps: AdminDeps,
  signInPage: (request: FastifyRequest, reply: FastifyReply) => unknown,
) {
  const desk = deps.services.operatorConsole;
  const signedIn = requireOperator(deps);
  const formGuard = { preHandler: [signedIn, app.csrfProtection] };
  const doer = (request: FastifyRequest) => operatorOf(request).doer;

  // /admin: the sign-in page signed out, the two-factor page half signed in, else the accounts.
  app.get('/', async (request, reply) => {
    const signed = await loadOperator(request, deps);
    if (!signed) return signInPage(request, reply);
    if (!signed.verified) return reply.redirect('/admin/two-factor', 303);
    const list = await desk.list(pageOf(request));
    return send(
      reply,
      accountsPage({
        operator: frame(request, reply),
        flash: takeFlash(request),
        ...list,
        plans: deps.plans,
      }),
    );
  });

  app.get('/accounts/:id', { preHandler: signedIn }, async (request, reply) => {
    const account = await desk.overview(pathId(request));
    return send(
      reply,
      accountPage({ operator: frame(request, reply), flash: takeFlash(request), account, plans: deps.plans }),
    );
  });

  app.post('/accounts', formGuard, async (request, reply) => {
    const fields = form(request);
    let created: string | undefined;
    await outcome(request, 'The account was not created', async () => {
      const account = await desk.createAccount(doer(request), {
        name: fields.name ?? '',
        plan: fields.plan ?? '',
      });
      created = account.id;
      return `Created the account ${account.name} on the ${account.plan} plan.`;
    });
    return reply.redirect(created ? `/admin/accounts/${created}` : '/admin', 303);
  });

  // The forms of one account: each answers with that account's page and its message.
  const actions: [string, string, (request: FastifyRequest, id: string) => Promise<string>][] = [
    [
      'plan',
      'The plan was not changed',
      async (request, id) => {
        const account = await desk.setPlan(doer(request), id, form(request).plan ?? '');
        return `The plan is now ${account.plan}.`;
      },
    ],
    [
      'contract',
      'The contract was not started',
      async (request, id) => {
        const endsAt = endDate(form(request).ends);
        await desk.startContract(doer(request), id, { endsAt });
        return 'A partner contract is in force from now.';
      },
    ],
    [
      'contract/end',
      'The contract was not ended',
      async (request, id) => {
        await desk.endContract(doer(request), id);
        return 'The partner contract has ended.';
      },
    ],
    [
      'suspend',
      'The account was not suspended',
      async (request, id) => {
        await desk.suspend(doer(request), id);
        return 'The account is suspended: its API keys answer 403 and its users cannot sign in.';
      },
    ],
    [
      'resume',
      'The account was not resumed',
      async (request, id) => {
        await desk.resume(doer(request), id);
        return 'The account is resumed.';
      },
    ],
  ];
  for (const [path, refused, action] of actions) {
    app.post(`/accounts/:id/${path}`, formGuard, async (request, reply) => {
      const id = pathId(request);
      await outcome(request, refused, () => action(request, id));
      return reply.redirect(`/admin/accounts/${id}`, 303);
    });
  }
}

// `?page=N`, 1 when absent; anything but a whole number from 1 to 100,000 is refused (422).
function pageOf(request: FastifyRequest): number {
  const raw = (request.query as { page?: unknown }).page;
  if (raw === undefined) return 1;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,5}$/.test(raw) || Number(raw) > 100_000)
    throw new ValidationError([{ path: ['page'], message: 'must be a whole number from 1' }], 'No such page');
  return Number(raw);
}
