import type { CsvRow } from './recipients-csv.js';
import { BATCH_MAX_RECIPIENTS } from '../../platform/limits.js';
import { QUOTA_MESSAGE } from '../certificates/issue.service.js';

// What an import is made from, and how it is stored: shared by the imports service and the held
// uploads (held-uploads.ts), which start imports through it.

/** Rows issued per transaction: one batch of the API's size. */
export const CHUNK_ROWS = BATCH_MAX_RECIPIENTS;
/** A dashboard upload of at most this many rows (one chunk) is issued at once, in the request. */
export const AT_ONCE_ROWS = CHUNK_ROWS;

export interface NewImport {
  accountId: string;
  templateId: string;
  fileName: string;
  createdBy: string;
  rows: CsvRow[];
  /** Issue only the first `limit` rows (the quota left, as the user chose); the rest fail at once. */
  limit?: number;
  /** The import whose failed rows these are ("Retry the failed rows"), and the new import's id. */
  retryOf?: string;
  id?: string;
}

/** Why the rows after an upload's chosen first N failed: the quota's own reason, counted with it. */
export const OVER_QUOTA_REASON = QUOTA_MESSAGE;

// The import as stored: its rows in file order, cut into chunks.
export function stored(id: string, input: NewImport) {
  const { accountId, templateId, fileName, createdBy } = input;
  const rows = input.rows.map((r) => ({ line: r.line, ...r.recipient }));
  const issueRows = Math.max(1, Math.min(rows.length, input.limit ?? rows.length));
  return {
    ...{ id, accountId, templateId, fileName, createdBy, rows, chunkSize: CHUNK_ROWS, issueRows },
    ...{ skipReason: OVER_QUOTA_REASON, retryOf: input.retryOf ?? null },
  };
}
