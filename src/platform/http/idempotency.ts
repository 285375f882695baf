import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Db } from '../db/db.js';
import { AppError, ConflictError, STATUS_BY_CODE, ValidationError } from '../errors.js';

// Idempotent retries (decisions 17). The first request with a key runs inside one transaction that
// also stores its status and body, so the effects and the stored answer commit together or not at
// all. A retry with the same key, method, path and body gets the stored answer again; the same key
// on another request is a 422; the same key while the first still runs is a 409 (advisory lock).

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

  const outcome = await db.ambient(async (tx) => {
    const lock = await tx.query<{ ok: boolean }>(
      'SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ok',
      [`${accountId}:${key}`],
    );
    if (!lock.rows[0]!.ok) throw new ConflictError('A request with this Idempotency-Key is still running');
    await tx.query(
      `DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND created_at < now() - interval '24 hours'`,
      [accountId, key],
    );
    const { rows } = await tx.query<{ fingerprint: string; status_code: number; response_body: unknown }>(
      'SELECT fingerprint, status_code, response_body FROM idempotency_keys WHERE account_id = $1 AND key = $2',
      [accountId, key],
    );
    const stored = rows[0];
    if (stored) {
      if (stored.fingerprint !== fingerprint) {
        throw new ValidationError([
          { path: ['Idempotency-Key'], message: 'was already used with another method, path or body' },
        ]);
      }
      return {
        commit: false,
        value: { replayed: true, status: stored.status_code, body: stored.response_body },
      };
    }
    let answer: Answer;
    try {
      answer = await run();
    } catch (err) {
      if (!(err instanceof AppError) || !STORED_ERRORS.has(err.code)) throw err;
      const error = err.details
        ? { code: err.code, message: err.message, details: err.details }
        : { code: err.code, message: err.message };
      answer = { status: STATUS_BY_CODE[err.code]!, body: { error } };
    }
    await tx.query(
      `INSERT INTO idempotency_keys (account_id, key, fingerprint, status_code, response_body) VALUES ($1, $2, $3, $4, $5)`,
      [accountId, key, fingerprint, answer.status, JSON.stringify(answer.body)],
    );
    return { commit: true, value: { replayed: false, ...answer } };
  });
  if (outcome.replayed) reply.header('Idempotent-Replayed', 'true');
  return reply.code(outcome.status).send(outcome.body);
}

// Stored answers are kept 24 hours; the server purges older ones at start and then hourly.
export async function purgeExpiredIdempotencyKeys(db: Pick<Db, 'query'>): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`,
  );
  return rowCount ?? 0;
}
