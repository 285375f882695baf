import type { Queryable } from '../../platform/db/db.js';
import type { Design, TemplateField } from '../../pdf/design.schema.js';

export interface TemplateRow {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  fields: TemplateField[];
  // A draft is not seen by the API (migration 012); archived is gone for good.
  status: 'draft' | 'active' | 'archived';
  // The version that `design` is (what issuing renders), and the newest saved one.
  version: number;
  latest_version: number;
  created_at: Date;
  updated_at: Date;
}

export interface TemplateWithDesign extends TemplateRow {
  design: Design;
}

const COLUMNS =
  'id, account_id, name, description, fields, status, version, latest_version, created_at, updated_at';

export async function insertTemplate(
  db: Queryable,
  t: { id: string; accountId: string; design: Design; status?: 'draft' | 'active' },
): Promise<TemplateRow> {
  const { rows } = await db.query<TemplateRow>(
    `INSERT INTO templates (id, account_id, name, description, fields, design, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [
      t.id,
      t.accountId,
      t.design.name,
      t.design.description ?? null,
      JSON.stringify(t.design.fields),
      t.design,
      t.status ?? 'active',
    ],
  );
  return rows[0]!;
}

export async function listActive(
  db: Queryable,
  accountId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: TemplateRow[]; total: number }> {
  const [list, count] = await Promise.all([
    db.query<TemplateRow>(
      `SELECT ${COLUMNS} FROM templates WHERE account_id = $1 AND status = 'active'
        ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
      [accountId, page.limit, page.offset],
    ),
    // Exact, from the counter that migration 005's triggers keep with every insert and archive.
    db.query<{ n: number }>(
      `SELECT coalesce(sum(n), 0)::bigint AS n FROM list_counts WHERE account_id = $1 AND list = 'templates:active'`,
      [accountId],
    ),
  ]);
  return { rows: list.rows, total: count.rows[0]!.n };
}

export async function findActive(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<TemplateRow | undefined> {
  const { rows } = await db.query<TemplateRow>(
    `SELECT ${COLUMNS} FROM templates WHERE account_id = $1 AND id = $2 AND status = 'active'`,
    [accountId, id],
  );
  return rows[0];
}

export async function findActiveWithDesign(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<TemplateWithDesign | undefined> {
  const { rows } = await db.query<TemplateWithDesign>(
    `SELECT ${COLUMNS}, design FROM templates WHERE account_id = $1 AND id = $2 AND status = 'active'`,
    [accountId, id],
  );
  return rows[0];
}

export async function archiveTemplate(db: Queryable, id: string): Promise<TemplateRow | undefined> {
  const { rows } = await db.query<TemplateRow>(
    `UPDATE templates SET status = 'archived', updated_at = now() WHERE id = $1 RETURNING ${COLUMNS}`,
    [id],
  );
  return rows[0];
}

// Every template of an account, archived ones too, newest first (the operator's view).
export async function listAll(db: Queryable, accountId: string): Promise<TemplateRow[]> {
  const { rows } = await db.query<TemplateRow>(
    `SELECT ${COLUMNS} FROM templates WHERE account_id = $1 ORDER BY created_at DESC, id DESC`,
    [accountId],
  );
  return rows;
}

export async function findWithDesign(db: Queryable, id: string): Promise<TemplateWithDesign | undefined> {
  const { rows } = await db.query<TemplateWithDesign>(
    `SELECT ${COLUMNS}, design FROM templates WHERE id = $1`,
    [id],
  );
  return rows[0];
}

// Makes `version` (already saved in template_versions) the design that issuing renders; the
// trigger of migration 002 moves updated_at, so the PDF workers compile it afresh. Issued
// certificates keep their frozen PDFs and titles. `publish` turns a draft active.
export async function setDesign(
  db: Queryable,
  input: { accountId: string; id: string; design: Design; version: number; publish: boolean },
): Promise<TemplateRow | undefined> {
  const { rows } = await db.query<TemplateRow>(
    `UPDATE templates SET name = $3, description = $4, fields = $5, design = $6, version = $7,
            status = CASE WHEN $8 THEN 'active' ELSE status END
      WHERE account_id = $1 AND id = $2 AND status <> 'archived' RETURNING ${COLUMNS}`,
    [
      input.accountId,
      input.id,
      input.design.name,
      input.design.description ?? null,
      JSON.stringify(input.design.fields),
      input.design,
      input.version,
      input.publish,
    ],
  );
  return rows[0];
}

// The next version number of a template that is not archived, taken under the row's lock (an
// atomic increment: two saves at once get two numbers).
export async function takeVersionNumber(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<{ latest_version: number; status: TemplateRow['status'] } | undefined> {
  const { rows } = await db.query<{ latest_version: number; status: TemplateRow['status'] }>(
    `UPDATE templates SET latest_version = latest_version + 1
      WHERE account_id = $1 AND id = $2 AND status <> 'archived' RETURNING latest_version, status`,
    [accountId, id],
  );
  return rows[0];
}

// An account's templates that people work on (drafts and active ones), newest first.
export async function listWorking(db: Queryable, accountId: string, limit: number): Promise<TemplateRow[]> {
  const { rows } = await db.query<TemplateRow>(
    `SELECT ${COLUMNS} FROM templates WHERE account_id = $1 AND status <> 'archived'
      ORDER BY created_at DESC, id DESC LIMIT $2`,
    [accountId, limit],
  );
  return rows;
}

export async function findOwned(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<TemplateWithDesign | undefined> {
  const { rows } = await db.query<TemplateWithDesign>(
    `SELECT ${COLUMNS}, design FROM templates WHERE account_id = $1 AND id = $2`,
    [accountId, id],
  );
  return rows[0];
}

export async function archiveOwned(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<TemplateRow | undefined> {
  const { rows } = await db.query<TemplateRow>(
    `UPDATE templates SET status = 'archived', updated_at = now()
      WHERE account_id = $1 AND id = $2 AND status <> 'archived' RETURNING ${COLUMNS}`,
    [accountId, id],
  );
  return rows[0];
}
