import type { Queryable } from '../../platform/db/db.js';
import type { Design } from '../../pdf/design.schema.js';

// Every design ever saved for a template (migration 012): written once, never changed.

export interface VersionRow {
  version: number;
  name: string;
  note: string;
  elements: number;
  created_at: Date;
}

export async function insertVersion(
  db: Queryable,
  v: { templateId: string; accountId: string; version: number; design: Design; note: string },
): Promise<void> {
  await db.query(
    `INSERT INTO template_versions (template_id, version, account_id, design, note) VALUES ($1, $2, $3, $4, $5)`,
    [v.templateId, v.version, v.accountId, v.design, v.note],
  );
}

// Newest first, without the designs (they may hold megabytes of images).
export async function listVersions(
  db: Queryable,
  accountId: string,
  templateId: string,
): Promise<VersionRow[]> {
  const { rows } = await db.query<VersionRow>(
    `SELECT version, design->>'name' AS name, note, jsonb_array_length(design->'elements') AS elements, created_at
       FROM template_versions WHERE account_id = $1 AND template_id = $2 ORDER BY version DESC`,
    [accountId, templateId],
  );
  return rows;
}

export async function findVersion(
  db: Queryable,
  accountId: string,
  templateId: string,
  version: number,
): Promise<(VersionRow & { design: Design }) | undefined> {
  const { rows } = await db.query<VersionRow & { design: Design }>(
    `SELECT version, design->>'name' AS name, note, jsonb_array_length(design->'elements') AS elements,
            created_at, design
       FROM template_versions WHERE account_id = $1 AND template_id = $2 AND version = $3`,
    [accountId, templateId, version],
  );
  return rows[0];
}
