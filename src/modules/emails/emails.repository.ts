import type { Queryable } from '../../platform/db/db.js';

import { reminderPlan } from '../shared/reminders.js';

export type SendStatus = 'queued' | 'sending' | 'sent' | 'failed';
export type SendKind = 'certificate' | 'reminder' | 'wallet_link';

export interface EmailSendRow {
  id: string;
  certificate_id: string;
  recipient_email: string;
  kind: SendKind;
  remind_days: number | null;
  status: SendStatus;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

export const NOTIFY_CHANNEL = 'certsvc_email_sends';
const COLUMNS =
  'id, certificate_id, recipient_email, kind, remind_days, status, attempts, last_error, created_at, sent_at';

// The send row is the job: inserted with the emailCount increment in the caller's transaction,
// and the workers are woken when it commits.
export async function enqueueSend(
  tx: Queryable,
  input: {
    id: string;
    accountId: string;
    certificateId: string;
    recipientEmail: string;
    now: Date;
    /** 'wallet_link': "Email me the wallet link" (the verification page); default 'certificate'. */
    kind?: 'certificate' | 'wallet_link';
  },
): Promise<EmailSendRow> {
  await tx.query('UPDATE certificates SET email_count = email_count + 1 WHERE id = $1 AND account_id = $2', [
    input.certificateId,
    input.accountId,
  ]);
  const { rows } = await tx.query<EmailSendRow>(
    `INSERT INTO email_sends (id, account_id, certificate_id, recipient_email, status, next_attempt_at, created_at, kind)
     VALUES ($1, $2, $3, $4, 'queued', $5, $5, $6) RETURNING ${COLUMNS}`,
    [
      input.id,
      input.accountId,
      input.certificateId,
      input.recipientEmail,
      input.now,
      input.kind ?? 'certificate',
    ],
  );
  await tx.query(`SELECT pg_notify('${NOTIFY_CHANNEL}', '')`);
  return rows[0]!;
}

// The certificate emails of certificates being issued from a template with emailOnIssue, in the
// issue's transaction: one statement whatever the batch (the certificates were inserted with
// emailCount 1), and the workers woken when it commits.
export async function enqueueIssued(
  tx: Queryable,
  input: { accountId: string; now: Date; sends: { id: string; certificateId: string; email: string }[] },
): Promise<void> {
  if (input.sends.length === 0) return;
  await tx.query(
    `WITH s AS (
       INSERT INTO email_sends (id, account_id, certificate_id, recipient_email, status, next_attempt_at, created_at)
       SELECT u.id, $1, u.certificate_id, u.email, 'queued', $2, $2
         FROM unnest($3::uuid[], $4::uuid[], $5::text[]) AS u(id, certificate_id, email)
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM s) AS n, pg_notify('${NOTIFY_CHANNEL}', '')`,
    [
      input.accountId,
      input.now,
      input.sends.map((s) => s.id),
      input.sends.map((s) => s.certificateId),
      input.sends.map((s) => s.email),
    ],
  );
}

// Queues the certificate email of each of these certificates that is Issued (others are skipped),
// each counted in emailCount, with one statement. Returns how many were queued.
export async function enqueueMany(
  tx: Queryable,
  input: { accountId: string; now: Date; certificateIds: string[]; sendIds: string[] },
): Promise<string[]> {
  if (input.certificateIds.length === 0) return [];
  const { rows } = await tx.query<{ ids: string[] }>(
    `WITH c AS (
       UPDATE certificates SET email_count = email_count + 1
        WHERE account_id = $1 AND id = ANY($3::uuid[]) AND status = 'Issued'
       RETURNING id, recipient_email
     ), s AS (
       INSERT INTO email_sends (id, account_id, certificate_id, recipient_email, status, next_attempt_at, created_at)
       SELECT u.send_id, $1, c.id, c.recipient_email, 'queued', $2, $2
         FROM c JOIN unnest($3::uuid[], $4::uuid[]) AS u(certificate_id, send_id) ON u.certificate_id = c.id
       RETURNING certificate_id
     )
     SELECT COALESCE((SELECT array_agg(certificate_id::text) FROM s), '{}') AS ids, pg_notify('${NOTIFY_CHANNEL}', '')`,
    [input.accountId, input.now, input.certificateIds, input.sendIds],
  );
  return rows[0]!.ids;
}

export async function listSends(
  db: Queryable,
  accountId: string,
  certificateId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: EmailSendRow[]; total: number }> {
  const [list, count] = await Promise.all([
    db.query<EmailSendRow>(
      `SELECT ${COLUMNS} FROM email_sends WHERE account_id = $1 AND certificate_id = $2
        ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
      [accountId, certificateId, page.limit, page.offset],
    ),
    // Every send row is inserted together with this increment (enqueueSend), so it is the exact total.
    db.query<{ n: number }>(
      'SELECT coalesce(max(email_count), 0) AS n FROM certificates WHERE account_id = $1 AND id = $2',
      [accountId, certificateId],
    ),
  ]);
  return { rows: list.rows, total: count.rows[0]!.n };
}

/**
 * Queues the renewal reminders due at `now` (up to `limit` certificates), in one transaction: the
 * certificates are locked (SKIP LOCKED: workers side by side take different ones), each gets a send
 * of its due reminder (the latest, when a worker was down past several) counted in emailCount, and
 * its next reminder is moved on. Revoked certificates have none (revocation clears them). Returns
 * how many certificates it took (`limit`: there may be more).
 */
export async function scheduleReminders(
  tx: Queryable,
  input: { now: Date; limit: number; newId: () => string },
): Promise<number> {
  const { rows } = await tx.query<{
    id: string;
    account_id: string;
    recipient_email: string;
    reminders: number[];
    expires_at: Date;
  }>(
    `SELECT id, account_id, recipient_email, reminders, expires_at FROM certificates
      WHERE next_reminder_at <= $1 AND status = 'Issued'
      ORDER BY next_reminder_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [input.now, input.limit],
  );
  if (rows.length === 0) return 0;
  const sends: { row: (typeof rows)[number]; days: number }[] = [];
  const next = rows.map((row) => {
    const plan = reminderPlan(row.expires_at, row.reminders ?? [], input.now);
    const [days, ...rest] = plan.reminders;
    // Due now (or overtaken by it): send; what remains falls due later. Past the expiry: nothing.
    if (days !== undefined && plan.nextAt!.getTime() <= input.now.getTime()) {
      sends.push({ row, days });
      return {
        id: row.id,
        reminders: rest,
        nextAt: rest.length > 0 ? reminderPlan(row.expires_at, rest, input.now).nextAt : null,
      };
    }
    return { id: row.id, reminders: plan.reminders, nextAt: plan.nextAt };
  });
  await tx.query(
    `UPDATE certificates c SET reminders = u.reminders::integer[], next_reminder_at = u.next_at
       FROM unnest($1::uuid[], $2::text[], $3::timestamptz[]) AS u(id, reminders, next_at)
      WHERE c.id = u.id`,
    [
      next.map((n) => n.id),
      next.map((n) => (n.reminders.length > 0 ? `{${n.reminders.join(',')}}` : null)),
      next.map((n) => n.nextAt),
    ],
  );
  if (sends.length === 0) return rows.length;
  // Due at once by the database's clock, which the claim reads; created at the service's.
  const { rows: queued } = await tx.query<{ certificate_id: string }>(
    `INSERT INTO email_sends (id, account_id, certificate_id, recipient_email, status, next_attempt_at, created_at, kind, remind_days)
     SELECT u.id, u.account_id, u.certificate_id, u.email, 'queued', now(), $6, 'reminder', u.days
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::int[]) AS u(id, account_id, certificate_id, email, days)
     ON CONFLICT DO NOTHING
     RETURNING certificate_id`,
    [
      sends.map(() => input.newId()),
      sends.map((s) => s.row.account_id),
      sends.map((s) => s.row.id),
      sends.map((s) => s.row.recipient_email),
      sends.map((s) => s.days),
      input.now,
    ],
  );
  if (queued.length === 0) return rows.length;
  await tx.query('UPDATE certificates SET email_count = email_count + 1 WHERE id = ANY($1::uuid[])', [
    queued.map((q) => q.certificate_id),
  ]);
  await tx.query(`SELECT pg_notify('${NOTIFY_CHANNEL}', '')`);
  return rows.length;
}

export interface Job {
  id: string;
  certificate_id: string;
  /** Whether the send goes to the certificate's stored address (only then does it carry a wallet link). */
  to_stored_address: boolean;
  attempts: number;
  kind: SendKind;
  remind_days: number | null;
  expires_at: Date | null;
  renewal_url: string | null;
  certificate_status: string;
  recipient_email: string;
  recipient_name: string;
  unique_code: string;
  has_credential: boolean;
  title: string;
  issuer_name: string;
  issued_at: Date;
  linkedin_organization_id: string | null;
  locale: string | null;
  /** Null for a reminder (it attaches nothing). */
  pdf: Buffer | null;
}

// Claims due jobs with a lease. SKIP LOCKED lets several workers claim side by side without
// taking the same row; a job whose lease ran out (its worker died) is due again.
export async function claimJobs(db: Queryable, input: { limit: number; leaseMs: number }): Promise<Job[]> {
  const { rows } = await db.query<Job>(
    `WITH due AS (
       SELECT id FROM email_sends
        WHERE (status = 'queued' AND next_attempt_at <= now()) OR (status = 'sending' AND lease_until < now())
        ORDER BY next_attempt_at
        LIMIT $1
        FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE email_sends s SET status = 'sending', attempts = s.attempts + 1,
              lease_until = now() + make_interval(secs => $2::double precision / 1000)
         FROM due WHERE s.id = due.id
       RETURNING s.id, s.attempts, s.recipient_email, s.certificate_id, s.kind, s.remind_days
     )
     SELECT claimed.id, claimed.certificate_id, claimed.attempts, claimed.recipient_email, c.status AS certificate_status,
            lower(claimed.recipient_email) = lower(c.recipient_email) AS to_stored_address,
            c.recipient_name, c.unique_code, c.title,
            -- The name the certificate was issued under (frozen, as on its PDF and credential);
            -- certificates from before names were frozen take the account's.
            COALESCE(c.issuer_name, a.name) AS issuer_name,
            c.issued_at, a.linkedin_organization_id, t.locale,
            EXISTS (SELECT 1 FROM credentials cr WHERE cr.certificate_id = c.id) AS has_credential,
            claimed.kind, claimed.remind_days, c.expires_at,
            -- Read for reminders only: a design carries its images inline, and detoasting it for
            -- every certificate email would cost megabytes per job.
            CASE WHEN claimed.kind = 'reminder'
                 THEN (SELECT t.design->>'renewalUrl' FROM templates t WHERE t.id = c.template_id) END AS renewal_url,
            -- The PDF only for what attaches it: a reminder does not (email.worker.ts, deliver).
            CASE WHEN (claimed.kind = 'reminder' AND c.expires_at IS NOT NULL) OR claimed.kind = 'wallet_link'
                 THEN NULL ELSE p.pdf END AS pdf
       FROM claimed
       JOIN certificates c ON c.id = claimed.certificate_id
       JOIN accounts a ON a.id = c.account_id
       JOIN templates t ON t.id = c.template_id
       JOIN certificate_pdfs p ON p.certificate_id = c.id`,
    [input.limit, input.leaseMs],
  );
  return rows;
}

// Outcomes are written only while the job is still ours (status sending, same attempt).
export async function markSent(db: Queryable, job: { id: string; attempts: number }): Promise<void> {
  await db.query(
    `UPDATE email_sends SET status = 'sent', sent_at = now(), last_error = NULL, lease_until = NULL
      WHERE id = $1 AND status = 'sending' AND attempts = $2`,
    [job.id, job.attempts],
  );
}

export async function markRetry(
  db: Queryable,
  job: { id: string; attempts: number },
  input: { error: string; delayMs: number },
): Promise<void> {
  await db.query(
    `UPDATE email_sends SET status = 'queued', last_error = $3, lease_until = NULL,
            next_attempt_at = now() + make_interval(secs => $4::double precision / 1000)
      WHERE id = $1 AND status = 'sending' AND attempts = $2`,
    [job.id, job.attempts, input.error, input.delayMs],
  );
}

export async function markFailed(
  db: Queryable,
  job: { id: string; attempts: number },
  error: string,
): Promise<void> {
  await db.query(
    `UPDATE email_sends SET status = 'failed', last_error = $3, lease_until = NULL
      WHERE id = $1 AND status = 'sending' AND attempts = $2`,
    [job.id, job.attempts, error],
  );
}

// Sends waiting for delivery (queued, or claimed and not yet settled) and the age of the oldest,
// for the metrics; the partial index on pending sends keeps this cheap whatever the history.
export async function queueStats(db: Queryable): Promise<{ depth: number; oldestAgeS: number }> {
  const { rows } = await db.query<{ depth: number; oldest_age_s: number | null }>(
    `SELECT count(*)::int AS depth, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest_age_s
       FROM email_sends WHERE status IN ('queued', 'sending')`,
  );
  return { depth: rows[0]!.depth, oldestAgeS: rows[0]!.oldest_age_s ?? 0 };
}

/**
 * Gives claimed jobs back to the queue at once, for a worker that stops: due now, lease cleared, and
 * the other workers woken, so they take the jobs without waiting for the lease to run out. A job that
 * was never attempted gets its attempt back; an interrupted one keeps it and says why.
 */
export async function releaseJobs(
  db: Queryable,
  jobs: { id: string; attempts: number }[],
  input: { attempted: false } | { attempted: true; error: string },
): Promise<void> {
  if (jobs.length === 0) return;
  await db.query(
    `UPDATE email_sends s SET status = 'queued', lease_until = NULL, next_attempt_at = now(),
            attempts = s.attempts - $3::int, last_error = coalesce($4, s.last_error)
       FROM unnest($1::uuid[], $2::int[]) AS j(id, attempts)
      WHERE s.id = j.id AND s.status = 'sending' AND s.attempts = j.attempts`,
    [
      jobs.map((j) => j.id),
      jobs.map((j) => j.attempts),
      input.attempted ? 0 : 1,
      input.attempted ? input.error : null,
    ],
  );
  await db.query(`SELECT pg_notify('${NOTIFY_CHANNEL}', '')`);
}
