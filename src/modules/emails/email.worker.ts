import type { Logger } from 'pino';
import type pg from 'pg';
import type { Db } from '../../platform/db/db.js';
import { verificationUrl } from '../shared/certificate-links.js';
import * as repo from './emails.repository.js';
import { uuidv7 } from '../../platform/ids.js';
import { buildCertificateMessage, sendMessageId } from './mail-message.js';
import { buildReminderMessage } from './reminder-message.js';
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
  /** How long stop() lets sends in flight finish before it cuts them off (default 10 s). */
  stopGraceMs?: number;
  /** How often due renewal reminders are queued (default 60 s). */
  reminderIntervalMs?: number;
}

export interface EmailWorker {
  /**
   * Stops claiming, gives the claimed sends not yet started back to the queue at once, lets the
   * sends in flight finish for up to `graceMs` (default: the stopGraceMs option), then cuts their
   * connections and gives them back too. Other workers are woken and take the released sends right
   * away. Resolves within about `graceMs` plus a second and a few queries, even if SMTP hangs.
   */
  stop(opts?: { graceMs?: number }): Promise<void>;
}

// After the grace, cut connections make their sends fail within moments; this bounds the wait for it.
const ABANDON_WAIT_MS = 1_000;
const INTERRUPTED = 'interrupted: the worker stopped during delivery; it will be sent again';

/** Resolves true when `p` settles within `ms`, false otherwise. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([p.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// Delivers queued sends: claims due jobs with a lease (FOR UPDATE SKIP LOCKED), wakes on
// LISTEN/NOTIFY or polling, records each attempt, retries transient failures with backoff.
// Every attempt of a send carries the same Message-ID (sendMessageId), so a message that reached the
// server before the connection dropped, and is then sent again, can be recognised as a duplicate.
export function startEmailWorker(deps: {
  db: Db;
  transport: MailTransport;
  mailFrom: string;
  publicBaseUrl: string;
  logger: Logger;
  options?: EmailWorkerOptions;
  /** The service's clock, which says when renewal reminders fall due. */
  now?: () => Date;
  /** Told the outcome of each delivery attempt (metrics). */
  onOutcome?: (outcome: 'sent' | 'retry' | 'failed') => void;
}): EmailWorker {
  const { db, logger } = deps;
  const batchSize = deps.options?.batchSize ?? 50;
  const concurrency = deps.options?.concurrency ?? 10;
  const leaseMs = deps.options?.leaseMs ?? 60_000;
  const pollMs = deps.options?.pollMs ?? 1_000;
  const retryScale = (deps.options?.retryBaseMs ?? BASE_DELAY_MS) / BASE_DELAY_MS;
  const stopGraceMs = deps.options?.stopGraceMs ?? 10_000;
  const reminderIntervalMs = deps.options?.reminderIntervalMs ?? 60_000;
  const now = deps.now ?? (() => new Date());
  let remindersAt = 0;

  let stopped = false;
  // Cut off by stop(): a send that fails now goes straight back to the queue for another worker.
  let abandoning = false;
  // Claimed jobs no lane has started, and jobs being delivered: what a stopping worker gives back.
  const pending: repo.Job[] = [];
  const inFlight = new Map<string, repo.Job>();
  let wake: (() => void) | undefined;
  // A notification that came while claiming or delivering: the next sleep must not wait for a poll.
  let notified = false;
  let listener: pg.PoolClient | undefined;

  function sleep(ms: number): Promise<void> {
    if (notified) return Promise.resolve();
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
      listener.on('notification', () => {
        notified = true;
        wake?.();
      });
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
      const basics = {
        messageId: sendMessageId(job.id, deps.mailFrom),
        from: deps.mailFrom,
        to: job.recipient_email,
        recipientName: job.recipient_name,
        title: job.title,
        issuerName: job.issuer_name,
        verificationUrl: verificationUrl(deps.publicBaseUrl, job.unique_code),
        uniqueCode: job.unique_code,
        locale: job.locale,
      };
      message =
        job.kind === 'reminder' && job.expires_at
          ? buildReminderMessage({ ...basics, expiresAt: job.expires_at, renewalUrl: job.renewal_url })
          : buildCertificateMessage({
              ...basics,
              credentialUrl: job.has_credential
                ? `${deps.publicBaseUrl}/api/v1/verify/${job.unique_code}/credential`
                : undefined,
              issuedAt: job.issued_at ? job.issued_at.toISOString() : undefined,
              expiresAt: job.expires_at?.toISOString() ?? null,
              linkedinOrganizationId: job.linkedin_organization_id,
              pdf: job.pdf!, // read for every send but a reminder (emails.repository claim)
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
      if (abandoning) {
        await repo.releaseJobs(db, [job], { attempted: true, error: INTERRUPTED });
        return;
      }
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

  async function releaseUnstarted() {
    const jobs = pending.splice(0);
    await repo
      .releaseJobs(db, jobs, { attempted: false })
      .catch((err) =>
        logger.error({ err }, 'email worker: claimed sends not released; their lease will run out'),
      );
  }

  async function runAll(jobs: repo.Job[]) {
    pending.push(...jobs);
    const lanes = Array.from({ length: Math.min(concurrency, jobs.length) }, async () => {
      for (let job = pending.shift(); job; job = pending.shift()) {
        inFlight.set(job.id, job);
        await deliver(job).catch((err) =>
          logger.error({ err, sendId: job!.id }, 'email worker: outcome not recorded'),
        );
        inFlight.delete(job.id);
      }
    });
    await Promise.all(lanes);
  }

  // Due reminders become queued sends (emails.repository: scheduleReminders), a batch at a time.
  async function queueReminders() {
    if (Date.now() - remindersAt < reminderIntervalMs) return;
    remindersAt = Date.now();
    try {
      const at = now();
      while (
        !stopped &&
        (await db.transaction((tx) => repo.scheduleReminders(tx, { now: at, limit: 500, newId: uuidv7 }))) >=
          500
      );
    } catch (err) {
      logger.error({ err }, 'email worker: queueing reminders failed');
    }
  }

  async function loop() {
    await listen();
    while (!stopped) {
      notified = false;
      await queueReminders();
      try {
        const jobs = await repo.claimJobs(db, { limit: batchSize, leaseMs });
        if (stopped) {
          // stop() came while claiming: these were never started.
          pending.push(...jobs);
          await releaseUnstarted();
        } else if (jobs.length > 0) {
          await runAll(jobs);
          continue;
        }
      } catch (err) {
        logger.error({ err }, 'email worker: claiming failed');
      }
      if (!stopped) await sleep(pollMs);
    }
  }

  async function shutDown(graceMs: number) {
    stopped = true;
    wake?.();
    await releaseUnstarted();
    if (!(await settlesWithin(running, graceMs))) {
      abandoning = true;
      deps.transport.abort();
      await settlesWithin(running, ABANDON_WAIT_MS);
    }
    // Sends whose attempt did not end even after their connections were cut.
    const stuck = [...inFlight.values()];
    inFlight.clear();
    await repo
      .releaseJobs(db, stuck, { attempted: true, error: INTERRUPTED })
      .catch((err) =>
        logger.error({ err }, 'email worker: sends in flight not released; their lease will run out'),
      );
    if (listener) {
      await listener.query(`UNLISTEN ${repo.NOTIFY_CHANNEL}`).catch(() => undefined);
      listener.release();
    }
  }

  const running = loop();
  let stopping: Promise<void> | undefined;
  return {
    stop(opts) {
      stopping ??= shutDown(opts?.graceMs ?? stopGraceMs);
      return stopping;
    },
  };
}
