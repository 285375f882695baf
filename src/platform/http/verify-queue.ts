import { performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ServiceUnavailableError } from '../errors.js';

// Public verifications take turns with the rest of the main thread (issue 34, docs/operations.md,
// "A verification flood"). Answered from memory, a verification never waits for I/O, so without
// turns a flood of them fills every pass of the event loop and each step of an issue (its key, its
// statements, the PDF thread's answer) waits behind dozens of them. Here:
// - at most VERIFY_TURN verifications start per turn of the event loop; the others wait in a FIFO
//   queue, served VERIFY_TURN at a time between the loop's passes over I/O (setImmediate);
// - while any other request is in flight, verifications get at most about half of the main
//   thread's time: a turn starts no sooner than the time the verifications since the last turn
//   took (counted from each one's start to its answer) has passed again, at most MAX_PAUSE_MS, so
//   that the rest (and the PDF threads and PostgreSQL on the same cores) keep theirs;
// - a verification that finds `max` waiting is refused at once with 503 and Retry-After.
// Alone, verifications are served as fast as before: the turns only cut the loop's passes shorter.

export const VERIFY_TURN = 8;
const RETRY_AFTER_S = 1;
// A verification that missed the cache counts its wait for PostgreSQL as well: the pause it earns
// is capped, so that one slow read does not hold the queue for long.
const MAX_PAUSE_MS = 20;

export function installVerifyQueue(app: FastifyInstance, opts: { max: number }) {
  const waiting: HookHandlerDoneFunction[] = [];
  let started = 0; // verifications started since the last turn
  let scheduled = false;
  let others = 0; // requests other than verifications in flight
  let busyMs = 0; // time the verifications since the last turn took
  let lastAnswerAt = 0;
  let turnAt = 0;
  const begunAt = new WeakMap<FastifyRequest, number>();

  function turn() {
    scheduled = false;
    const now = performance.now();
    const due = turnAt + busyMs + Math.min(busyMs, MAX_PAUSE_MS);
    if (others > 0 && now < due) {
      started = VERIFY_TURN; // until then, new verifications queue behind the waiting ones
      schedule(due - now);
      return;
    }
    turnAt = now;
    busyMs = 0;
    started = 0;
    while (started < VERIFY_TURN && waiting.length > 0) {
      started++;
      waiting.shift()!();
    }
    if (started > 0) schedule(0);
  }

  function schedule(ms: number) {
    if (scheduled) return;
    scheduled = true;
    if (ms > 0) setTimeout(turn, Math.ceil(ms));
    else setImmediate(turn);
  }

  function gate(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
    begunAt.set(request, performance.now());
    if (waiting.length === 0 && started < VERIFY_TURN) {
      started++;
      schedule(0);
      done();
      return;
    }
    if (waiting.length >= opts.max) {
      done(new ServiceUnavailableError('verification queue', RETRY_AFTER_S));
      return;
    }
    waiting.push(() => {
      begunAt.set(request, performance.now());
      done();
    });
    schedule(0);
  }

  // The time from a verification's start (or the previous answer, when they overlap) to its answer.
  function answered(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
    const now = performance.now();
    const begun = begunAt.get(request);
    if (begun !== undefined) busyMs += now - Math.max(begun, lastAnswerAt);
    lastAnswerAt = now;
    done();
  }

  // Other requests in flight: counted until their connection is done with them (answered or gone).
  function other(_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    others++;
    reply.raw.once('close', () => others--);
    done();
  }

  app.addHook('onRoute', (route) => {
    const verify = (route.config as { access?: { kind?: string } } | undefined)?.access?.kind === 'verify';
    const hooks = verify ? { onRequest: gate, onResponse: answered } : { onRequest: other };
    for (const [name, hook] of Object.entries(hooks)) {
      const existing = route[name as 'onRequest'];
      route[name as 'onRequest'] = [
        ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing]),
        hook as never,
      ];
    }
  });
}
