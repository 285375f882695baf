import { parse } from 'csv-parse/sync';
import { ValidationError, type Issue } from '../../platform/errors.js';
import { hasForbiddenCharacter, PLAIN_TEXT_CHARACTERS } from '../../platform/text.js';

// Issuing many certificates from a spreadsheet: a header row `name, email, <one column per template
// field>`, UTF-8 with or without a byte-order mark, separated by commas or semicolons (what
// spreadsheets in comma-decimal locales write), at most `maxRows` rows. The dashboard's upload and
// large imports (the dashboard and `certsvc import`) read files this way.

// What one cell may hold (the API's limits: certificates.schemas.ts).
const CELL_LIMITS: Record<string, number> = { name: 200, email: 254 };
const DATA_CELL_LIMIT = 1000;

export interface CsvRow {
  // The line of the file the row ends on (the header is line 1), as a spreadsheet numbers it.
  line: number;
  recipient: { name: string; email: string; data: Record<string, string> };
}

function refuse(message: string): never {
  throw new ValidationError([{ path: ['file'], message }], message);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

// Controls that no field value may hold (tab and line breaks are text in a quoted cell).
// eslint-disable-next-line no-control-regex -- matching controls is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

// A character the API would refuse refuses the whole file before anything is issued, naming the
// row and the column: the name and email under the rules of typed text, field values without
// controls. NUL first, since PostgreSQL can store no text that holds it.
function characterProblem(column: string, value: string): string | undefined {
  if (value.includes('\u0000')) return 'contains a NUL character';
  const limit = CELL_LIMITS[column] ?? DATA_CELL_LIMIT;
  if ([...value].length > limit) return `is longer than ${limit} characters`;
  if (column === 'name' || column === 'email') {
    return hasForbiddenCharacter(value) ? PLAIN_TEXT_CHARACTERS : undefined;
  }
  return CONTROL.test(value) ? 'must not contain control characters' : undefined;
}

// Header cells are named by their position: their own text is what is refused.
function checkCharacters(header: string[] | undefined, record: string[], line: number): void {
  record.forEach((value, i) => {
    const column = header?.[i] ?? `${i + 1}`;
    const problem = characterProblem(i < 2 ? column.toLowerCase() : column, value);
    if (problem) {
      const message = `Row ${line}, column ${column}: the value ${problem}; nothing was issued`;
      throw new ValidationError([{ path: ['file', line, column], message: problem }], message);
    }
  });
}

// The header names no value, so its separator is whichever of the two it uses more.
function separatorOf(text: string): ',' | ';' {
  const header = text.slice(0, text.search(/\r|\n|$/));
  return (header.match(/;/g)?.length ?? 0) > (header.match(/,/g)?.length ?? 0) ? ';' : ',';
}

export function parseRecipientsCsv(
  bytes: Buffer,
  fields: { key: string; required: boolean }[],
  maxRows: number,
): CsvRow[] {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    refuse('The file is not UTF-8 text: save it as "CSV UTF-8" and upload it again');
  }
  text = text.replace(/^\uFEFF/, '');
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      delimiter: separatorOf(text),
      skip_empty_lines: true,
      relax_column_count: true,
      info: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (err) {
    refuse(`The file is not valid CSV: ${(err as Error).message}`);
  }
  const [head, ...body] = records;
  if (!head) refuse('The file is empty: it needs a header row and one row per recipient');
  const header = head.record.map((h) => h.trim());
  checkCharacters(undefined, head.record, head.info.lines);
  if (header[0]?.toLowerCase() !== 'name' || header[1]?.toLowerCase() !== 'email') {
    refuse(
      `The header row must start with the columns name and email; it starts with ${header.slice(0, 2).join(', ')}`,
    );
  }
  const known = new Set(fields.map((f) => f.key));
  const extra = header.slice(2).filter((h) => !known.has(h));
  if (extra.length > 0) {
    refuse(
      `The header names columns this template has no field for: ${extra.join(', ')}; its fields are ${[...known].join(', ') || 'none'}`,
    );
  }
  const missing = fields.filter((f) => f.required && !header.includes(f.key)).map((f) => f.key);
  if (missing.length > 0) refuse(`The header lacks the required field columns: ${missing.join(', ')}`);
  const duplicate = header.find((h, i) => header.indexOf(h) !== i);
  if (duplicate) refuse(`The header names the column ${duplicate} twice`);
  if (body.length === 0) refuse('The file has a header but no recipients');
  if (body.length > maxRows)
    refuse(
      `The file has ${body.length.toLocaleString('en-US')} rows; at most ${maxRows.toLocaleString('en-US')} can be issued from one file`,
    );
  for (const { record, info } of body) checkCharacters(header, record, info.lines);
  return body.map(({ record, info }) => {
    const data: Record<string, string> = {};
    header.slice(2).forEach((key, i) => {
      const value = record[i + 2]?.trim() ?? '';
      if (value !== '') data[key] = value;
    });
    return {
      line: info.lines,
      recipient: { name: record[0]?.trim() ?? '', email: record[1]?.trim() ?? '', data },
    };
  });
}

// A failed row's reason as the results show it: "email: must be an email address".
export function issueText(issue: Issue): string {
  const path = issue.path.slice(2).join('.');
  const column = path === 'name' || path === 'email' ? path : path.startsWith('data.') ? path.slice(5) : path;
  return column ? `${column}: ${issue.message}` : issue.message;
}

// A results cell: one a spreadsheet would run as a formula (=, +, -, @ first) is written as text.
export function spreadsheetCell(value: string | number | null | undefined): string | number {
  if (typeof value !== 'string') return value ?? '';
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}
