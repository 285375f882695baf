import type { Queryable } from '../../platform/db/db.js';

// A template's badge image (migration 035), always with the account's id.

export type BadgeMediaType = 'image/png' | 'image/svg+xml';

export async function upsertBadgeImage(
  db: Queryable,
  input: { accountId: string; templateId: string; mediaType: BadgeMediaType; body: Buffer; now: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO template_badges (template_id, account_id, media_type, body, updated_at)
     SELECT t.id, t.account_id, $3, $4, $5 FROM templates t WHERE t.id = $2 AND t.account_id = $1
     ON CONFLICT (template_id) DO UPDATE SET media_type = EXCLUDED.media_type, body = EXCLUDED.body,
       updated_at = EXCLUDED.updated_at`,
    [input.accountId, input.templateId, input.mediaType, input.body, input.now],
  );
}

export async function deleteBadgeImage(
  db: Queryable,
  accountId: string,
  templateId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM template_badges WHERE account_id = $1 AND template_id = $2',
    [accountId, templateId],
  );
  return rowCount === 1;
}

export async function findBadgeImage(
  db: Queryable,
  accountId: string,
  templateId: string,
): Promise<{ mediaType: BadgeMediaType; body: Buffer; updatedAt: Date } | undefined> {
  const { rows } = await db.query<{ media_type: BadgeMediaType; body: Buffer; updated_at: Date }>(
    'SELECT media_type, body, updated_at FROM template_badges WHERE account_id = $1 AND template_id = $2',
    [accountId, templateId],
  );
  return rows[0] && { mediaType: rows[0].media_type, body: rows[0].body, updatedAt: rows[0].updated_at };
}
