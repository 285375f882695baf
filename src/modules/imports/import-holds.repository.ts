import type { Queryable } from '../../platform/db/db.js';
import type { ImportRecipient } from './imports.repository.js';

// Held uploads (issue 29): a file parsed and checked whose rows exceed the quota left, kept until
// the user starts it (the first N rows) or cancels it. Holds older than a day are dropped.

export interface HoldRow {
  id: string;
  account_id: string;
  template_id: string;
  file_name: string;
  created_by: string;
  rows: number;
  created_at: Date;
}

export async function insertHold(
  db: Queryable,
  hold: {
    id: string;
    accountId: string;
    templateId: string;
    fileName: string;
    createdBy: string;
    rows: ImportRecipient[];
  },
): Promise<void> {
  await db.query(`DELETE FROM import_holds WHERE created_at < now() - interval '1 day'`);
  await db.query(
    `INSERT INTO import_holds (id, account_id, template_id, file_name, created_by, rows, recipients)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)`,
    [
      hold.id,
      hold.accountId,
      hold.templateId,
      hold.fileName,
      hold.createdBy,
      hold.rows.length,
      JSON.stringify(hold.rows),
    ],
  );
}

export async function findHold(db: Queryable, accountId: string, id: string): Promise<HoldRow | undefined> {
  const { rows } = await db.query<HoldRow>(
    `SELECT id, account_id, template_id, file_name, created_by, rows, created_at FROM import_holds
      WHERE id = $1 AND account_id = $2`,
    [id, accountId],
  );
  return rows[0];
}

// Takes the hold away (to start it, or to cancel it): undefined when it is gone already, so a
// second click starts nothing.
export async function takeHold(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<(HoldRow & { recipients: ImportRecipient[] }) | undefined> {
  const { rows } = await db.query<HoldRow & { recipients: ImportRecipient[] }>(
    `DELETE FROM import_holds WHERE id = $1 AND account_id = $2
     RETURNING id, account_id, template_id, file_name, created_by, rows, recipients, created_at`,
    [id, accountId],
  );
  return rows[0];
}
