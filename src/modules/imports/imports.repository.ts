import type { Queryable } from '../../platform/db/db.js';
import type { CsvData } from './list-columns.js';

export type ImportState = 'queued' | 'running' | 'done' | 'cancelled' | 'failed';

export interface ImportRow {
  id: string;
  account_id: string;
  template_id: string;
  file_name: string;
  created_by: string;
  rows: number;
  state: ImportState;
  done_rows: number;
  created: number;
  failed: number;
  error: string | null;
  emailed_at: Date | null;
  retry_of: string | null;
  retried_by: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface ImportRecipient {
  line: number;
  name: string;
  email: string;
  data: CsvData;
  /** The row's own expiry as the issue takes it (migration 029); none: the template's validity. */
  expiresAt?: string | null;
}

export interface RowResult {
  rowNo: number;
  status: 'created' | 'failed';
  certificateId?: string;
  uniqueCode?: string;
  reason?: string;
}

const INSERT_ROWS_AT_ONCE = 5_000;

// The import, its rows and its chunks, in the caller's transaction. Only the first `issueRows` rows
// are issued (chunks); the rows after them are failed at once with `skipReason` (the user chose to
// issue the first N within the quota left), and counted done.
export async function insertImport(
  tx: Queryable,
  imp: {
    id: string;
    accountId: string;
    templateId: string;
    fileName: string;
    createdBy: string;
    rows: ImportRecipient[];
    chunkSize: number;
    issueRows: number;
    skipReason: string;
    retryOf: string | null;
  },
): Promise<void> {
  const skipped = imp.rows.length - imp.issueRows;
  await tx.query(
    `INSERT INTO imports (id, account_id, template_id, file_name, created_by, rows, done_rows, failed, retry_of)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)`,
    [
      imp.id,
      imp.accountId,
      imp.templateId,
      imp.fileName,
      imp.createdBy,
      imp.rows.length,
      skipped,
      imp.retryOf,
    ],
  );
  for (let at = 0; at < imp.rows.length; at += INSERT_ROWS_AT_ONCE) {
    const part = imp.rows.slice(at, at + INSERT_ROWS_AT_ONCE);
    await tx.query(
      `INSERT INTO import_rows (import_id, row_no, line, name, email, data, expires_at)
       SELECT $1, $2::int + u.ord, u.line, u.name, u.email, u.data::jsonb, u.expires_at
         FROM unnest($3::int[], $4::text[], $5::text[], $6::text[], $7::text[])
              WITH ORDINALITY AS u(line, name, email, data, expires_at, ord)`,
      [
        imp.id,
        at,
        part.map((r) => r.line),
        part.map((r) => r.name),
        part.map((r) => r.email),
        part.map((r) => JSON.stringify(r.data)),
        part.map((r) => r.expiresAt ?? null),
      ],
    );
  }
  if (skipped > 0) {
    await tx.query(
      `UPDATE import_rows SET status = 'failed', reason = $3 WHERE import_id = $1 AND row_no > $2`,
      [imp.id, imp.issueRows, imp.skipReason],
    );
  }
  await tx.query(
    `INSERT INTO import_chunks (import_id, n, first_row, last_row)
     SELECT $1, n, n * $2 + 1, least((n + 1) * $2, $3) FROM generate_series(0, ($3 - 1) / $2) AS n`,
    [imp.id, imp.chunkSize, imp.issueRows],
  );
}

export interface ClaimedChunk {
  importId: string;
  accountId: string;
  templateId: string;
  n: number;
  firstRow: number;
  lastRow: number;
}

// The next chunk to issue, locked until the caller's transaction ends (another worker skips it).
// `importId`: only that import's chunks (the CLI's own job).
export async function claimChunk(tx: Queryable, importId?: string): Promise<ClaimedChunk | undefined> {
  const { rows } = await tx.query<{
    import_id: string;
    account_id: string;
    template_id: string;
    n: number;
    first_row: number;
    last_row: number;
  }>(
    `SELECT c.import_id, i.account_id, i.template_id, c.n, c.first_row, c.last_row
       FROM import_chunks c JOIN imports i ON i.id = c.import_id
      WHERE NOT c.done AND i.state IN ('queued', 'running') AND ($1::uuid IS NULL OR c.import_id = $1)
      ORDER BY i.created_at, c.import_id, c.n
      LIMIT 1 FOR UPDATE OF c SKIP LOCKED`,
    [importId ?? null],
  );
  const r = rows[0];
  return (
    r && {
      importId: r.import_id,
      accountId: r.account_id,
      templateId: r.template_id,
      n: r.n,
      firstRow: r.first_row,
      lastRow: r.last_row,
    }
  );
}

export async function chunkRows(
  tx: Queryable,
  chunk: ClaimedChunk,
): Promise<(ImportRecipient & { rowNo: number })[]> {
  const { rows } = await tx.query<{
    row_no: number;
    line: number;
    name: string;
    email: string;
    data: CsvData;
    expires_at: string | null;
  }>(
    `SELECT row_no, line, name, email, data, expires_at FROM import_rows
      WHERE import_id = $1 AND row_no BETWEEN $2 AND $3 ORDER BY row_no`,
    [chunk.importId, chunk.firstRow, chunk.lastRow],
  );
  return rows.map((r) => ({
    ...{ rowNo: r.row_no, line: r.line, name: r.name, email: r.email, data: r.data },
    expiresAt: r.expires_at,
  }));
}

// A chunk's row results, its `done` and the import's counters and state, in the chunk's transaction.
// `emailed`: the chunk's certificates were queued for email with the issue (emailOnIssue).
// The import's row is updated last, and only while the import is queued or running: that update
// takes the row's lock, which orders the chunk with a cancel (cancelImport). A cancel that came
// first leaves the update nothing to match, and false tells the caller to roll the whole chunk back
// (its certificates, quota, emails and these results); a cancel that comes later waits for this
// transaction and finds the chunk counted. The lock is held only until the commit.
export async function finishChunk(
  tx: Queryable,
  chunk: ClaimedChunk,
  results: RowResult[],
  emailed: boolean,
): Promise<boolean> {
  await tx.query(
    `UPDATE import_rows r SET status = u.status, certificate_id = u.certificate_id, unique_code = u.code, reason = u.reason
       FROM unnest($2::int[], $3::text[], $4::uuid[], $5::text[], $6::text[]) AS u(row_no, status, certificate_id, code, reason)
      WHERE r.import_id = $1 AND r.row_no = u.row_no`,
    [
      chunk.importId,
      results.map((r) => r.rowNo),
      results.map((r) => r.status),
      results.map((r) => r.certificateId ?? null),
      results.map((r) => r.uniqueCode ?? null),
      results.map((r) => r.reason ?? null),
    ],
  );
  await tx.query('UPDATE import_chunks SET done = true WHERE import_id = $1 AND n = $2', [
    chunk.importId,
    chunk.n,
  ]);
  const created = results.filter((r) => r.status === 'created').length;
  const { rowCount } = await tx.query(
    `UPDATE imports SET done_rows = done_rows + $2, created = created + $3, failed = failed + $4,
            started_at = coalesce(started_at, now()),
            emailed_at = CASE WHEN $5 THEN coalesce(emailed_at, now()) ELSE emailed_at END,
            state = CASE WHEN done_rows + $2 >= rows THEN 'done' ELSE 'running' END,
            finished_at = CASE WHEN done_rows + $2 >= rows THEN now() ELSE finished_at END
      WHERE id = $1 AND state IN ('queued', 'running')`,
    [chunk.importId, results.length, created, results.length - created, emailed],
  );
  return rowCount === 1;
}

// "Email all created", once, and only for an import that has ended.
export async function claimImportEmail(
  tx: Queryable,
  accountId: string,
  id: string,
  now: Date,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE imports SET emailed_at = $3
      WHERE id = $1 AND account_id = $2 AND emailed_at IS NULL AND state IN ('done', 'cancelled', 'failed')`,
    [id, accountId, now],
  );
  return rowCount === 1;
}

// An import that cannot go on (its template is gone): failed, with the reason.
export async function failImport(db: Queryable, importId: string, error: string): Promise<void> {
  await db.query(
    `UPDATE imports SET state = 'failed', error = $2, finished_at = now()
      WHERE id = $1 AND state IN ('queued', 'running')`,
    [importId, error],
  );
}

export async function findImport(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<ImportRow | undefined> {
  const { rows } = await db.query<ImportRow>('SELECT * FROM imports WHERE id = $1 AND account_id = $2', [
    id,
    accountId,
  ]);
  return rows[0];
}

export async function listImports(db: Queryable, accountId: string, limit: number): Promise<ImportRow[]> {
  const { rows } = await db.query<ImportRow>(
    'SELECT * FROM imports WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2',
    [accountId, limit],
  );
  return rows;
}

// Stops an import: no chunk is issued after it, not even one being issued now (finishChunk: that
// chunk rolls back); rows already issued stay. A chunk committing at this moment holds the row's
// lock: the cancel waits for it, and what it reads next counts it.
export async function cancelImport(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE imports SET state = 'cancelled', finished_at = now()
      WHERE id = $1 AND account_id = $2 AND state IN ('queued', 'running')`,
    [id, accountId],
  );
  return (rowCount ?? 0) > 0;
}

