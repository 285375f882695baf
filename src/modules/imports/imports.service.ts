import { stringify } from 'csv-stringify/sync';
import type { Db, Queryable } from '../../platform/db/db.js';
import { NotFoundError, ValidationError, type Issue } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import type { Doer, Principal } from '../../platform/principal.js';
import { recordAudit, type AuditInput } from '../audit/audit-log.js';
import { verificationUrl } from '../shared/certificate-links.js';
import type { BatchItem, IssueService } from '../certificates/issue.service.js';
import type { EmailsService } from '../certificates/certificate-emails.service.js';
import * as repo from './imports.repository.js';
import { heldUploads } from './held-uploads.js';
import { issueText, MAX_CSV_ROWS, spreadsheetCell } from './recipients-csv.js';

// Large imports (decisions section 20): a CSV's rows stored as a durable job, issued by any
// instance's workers a chunk at a time, each chunk in one transaction with its rows' results.

export const MAX_IMPORT_ROWS = MAX_CSV_ROWS;
/**
 * The dashboard's multipart limit, a backstop for every uploaded file (20 MiB). A CSV is held to its
 * own, smaller limit (MAX_CSV_BYTES, 20 MB) while it is read.
 */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;
export { AT_ONCE_ROWS, CHUNK_ROWS, OVER_QUOTA_REASON, stored, type NewImport } from './new-import.js';
import { AT_ONCE_ROWS, stored, type NewImport } from './new-import.js';

const TEMPLATE_GONE = 'The template was archived or deleted during the import';

// The audit event of an import's start: its file's name and row count, not its rows.
async function recordStarted(tx: Queryable, doer: Doer, id: string, input: NewImport, now: Date) {
  const changes = { templateId: input.templateId, fileName: input.fileName, rows: input.rows.length };
  await recordAudit(
    tx,
    input.accountId,
    doer,
    [{ action: 'import.started', target: { type: 'import', id }, changes }],
    now,
  );
}

/** One row of an import and its result (null while not issued). */
export interface RowView {
  line: number;
  name: string;
  email: string;
  status: 'created' | 'failed' | null;
  certificateId: string | null;
  uniqueCode: string | null;
  reason: string | null;
}

export interface ImportView {
  id: string;
  templateId: string;
  fileName: string;
  state: repo.ImportState;
  rows: number;
  done: number;
  created: number;
  failed: number;
  error: string | null;
  /** When the created certificates were queued for email; null when not. */
  emailedAt: string | null;
  /** The import whose failed rows this one retries; the import that retried this one's. */
  retryOf: string | null;
  retriedBy: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** Rows per second since the first chunk started; null before. */
  rowsPerSecond: number | null;
  /** Seconds left at that rate, while running. */
  secondsLeft: number | null;
}

function view(row: repo.ImportRow, now: Date): ImportView {
  const end = row.finished_at ?? now;
  const seconds = row.started_at ? Math.max(0.001, (end.getTime() - row.started_at.getTime()) / 1000) : 0;
  const rate = row.started_at && row.done_rows > 0 ? row.done_rows / seconds : null;
  const running = row.state === 'running' || row.state === 'queued';
  return {
    id: row.id,
    templateId: row.template_id,
    fileName: row.file_name,
    state: row.state,
    rows: row.rows,
    done: row.done_rows,
    created: row.created,
    failed: row.failed,
    error: row.error,
    emailedAt: row.emailed_at?.toISOString() ?? null,
    retryOf: row.retry_of,
    retriedBy: row.retried_by,
    createdAt: row.created_at.toISOString(),
    startedAt: row.started_at?.toISOString() ?? null,
    finishedAt: row.finished_at?.toISOString() ?? null,
    rowsPerSecond: rate === null ? null : Math.round(rate * 10) / 10,
    secondsLeft: running && rate ? Math.ceil((row.rows - row.done_rows) / rate) : null,
  };
}

function reasonOf(item: Extract<BatchItem, { status: 'failed' }>): string {
  const issues = (item.error.details?.issues as Issue[] | undefined) ?? [];
  return issues.length > 0 ? issues.map(issueText).join('; ') : item.error.message;
}

// Thrown inside a chunk's transaction to roll it back: its import ended while the chunk was issued.
class ImportStopped extends Error {}

// A chunk rolled back because its import ended: it was worked on, and nothing of it stays.
async function unlessStopped(chunk: () => Promise<boolean>): Promise<boolean> {
  try {
    return await chunk();
  } catch (err) {
    if (err instanceof ImportStopped) return true;
    throw err;
  }
}

