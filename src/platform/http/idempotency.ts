import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CommitOutcomeUnknownError, type Db } from '../db/db.js';
import {
  AppError,
  ConflictError,
  ServiceUnavailableError,
  STATUS_BY_CODE,
  ValidationError,
} from '../errors.js';
import * as repo from './idempotency.repository.js';

// Idempotent retries (docs/api.md, Idempotent retries). The first request with a key claims it, then
// runs; its writes and its stored status and body commit in one transaction, opened only when the
// request first writes (after its PDFs are rendered), so they commit together or not at all. A
// retry with the same key, method, path and body gets the stored answer again; the same key on
// another request is a 422; the same key while the first still runs is a 409 (the claim).
// Because the stored answer commits with the effects, it also settles a COMMIT that went unanswered
// (settleUnknownCommit): a retry with the key finds the answer if, and only if, the effects exist.

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        '1 to 255 printable ASCII characters, scoped to the account and kept 24 hours. A retry with the same key, method, path ' +
        'and body gets the first answer again (with Idempotent-Replayed: true) and no new effect.',
    }),
  ),
});

export const REPLAYED_HEADER = {
  'Idempotent-Replayed': Type.String({
    description: '"true" when this answer is a replay of an earlier request',
  }),
};

const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;
// Outcomes of a request that ran; refusals before running (401, 403, 404, 422, 429) are not kept.
const STORED_ERRORS = new Set(['quota_exceeded', 'conflict']);

export interface Answer {
  status: number;
  body: unknown;
}

export async function answerIdempotently(
  request: FastifyRequest,
  reply: FastifyReply,
  db: Db,
  run: () => Promise<Answer>,
): Promise<FastifyReply> {
  const key = request.headers['idempotency-key'];
  if (key === undefined) {
    const answer = await run();
    return reply.code(answer.status).send(answer.body);
  }
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    throw new ValidationError([
      { path: ['Idempotency-Key'], message: 'must be 1 to 255 printable ASCII characters' },
    ]);
  }
  const accountId = request.principal!.accountId;
  const fingerprint = createHash('sha256')
    .update(`${request.method}\n${request.url.split('?')[0]}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');

  // A claim that vanishes between the two statements (its run just gave it back) is tried again.
  for (let attempt = 0; ; attempt++) {
    if (await repo.claimKey(db, { accountId, key, fingerprint })) break;
    const stored = await repo.findKey(db, accountId, key);
    if (!stored && attempt < 3) continue;
    if (!stored || stored.status_code === null) {
      throw new ConflictError('A request with this Idempotency-Key is still running');
    }
    if (stored.fingerprint !== fingerprint) {
      throw new ValidationError([
        { path: ['Idempotency-Key'], message: 'was already used with another method, path or body' },
      ]);
    }
    reply.header('Idempotent-Replayed', 'true');
    return reply.code(stored.status_code).send(stored.response_body);
  }

  let answer: Answer;
  try {
    answer = await db.ambient(
      async () => {
        try {
          return await run();
        } catch (err) {
          if (!(err instanceof AppError) || !STORED_ERRORS.has(err.code)) throw err;
          const error = err.details
            ? { code: err.code, message: err.message, details: err.details }
            : { code: err.code, message: err.message };
          return { status: STATUS_BY_CODE[err.code]!, body: { error } };
        }
      },
      (tx, done) => repo.storeAnswer(tx, { accountId, key, ...done }),
    );
  } catch (err) {
    if (err instanceof CommitOutcomeUnknownError) {
      answer = await settleUnknownCommit(request, db, { accountId, key, fingerprint }, err);
      return reply.code(answer.status).send(answer.body);
    }
    await repo
      .releaseKey(db, accountId, key)
      .catch((cause: unknown) => request.log.warn({ err: cause }, 'could not release an idempotency key'));
    throw err;
  }
  return reply.code(answer.status).send(answer.body);
}

// The COMMIT went unanswered: ask on a fresh connection. The uncommitted transaction holds the row
// lock of the key (it stored the answer), so releasing the claim waits for it to end: a claim still
// without an answer is then proof that nothing committed (it is given back, the answer is "nothing
// was changed"), a stored answer proof that everything did (it is the answer). When the database
// cannot be asked, the outcome stays unknown and the claim stays; a retry with the key after the
// database is back gets the stored answer, or a 409 until the claim's lease runs out.
async function settleUnknownCommit(
  request: FastifyRequest,
  db: Db,
  claim: { accountId: string; key: string; fingerprint: string },
  err: CommitOutcomeUnknownError,
): Promise<Answer> {
  let stored: repo.StoredKey | undefined;
  try {
    if (await repo.releaseKey(db, claim.accountId, claim.key)) {
      throw new ServiceUnavailableError('database', 2, 'unchanged');
    }
    stored = await repo.findKey(db, claim.accountId, claim.key);
  } catch (cause) {
    if (cause instanceof ServiceUnavailableError) throw cause;
    request.log.warn({ err: cause }, 'could not learn whether an unanswered COMMIT committed');
  }
  if (stored?.status_code == null || stored.fingerprint !== claim.fingerprint) throw err;
  request.log.warn('an unanswered COMMIT had committed; answering with its stored answer');
  return { status: stored.status_code, body: stored.response_body };
}

// Stored answers are kept 24 hours; the server purges older ones at start and then hourly.
export async function purgeExpiredIdempotencyKeys(db: Pick<Db, 'query'>): Promise<number> {
  return repo.purgeExpiredKeys(db);
}