export interface ResultRow {
  row_no: number;
  line: number;
  name: string;
  email: string;
  status: 'created' | 'failed' | null;
  certificate_id: string | null;
  unique_code: string | null;
  reason: string | null;
}

// A page of an import's rows with their results, after `afterRow`.
export async function resultRows(
  db: Queryable,
  importId: string,
  afterRow: number,
  limit: number,
): Promise<ResultRow[]> {
  const { rows } = await db.query<ResultRow>(
    `SELECT row_no, line, name, email, status, certificate_id, unique_code, reason FROM import_rows
      WHERE import_id = $1 AND row_no > $2 ORDER BY row_no LIMIT $3`,
    [importId, afterRow, limit],
  );
  return rows;
}

export async function createdIds(db: Queryable, importId: string): Promise<string[]> {
  const { rows } = await db.query<{ certificate_id: string }>(
    `SELECT certificate_id FROM import_rows WHERE import_id = $1 AND status = 'created' ORDER BY row_no`,
    [importId],
  );
  return rows.map((r) => r.certificate_id);
}

// Why an import's rows failed: each reason with its count, the most frequent first.
export async function failureReasons(
  db: Queryable,
  importId: string,
  limit: number,
): Promise<{ reason: string; rows: number }[]> {
  const { rows } = await db.query<{ reason: string; rows: number }>(
    `SELECT coalesce(reason, '') AS reason, count(*)::int AS rows FROM import_rows
      WHERE import_id = $1 AND status = 'failed' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT $2`,
    [importId, limit],
  );
  return rows;
}

// The failed rows of an import, in file order, as a new import stores them.
export async function failedRows(db: Queryable, importId: string): Promise<ImportRecipient[]> {
  const { rows } = await db.query<ImportRecipient>(
    `SELECT line, name, email, data, expires_at AS "expiresAt" FROM import_rows
      WHERE import_id = $1 AND status = 'failed' ORDER BY row_no`,
    [importId],
  );
  return rows;
}

// Marks an ended import's failed rows as retried by `retryId`, once: false when it was retried
// already, has not ended or has no failed row.
export async function claimRetry(
  db: Queryable,
  accountId: string,
  id: string,
  retryId: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE imports SET retried_by = $3
      WHERE id = $1 AND account_id = $2 AND retried_by IS NULL AND failed > 0
        AND state IN ('done', 'cancelled', 'failed')`,
    [id, accountId, retryId],
  );
  return rowCount === 1;
}

// A claim whose import could not be made: the failed rows may be retried again.
export async function releaseRetry(db: Queryable, id: string, retryId: string): Promise<void> {
  await db.query('UPDATE imports SET retried_by = NULL WHERE id = $1 AND retried_by = $2', [id, retryId]);
}
