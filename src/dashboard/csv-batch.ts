import { stringify } from 'csv-stringify/sync';
import type { Issue } from '../platform/errors.js';
import type { BatchOutcome } from '../modules/certificates/issue.service.js';
import { issueText, spreadsheetCell, type CsvRow } from '../modules/imports/recipients-csv.js';
import { BATCH_MAX_RECIPIENTS } from '../platform/limits.js';

// The results of a dashboard upload issued at once (at most MAX_ROWS rows; larger files are imports).
export const MAX_ROWS = BATCH_MAX_RECIPIENTS;

export interface RowResult {
  line: number;
  name: string;
  email: string;
  status: 'created' | 'failed';
  certificateId?: string;
  uniqueCode?: string;
  verificationUrl?: string;
  reason?: string;
}

// One result per CSV row, in file order, from the batch outcome of the issue service.
export function rowResults(rows: CsvRow[], outcome: BatchOutcome): RowResult[] {
  return outcome.results.map((item) => {
    const row = rows[item.index]!;
    const base = { line: row.line, name: row.recipient.name, email: row.recipient.email };
    if (item.status === 'created') {
      const c = item.certificate;
      return {
        ...base,
        status: 'created',
        certificateId: c.id,
        uniqueCode: c.uniqueCode,
        verificationUrl: c.verificationUrl,
      };
    }
    const issues = (item.error.details?.issues as Issue[] | undefined) ?? [];
    const reason = issues.length > 0 ? issues.map(issueText).join('; ') : item.error.message;
    return { ...base, status: 'failed', reason };
  });
}

export function resultsCsv(results: RowResult[]): string {
  const header = [
    'row',
    'name',
    'email',
    'status',
    'certificate_id',
    'unique_code',
    'verification_url',
    'reason',
  ];
  const lines = results.map((r) =>
    [r.line, r.name, r.email, r.status, r.certificateId, r.uniqueCode, r.verificationUrl, r.reason].map(
      spreadsheetCell,
    ),
  );
  return '\uFEFF' + stringify([header, ...lines]);
}
