import type { Queryable } from '../../platform/db/db.js';
import type { Design } from '../../pdf/design.schema.js';

// The studio's autosaved drafts (migration 030): one per template and user, replaced each time.

export interface DraftRow {
  design: Design;
  saved_at: Date;
}

export async function upsertDraft(
  db: Queryable,
  d: { templateId: string; userId: string; accountId: string; design: Design; savedAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO template_drafts (template_id, user_id, account_id, design, saved_at)
          VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (template_id, user_id) DO UPDATE SET design = EXCLUDED.design, saved_at = EXCLUDED.saved_at`,
    [d.templateId, d.userId, d.accountId, d.design, d.savedAt],
  );
}

export async function findDraft(
  db: Queryable,
  accountId: string,
  templateId: string,
  userId: string,
): Promise<DraftRow | undefined> {
  const { rows } = await db.query<DraftRow>(
    `SELECT design, saved_at FROM template_drafts
      WHERE account_id = $1 AND template_id = $2 AND user_id = $3`,
    [accountId, templateId, userId],
  );
  return rows[0];
}

export async function deleteDraft(
  db: Queryable,
  accountId: string,
  templateId: string,
  userId: string,
): Promise<void> {
  await db.query('DELETE FROM template_drafts WHERE account_id = $1 AND template_id = $2 AND user_id = $3', [
    accountId,
    templateId,
    userId,
  ]);
}