const RESULT_HEADER = [
  'row',
  'name',
  'email',
  'status',
  'certificate_id',
  'unique_code',
  'verification_url',
  'reason',
];

interface ImportsDeps {
  db: Db;
  issue: IssueService;
  /** The account acting (for the quota and plan), as the dashboard builds it. */
  principalOf: (accountId: string, importId: string) => Promise<Principal>;
  emails: Pick<EmailsService, 'sendAll'>;
  publicBaseUrl: string;
  now: () => Date;
  /** Told when a job is created, so this process's worker starts at once. */
  onCreated?: () => void;
}

// Issues a claimed chunk in its transaction (`tx`), with its rows' results; false when the
// import's template was archived or deleted (nothing was issued). Throws ImportStopped when the
// import was cancelled (or failed) meanwhile: the caller rolls the chunk back.
async function issueClaimedChunk(
  deps: ImportsDeps,
  tx: Queryable,
  chunk: repo.ClaimedChunk,
): Promise<boolean> {
  const rows = await repo.chunkRows(tx, chunk);
  const principal = await deps.principalOf(chunk.accountId, chunk.importId);
  const events: AuditInput[] = [];
  let outcome;
  try {
    outcome = await deps.issue.issueBatchIn(
      tx,
      principal,
      chunk.templateId,
      rows.map((r) => ({
        ...{ name: r.name, email: r.email, data: r.data },
        ...(r.expiresAt ? { expiresAt: r.expiresAt } : {}),
      })),
      events,
    );
  } catch (err) {
    if (err instanceof NotFoundError) return false;
    throw err;
  }
  const results: repo.RowResult[] = outcome.results.map((item, i) =>
    item.status === 'created'
      ? {
          rowNo: rows[i]!.rowNo,
          status: 'created',
          certificateId: item.certificate.id,
          uniqueCode: item.certificate.uniqueCode,
        }
      : { rowNo: rows[i]!.rowNo, status: 'failed', reason: reasonOf(item) },
  );
  const emailed = outcome.results.some((r) => r.status === 'created' && r.certificate.emailCount > 0);
  // Cancelled (or failed) while this chunk was issued: none of it may stay.
  if (!(await repo.finishChunk(tx, chunk, results, emailed))) throw new ImportStopped();
  // Last: a cancel meanwhile (which records its own event) never waits for the chunk's events.
  await recordAudit(tx, chunk.accountId, principal, events, deps.now());
  return true;
}

