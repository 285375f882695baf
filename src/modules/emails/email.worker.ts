import type { Logger } from 'pino';
import type pg from 'pg';
import type { Db } from '../../platform/db/db.js';
import * as repo from './emails.repository.js';
import { uuidv7 } from '../../platform/ids.js';
import { messageForJob } from './job-message.js';
import { mintClaimToken } from '../shared/claim-tokens.js';
import type { MailMessage } from './mail-message.js';
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
// Reminders queued per transaction.
const REMINDER_BATCH = 500;
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

// The options with their defaults.
function settingsOf(options: EmailWorkerOptions = {}) {
  return {
    batchSize: options.batchSize ?? 50,
    concurrency: options.concurrency ?? 10,
    leaseMs: options.leaseMs ?? 60_000,
    pollMs: options.pollMs ?? 1_000,
    retryScale: (options.retryBaseMs ?? BASE_DELAY_MS) / BASE_DELAY_MS,
    stopGraceMs: options.stopGraceMs ?? 10_000,
    reminderIntervalMs: options.reminderIntervalMs ?? 60_000,
  };
}

// A connection that LISTENs for new sends (enqueueSend's NOTIFY); none when it cannot: the worker
// then polls only.
async function listenForSends(db: Db, logger: Logger, onNotification: () => void) {
  let listener: pg.PoolClient | undefined;
  try {
    listener = await db.pool.connect();
    listener.on('notification', onNotification);
    listener.on('error', (err) =>
      logger.warn({ err }, 'email worker: notification connection lost; polling'),
    );
    await listener.query(`LISTEN ${repo.NOTIFY_CHANNEL}`);
  } catch (err) {
    logger.warn({ err }, 'email worker: LISTEN failed; polling only');
  }
  return listener;
}

// The email of a claimed send, or why it is not sent (the reason its row keeps).
function messageOrRefusal(
  job: repo.Job,
  service: { mailFrom: string; publicBaseUrl: string },
  claimToken?: string,
): MailMessage | string {
  if (job.attempts > MAX_ATTEMPTS) return `gave up after ${MAX_ATTEMPTS} attempts`;
  // Revoked after the send was accepted: a revoked certificate is never mailed out.
  if (job.certificate_status !== 'Issued') {
    return `not sent: the certificate was ${job.certificate_status.toLowerCase()} before delivery`;
  }
  try {
    return messageForJob(job, service, claimToken);
  } catch (err) {
    return `message not built: ${(err as Error).message}`;
  }
}

// The secret of the "Add to your wallet" link a send carries, minted as it is composed (every
// attempt, every resend: a new one; the token is never stored, only its hash): the certificate email
// to the stored address and the wallet link email, for an Issued certificate.
async function claimTokenFor(db: Db, job: repo.Job, at: Date): Promise<string | undefined> {
  if (job.attempts > MAX_ATTEMPTS || job.certificate_status !== 'Issued') return undefined;
  const wanted = job.kind === 'wallet_link' || (job.kind === 'certificate' && job.to_stored_address);
  return wanted ? mintClaimToken(db, job.certificate_id, at) : undefined;
}

// Due reminders become queued sends (emails.repository: scheduleReminders), a batch at a time.
async function queueDueReminders(db: Db, now: () => Date, stopped: () => boolean) {
  const at = now();
  const queueBatch = () =>
    db.transaction((tx) => repo.scheduleReminders(tx, { now: at, limit: REMINDER_BATCH, newId: uuidv7 }));
  while (!stopped() && (await queueBatch()) >= REMINDER_BATCH);
}

// Records a failed attempt: failed for good (a permanent refusal, or the last attempt), else due
// again after the backoff.
async function recordSendError(
  db: Db,
  job: repo.Job,
  err: unknown,
  how: { retryScale: number; logger: Logger; onOutcome?: (outcome: 'retry' | 'failed') => void },
) {
  const outcome = classifySendError(err);
  const delay = outcome.permanent ? null : nextAttemptDelayMs(job.attempts);
  if (delay === null) {
    await repo.markFailed(db, job, outcome.message);
    how.onOutcome?.('failed');
    how.logger.warn({ sendId: job.id, attempts: job.attempts, error: outcome.message }, 'email send failed');
  } else {
    await repo.markRetry(db, job, { error: outcome.message, delayMs: Math.round(delay * how.retryScale) });
    how.onOutcome?.('retry');
    how.logger.info(
      { sendId: job.id, attempts: job.attempts, error: outcome.message },
      'email send will be retried',
    );
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
  const { batchSize, concurrency, leaseMs, pollMs, retryScale, stopGraceMs, reminderIntervalMs } = settingsOf(
    deps.options,
  );
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

  async function deliver(job: repo.Job) {
    let claimToken: string | undefined;
    try {
      claimToken = await claimTokenFor(db, job, now());
    } catch (err) {
      await recordSendError(db, job, err, { retryScale, logger, onOutcome: deps.onOutcome });
      return;
    }
    const message = messageOrRefusal(job, deps, claimToken);
    if (typeof message === 'string') {
      await repo.markFailed(db, job, message);
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
      await recordSendError(db, job, err, { retryScale, logger, onOutcome: deps.onOutcome });
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

  async function queueReminders() {
    if (Date.now() - remindersAt < reminderIntervalMs) return;
    remindersAt = Date.now();
    await queueDueReminders(db, now, () => stopped).catch((err) =>
      logger.error({ err }, 'email worker: queueing reminders failed'),
    );
  }

  async function loop() {
    listener = await listenForSends(db, logger, () => {
      notified = true;
      wake?.();
    });
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
