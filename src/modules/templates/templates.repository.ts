import type { Queryable } from '../../platform/db/db.js';
import type { Design, TemplateField } from '../../pdf/design.schema.js';

export interface TemplateRow {
  id: string;
  account_id: string;
  name: string;
  description: string | null;
  fields: TemplateField[];
  status: 'active' | 'archived';
  created_at: Date;
  updated_at: Date;
}

export interface TemplateWithDesign extends TemplateRow {
  design: Design;
}

const COLUMNS = 'id, account_id, name, description, fields, status, created_at, updated_at';

export async function insertTemplate(
  db: Queryable,
  t: { id: string; accountId: string; design: Design },
): Promise<TemplateRow> {
  const { rows } = await db.query<TemplateRow>(
    `INSERT INTO templates (id, account_id, name, description, fields, design)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [
      t.id,
      t.accountId,
      t.design.name,
      t.design.description ?? null,
      JSON.stringify(t.design.fields),
      t.design,
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

// A new design under the same id; the trigger of migration 002 moves updated_at, so the PDF
// workers compile it afresh. Issued certificates keep their frozen PDFs and titles.
export async function updateDesign(
  db: Queryable,
  input: { id: string; design: Design },
): Promise<TemplateRow | undefined> {
  const { rows } = await db.query<TemplateRow>(
    `UPDATE templates SET name = $2, description = $3, fields = $4, design = $5
      WHERE id = $1 AND status = 'active' RETURNING ${COLUMNS}`,
    [
      input.id,
      input.design.name,
      input.design.description ?? null,
      JSON.stringify(input.design.fields),
      input.design,
    ],
  );
  return rows[0];
}
