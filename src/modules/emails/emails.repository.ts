import type { Queryable } from '../../platform/db/db.js';

export type SendStatus = 'queued' | 'sending' | 'sent' | 'failed';

export interface EmailSendRow {
  id: string;
  certificate_id: string;
  recipient_email: string;
  status: SendStatus;
  attempts: number;
  last_error: string | null;
  created_at: Date;
  sent_at: Date | null;
}

export const NOTIFY_CHANNEL = 'certsvc_email_sends';
const COLUMNS = 'id, certificate_id, recipient_email, status, attempts, last_error, created_at, sent_at';

// The send row is the job: inserted with the emailCount increment in the caller's transaction,
// and the workers are woken when it commits.
export async function enqueueSend(
  tx: Queryable,
  input: { id: string; accountId: string; certificateId: string; recipientEmail: string; now: Date },
): Promise<EmailSendRow> {
  await tx.query('UPDATE certificates SET email_count = email_count + 1 WHERE id = $1 AND account_id = $2', [
    input.certificateId,
    input.accountId,
  ]);
  const { rows } = await tx.query<EmailSendRow>(
    `INSERT INTO email_sends (id, account_id, certificate_id, recipient_email, status, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, 'queued', $5, $5) RETURNING ${COLUMNS}`,
    [input.id, input.accountId, input.certificateId, input.recipientEmail, input.now],
  );
  await tx.query(`SELECT pg_notify('${NOTIFY_CHANNEL}', '')`);
  return rows[0]!;
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

export interface Job {
  id: string;
  attempts: number;
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
  pdf: Buffer;
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
       RETURNING s.id, s.attempts, s.recipient_email, s.certificate_id
     )
     SELECT claimed.id, claimed.attempts, claimed.recipient_email, c.status AS certificate_status,
            c.recipient_name, c.unique_code, c.title, a.name AS issuer_name, p.pdf,
            c.issued_at, a.linkedin_organization_id, t.locale,
            EXISTS (SELECT 1 FROM credentials cr WHERE cr.certificate_id = c.id) AS has_credential
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
