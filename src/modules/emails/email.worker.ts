import type { Logger } from 'pino';
import type pg from 'pg';
import type { Db } from '../../platform/db/db.js';
import { verificationUrl } from '../certificates/certificate.view.js';
import * as repo from './emails.repository.js';
import { buildCertificateMessage } from './mail-message.js';
import { classifySendError, type MailTransport } from './mail-transport.js';
import { BASE_DELAY_MS, MAX_ATTEMPTS, nextAttemptDelayMs } from './retry-policy.js';

export interface EmailWorkerOptions {
  /** Jobs claimed per round trip. */
  batchSize?: number;
  /** Messages in flight at once. */
  concurrency?: number;
  /** A claimed job returns to the queue after this long if its worker died. */
  leaseMs?: number;
  /** Polling interval when no notification arrives (retries fall due by time). */
  pollMs?: number;
  /** First retry delay; later ones double (with jitter). */
  retryBaseMs?: number;
}

export interface EmailWorker {
  stop(): Promise<void>;
}

// Delivers queued sends: claims due jobs with a lease (FOR UPDATE SKIP LOCKED), wakes on
// LISTEN/NOTIFY or polling, records each attempt, retries transient failures with backoff.
export function startEmailWorker(deps: {
  db: Db;
  transport: MailTransport;
  mailFrom: string;
  publicBaseUrl: string;
  logger: Logger;
  options?: EmailWorkerOptions;
  /** Told the outcome of each delivery attempt (metrics). */
  onOutcome?: (outcome: 'sent' | 'retry' | 'failed') => void;
}): EmailWorker {
  const { db, logger } = deps;
  const batchSize = deps.options?.batchSize ?? 50;
  const concurrency = deps.options?.concurrency ?? 10;
  const leaseMs = deps.options?.leaseMs ?? 60_000;
  const pollMs = deps.options?.pollMs ?? 1_000;
  const retryScale = (deps.options?.retryBaseMs ?? BASE_DELAY_MS) / BASE_DELAY_MS;

  let stopped = false;
  let wake: (() => void) | undefined;
  let listener: pg.PoolClient | undefined;

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      }
      wake = done;
    });
  }

  async function listen() {
    try {
      listener = await db.pool.connect();
      listener.on('notification', () => wake?.());
      listener.on('error', (err) =>
        logger.warn({ err }, 'email worker: notification connection lost; polling'),
      );
      await listener.query(`LISTEN ${repo.NOTIFY_CHANNEL}`);
    } catch (err) {
      logger.warn({ err }, 'email worker: LISTEN failed; polling only');
    }
  }

  async function deliver(job: repo.Job) {
    if (job.attempts > MAX_ATTEMPTS) {
      await repo.markFailed(db, job, `gave up after ${MAX_ATTEMPTS} attempts`);
      return;
    }
    if (job.certificate_status !== 'Issued') {
      // Revoked after the send was accepted: a revoked certificate is never mailed out.
      await repo.markFailed(
        db,
        job,
        `not sent: the certificate was ${job.certificate_status.toLowerCase()} before delivery`,
      );
      return;
    }
    let message;
    try {
      message = buildCertificateMessage({
        from: deps.mailFrom,
        to: job.recipient_email,
        recipientName: job.recipient_name,
        title: job.title,
        issuerName: job.issuer_name,
        verificationUrl: verificationUrl(deps.publicBaseUrl, job.unique_code),
        uniqueCode: job.unique_code,
        pdf: job.pdf,
      });
    } catch (err) {
      await repo.markFailed(db, job, `message not built: ${(err as Error).message}`);
      return;
    }
    try {
      await deps.transport.send(message);
      await repo.markSent(db, job);
      deps.onOutcome?.('sent');
    } catch (err) {
      const outcome = classifySendError(err);
      const delay = outcome.permanent ? null : nextAttemptDelayMs(job.attempts);
      if (delay === null) {
        await repo.markFailed(db, job, outcome.message);
        deps.onOutcome?.('failed');
        logger.warn({ sendId: job.id, attempts: job.attempts, error: outcome.message }, 'email send failed');
      } else {
        await repo.markRetry(db, job, { error: outcome.message, delayMs: Math.round(delay * retryScale) });
        deps.onOutcome?.('retry');
        logger.info(
          { sendId: job.id, attempts: job.attempts, error: outcome.message },
          'email send will be retried',
        );
      }
    }
  }

  async function runAll(jobs: repo.Job[]) {
    let next = 0;
    const lanes = Array.from({ length: Math.min(concurrency, jobs.length) }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++]!;
        await deliver(job).catch((err) =>
          logger.error({ err, sendId: job.id }, 'email worker: outcome not recorded'),
        );
      }
    });
    await Promise.all(lanes);
  }

  async function loop() {
    await listen();
    while (!stopped) {
      try {
        const jobs = await repo.claimJobs(db, { limit: batchSize, leaseMs });
        if (jobs.length > 0) {
          await runAll(jobs);
          continue;
        }
      } catch (err) {
        logger.error({ err }, 'email worker: claiming failed');
      }
      if (!stopped) await sleep(pollMs);
    }
  }

  const running = loop();
  return {
    async stop() {
      stopped = true;
      wake?.();
      await running;
      if (listener) {
        await listener.query(`UNLISTEN ${repo.NOTIFY_CHANNEL}`).catch(() => undefined);
        listener.release();
      }
    },
  };
}
