import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Doer } from '../platform/principal.js';
import type { OperatorView } from '../modules/operators/operators.service.js';
import type { Flash } from '../dashboard/html.js';
import type { AdminDeps } from './deps.js';

// An operator's session ends after IDLE_MS without a request, and at the latest ABSOLUTE_MS after
// the password was given (shorter than an account user's: the console reaches every account).
export const IDLE_MS = 30 * 60 * 1000;
export const ABSOLUTE_MS = 8 * 60 * 60 * 1000;

declare module 'fastify' {
  interface Session {
    operatorId?: string;
    /** The password was right and the two-factor code too: the console is open. */
    operatorVerified?: boolean;
    operatorSignedInAt?: number;
    adminFlash?: Flash;
  }
  interface FastifyRequest {
    operator?: SignedInOperator;
  }
}

export interface SignedInOperator {
  operator: OperatorView;
  /** Two-factor passed; false: half signed in (only the code or set-up page is open). */
  verified: boolean;
  doer: Doer;
}

// The operator of the request, read once; undefined when signed out, past ABSOLUTE_MS, or when the
// operator no longer exists.
export async function loadOperator(
  request: FastifyRequest,
  deps: AdminDeps,
): Promise<SignedInOperator | undefined> {
  if (request.operator) return request.operator;
  const s = request.session;
  if (!s?.operatorId || !s.operatorSignedInAt) return undefined;
  if (deps.now().getTime() - s.operatorSignedInAt > ABSOLUTE_MS) {
    await s.destroy();
    return undefined;
  }
  const operator = await deps.services.operators.get(s.operatorId);
  if (!operator) {
    await s.destroy();
    return undefined;
  }
  request.operator = {
    operator,
    verified: s.operatorVerified === true && operator.twoFactor,
    doer: {
      actor: { type: 'operator', id: operator.id, label: operator.email },
      origin: { ip: request.ip, requestId: request.id },
    },
  };
  return request.operator;
}

// preHandler of every console page and form: signed out goes to the sign-in page, half signed in
// (no code yet) to the two-factor page. Nothing of the console runs before both.
export function requireOperator(deps: AdminDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signed = await loadOperator(request, deps);
    if (!signed) return reply.redirect('/admin', 303);
    if (!signed.verified) return reply.redirect('/admin/two-factor', 303);
  };
}

// preHandler of the two-factor page and form: the password was given, the code not yet.
export function requirePassword(deps: AdminDeps) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const signed = await loadOperator(request, deps);
    if (!signed) return reply.redirect('/admin', 303);
    if (signed.verified) return reply.redirect('/admin', 303);
  };
}

export function operatorOf(request: FastifyRequest): SignedInOperator {
  return request.operator!;
}

export function takeFlash(request: FastifyRequest): Flash | undefined {
  const flash = request.session.adminFlash;
  if (flash) delete request.session.adminFlash;
  return flash;
}

export function setFlash(request: FastifyRequest, flash: Flash) {
  request.session.adminFlash = flash;
}

export function html(reply: FastifyReply, body: string, status = 200) {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}