export function createImportsService(deps: ImportsDeps) {
  const issueChunk = (tx: Queryable, chunk: repo.ClaimedChunk) => issueClaimedChunk(deps, tx, chunk);
  const { db } = deps;

  const service = {
    async create(doer: Doer, input: NewImport): Promise<ImportView> {
      // The readers of the file refuse more already (recipients-csv.ts); a rule lives here too.
      if (input.rows.length > MAX_IMPORT_ROWS) {
        const message = `An import has at most ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows`;
        throw new ValidationError([{ path: ['file'], message }], message);
      }
      const id = input.id ?? uuidv7();
      await db.transaction(async (tx) => {
        await repo.insertImport(tx, stored(id, input));
        await recordStarted(tx, doer, id, input, deps.now());
      });
      deps.onCreated?.();
      return view((await repo.findImport(db, input.accountId, id))!, deps.now());
    },

    async get(accountId: string, id: string): Promise<ImportView> {
      const row = await repo.findImport(db, accountId, id);
      if (!row) throw new NotFoundError('Import');
      return view(row, deps.now());
    },

    async list(accountId: string): Promise<ImportView[]> {
      const now = deps.now();
      return (await repo.listImports(db, accountId, 100)).map((r) => view(r, now));
    },

    async cancel(doer: Doer, accountId: string, id: string): Promise<ImportView> {
      const row = await repo.findImport(db, accountId, id);
      if (!row) throw new NotFoundError('Import');
      await db.transaction(async (tx) => {
        // An event only when it was still queued or running (nothing else changes).
        if (!(await repo.cancelImport(tx, accountId, id))) return;
        await recordAudit(
          tx,
          accountId,
          doer,
          [
            {
              action: 'import.cancelled',
              target: { type: 'import', id },
              changes: { state: { old: row.state, new: 'cancelled' } },
            },
          ],
          deps.now(),
        );
      });
      return view((await repo.findImport(db, accountId, id))!, deps.now());
    },

    // Claims the next chunk of any import (or of `importId`) and issues it, all in one transaction;
    // false when there is nothing to do. A chunk whose import was cancelled (or failed) meanwhile
    // rolls back whole (repo.finishChunk).
    async runChunk(importId?: string): Promise<boolean> {
      let templateGone: string | undefined;
      const worked = await unlessStopped(() =>
        db.transaction(async (tx) => {
          const chunk = await repo.claimChunk(tx, importId);
          if (!chunk) return false;
          if (!(await issueChunk(tx, chunk))) templateGone = chunk.importId;
          return true;
        }),
      );
      if (templateGone) await repo.failImport(db, templateGone, TEMPLATE_GONE);
      return worked;
    },

    // A dashboard upload of at most AT_ONCE_ROWS rows: the import and the issue of its rows in one
    // transaction, answered when they are issued (no worker sees the import before it is done). A
    // template archived meanwhile is not found, and nothing of the upload stays.
    async issueAtOnce(doer: Doer, input: NewImport): Promise<ImportView> {
      if (input.rows.length > AT_ONCE_ROWS)
        throw new Error(`at most ${AT_ONCE_ROWS} rows are issued at once`);
      const id = uuidv7();
      await db.transaction(async (tx) => {
        await repo.insertImport(tx, stored(id, input));
        for (let chunk; (chunk = await repo.claimChunk(tx, id));) {
          if (!(await issueChunk(tx, chunk))) throw new NotFoundError('Template');
        }
        // After its certificates' events: the account's audit head is every transaction's last lock.
        await recordStarted(tx, doer, id, input, deps.now());
      });
      return view((await repo.findImport(db, input.accountId, id))!, deps.now());
    },

    // An import's rows with their results, in file order: the first `limit`.
    async rows(accountId: string, id: string, limit: number): Promise<RowView[]> {
      if (!(await repo.findImport(db, accountId, id))) throw new NotFoundError('Import');
      return (await repo.resultRows(db, id, 0, limit)).map((r) => ({
        line: r.line,
        name: r.name,
        email: r.email,
        status: r.status,
        certificateId: r.certificate_id,
        uniqueCode: r.unique_code,
        reason: r.reason,
      }));
    },

    // The per-row results as CSV, read a page at a time (nothing held whole in memory).
    async *resultsCsv(accountId: string, id: string): AsyncGenerator<string> {
      const imp = await repo.findImport(db, accountId, id);
      if (!imp) throw new NotFoundError('Import');
      yield '\uFEFF' + stringify([RESULT_HEADER]);
      for (let after = 0; ;) {
        const page = await repo.resultRows(db, id, after, 2_000);
        if (page.length === 0) return;
        after = page.at(-1)!.row_no;
        yield stringify(
          page.map((r) =>
            [
              r.line,
              r.name,
              r.email,
              r.status ??
                (imp.state === 'cancelled' ? 'cancelled' : imp.state === 'failed' ? 'failed' : 'pending'),
              r.certificate_id,
              r.unique_code,
              r.unique_code ? verificationUrl(deps.publicBaseUrl, r.unique_code) : null,
              r.reason ?? (r.status === null && imp.state === 'failed' ? imp.error : null),
            ].map(spreadsheetCell),
          ),
        );
      }
    },

    // "Email all created": the import's created certificates queued for email, once, after it ended.
    async emailAll(principal: Principal, id: string): Promise<number> {
      const ids = await this.createdIds(principal.accountId, id);
      return deps.emails.sendAll(principal, ids, (tx) =>
        repo.claimImportEmail(tx, principal.accountId, id, deps.now()),
      );
    },

    async createdIds(accountId: string, id: string): Promise<string[]> {
      if (!(await repo.findImport(db, accountId, id))) throw new NotFoundError('Import');
      return repo.createdIds(db, id);
    },

    // Why the import's rows failed: each reason with its count, the most frequent first.
    failureReasons: (accountId: string, id: string) => failureReasons(db, accountId, id),
  };
  return { ...service, ...heldUploads(db, service) };
}

async function failureReasons(db: Queryable, accountId: string, id: string) {
  if (!(await repo.findImport(db, accountId, id))) throw new NotFoundError('Import');
  return repo.failureReasons(db, id, 20);
}

export type ImportsService = ReturnType<typeof createImportsService>;
