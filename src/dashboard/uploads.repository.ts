import type { Queryable } from '../platform/db/db.js';
import type { RowResult } from './csv-batch.js';

export interface Upload {
  templateName: string;
  created: number;
  failed: number;
  results: RowResult[];
  /** When its certificates were queued for email (email on issue, or "Email all created"). */
  emailedAt?: Date | null;
}

export async function insertUpload(
  db: Queryable,
  upload: Upload & { id: string; accountId: string; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO dashboard_uploads (id, account_id, template_name, created, failed, results, expires_at, emailed_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)`,
    [
      upload.id,
      upload.accountId,
      upload.templateName,
      upload.created,
      upload.failed,
      JSON.stringify(upload.results),
      upload.expiresAt,
      upload.emailedAt ?? null,
    ],
  );
}

// Another account's upload is simply not found.
export async function findUpload(
  db: Queryable,
  accountId: string,
  id: string,
  now: Date,
): Promise<Upload | undefined> {
  const { rows } = await db.query<{
    template_name: string;
    created: number;
    failed: number;
    results: RowResult[];
    emailed_at: Date | null;
  }>(
    `SELECT template_name, created, failed, results, emailed_at FROM dashboard_uploads
     WHERE id = $1 AND account_id = $2 AND expires_at > $3`,
    [id, accountId, now],
  );
  const row = rows[0];
  return (
    row && {
      templateName: row.template_name,
      created: row.created,
      failed: row.failed,
      results: row.results,
      emailedAt: row.emailed_at,
    }
  );
}

// Marks the upload emailed, once: false when it was already.
export async function claimUploadEmail(
  db: Queryable,
  accountId: string,
  id: string,
  now: Date,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE dashboard_uploads SET emailed_at = $3 WHERE id = $1 AND account_id = $2 AND emailed_at IS NULL',
    [id, accountId, now],
  );
  return rowCount === 1;
}

export async function purgeExpiredUploads(db: Queryable, now: Date): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM dashboard_uploads WHERE expires_at <= $1', [now]);
  return rowCount ?? 0;
}
