import { setImmediate as nextTurn } from 'node:timers/promises';
import { CsvError, parse as csvParser, type Options } from 'csv-parse';
import { parse as parseAll } from 'csv-parse/sync';
import { ValidationError, type Issue } from '../../platform/errors.js';
import { hasForbiddenCharacter, PLAIN_TEXT_CHARACTERS } from '../../platform/text.js';
import { DATA_VALUE_MAX_LENGTH, EMAIL_MAX_LENGTH, NAME_MAX_LENGTH } from '../../platform/limits.js';
import { dayExpiry, EXPIRES_AFTER_ISSUE } from '../certificates/recipient.js';
import {
  fieldColumns,
  hasColumn,
  rowData,
  type CsvColumn,
  type CsvData,
  type CsvField,
} from './list-columns.js';

// Issuing many certificates from a spreadsheet: a header row `name, email, <one column per template
// field>` (a list field's items in columns `key[0].col`, `key[1].col` ...: list-columns.ts), UTF-8
// with or without a byte-order mark, separated by commas or semicolons (what
// spreadsheets in comma-decimal locales write), at most MAX_CSV_ROWS rows and MAX_CSV_BYTES bytes
// (decisions sections 20 and 25). The dashboard's upload and large imports (the dashboard and
// `certsvc import`) read files this way.
//
// The limits are counted while the file is read, never after: the bytes before anything is parsed,
// the rows one record at a time, so a file of millions of tiny rows is refused at the row past the
// limit instead of being built whole first. readRecipientsCsv parses a few kilobytes at a time and
// gives the event loop a turn every 10 ms of parsing; parseRecipientsCsv is the same reading in one
// go, which holds the event loop for as long as the file takes (seconds for 20 MB): prefer
// readRecipientsCsv.
//
// An optional column `expiresAt` (any case; decisions 24) sets a row's own expiry, overriding the
// template's validity: a date (YYYY-MM-DD, the end of that day in UTC) or a date-time as the API's
// `expiresAt`; empty, the template's validity. It is checked when the row is issued, as the API
// checks it: a bad value fails that row with its reason. A template with a field of that very key
// keeps its field: the column fills the field.

export const MAX_CSV_ROWS = 50_000;
/** 20 MB, as the contract writes it (decimal megabytes). */
export const MAX_CSV_BYTES = 20_000_000;
/** How the byte limit is named to people. */
export const MAX_CSV_SIZE = '20 MB';

export interface CsvLimits {
  rows: number;
  bytes: number;
}

const DEFAULT_LIMITS: CsvLimits = { rows: MAX_CSV_ROWS, bytes: MAX_CSV_BYTES };
/** Bytes of a file in memory decoded at a time. */
const READ_CHUNK = 64 * 1024;
/**
 * Text handed to the parser at a time: a few milliseconds of parsing for ordinary rows, about 60 ms
 * for the rows csv-parse is slowest on (1,000 rows of fewer or more cells than the header: it builds
 * an error object for each, about 50 µs, before relax_column_count lets the row through).
 */
const PARSE_PIECE = 4 * 1024;
/** The longest the parser runs before other work gets a turn of the event loop. */
const TURN_MS = 10;

// What one cell may hold (the API's limits: certificates.schemas.ts).
const CELL_LIMITS: Record<string, number> = { name: NAME_MAX_LENGTH, email: EMAIL_MAX_LENGTH };
const DATA_CELL_LIMIT = DATA_VALUE_MAX_LENGTH;

export interface CsvRow {
  // The line of the file the row ends on (the header is line 1), as a spreadsheet numbers it.
  line: number;
  recipient: {
    name: string;
    email: string;
    data: CsvData;
    /** The row's own expiry as the API takes it (a date made the end of its day, UTC). */
    expiresAt?: string | null;
  };
}

/** The column of a row's own expiry (any case). */
export const EXPIRY_COLUMN = 'expiresAt';

/** Why a row's expiresAt was refused, unless it was not after the issue time. */
export const EXPIRY_CELL_MESSAGE =
  'must be a date (YYYY-MM-DD: the end of that day, UTC) or a date-time with Z or an offset, such as 2028-11-26T17:00:00+01:00';

function refuse(message: string): never {
  throw new ValidationError([{ path: ['file'], message }], message);
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function sizeText(bytes: number): string {
  return bytes === MAX_CSV_BYTES ? MAX_CSV_SIZE : `${count(bytes)} bytes`;
}

/** The refusal of a file past the byte limit. */
export function tooLarge(limits: Pick<CsvLimits, 'bytes'> = DEFAULT_LIMITS): never {
  refuse(
    `The file is larger than ${sizeText(limits.bytes)}: at most ${sizeText(limits.bytes)} can be imported from one file; split it`,
  );
}

function tooManyRows(limits: Pick<CsvLimits, 'rows'>): never {
  refuse(
    `The file has more than ${count(limits.rows)} rows: at most ${count(limits.rows)} can be issued from one file; split it`,
  );
}

const NOT_UTF8 = 'The file is not UTF-8 text: save it as "CSV UTF-8" and upload it again';

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

// The header's columns (the expiry's named EXPIRY_COLUMN), the field columns, and which cells hold
// them (the expiry's is left out of the fields': expiryAt, -1 for none).
function checkHeader(
  record: string[],
  line: number,
  fields: CsvField[],
): { header: string[]; columns: CsvColumn[]; cells: number[]; expiryAt: number } {
  checkCharacters(undefined, record, line);
  const known = new Set(fields.map((f) => f.key));
  const isExpiry = (h: string) => !known.has(h) && h.toLowerCase() === EXPIRY_COLUMN.toLowerCase();
  const header = record.map((h) => h.trim()).map((h, i) => (i >= 2 && isExpiry(h) ? EXPIRY_COLUMN : h));
  if (header[0]?.toLowerCase() !== 'name' || header[1]?.toLowerCase() !== 'email') {
    refuse(
      `The header row must start with the columns name and email; it starts with ${header.slice(0, 2).join(', ')}`,
    );
  }
  const expiryAt = known.has(EXPIRY_COLUMN) ? -1 : header.indexOf(EXPIRY_COLUMN, 2);
  const cells = header.flatMap((_, i) => (i >= 2 && i !== expiryAt ? [i] : []));
  const expiry = known.has(EXPIRY_COLUMN) ? '' : `, and ${EXPIRY_COLUMN} may give an expiry`;
  const columns = fieldColumns(
    cells.map((i) => header[i]!),
    fields,
    expiry,
  );
  const missing = fields.filter((f) => f.required && !hasColumn(columns, f.key)).map((f) => f.key);
  if (missing.length > 0) refuse(`The header lacks the required field columns: ${missing.join(', ')}`);
  const duplicate = header.find((h, i) => header.indexOf(h) !== i);
  if (duplicate) refuse(`The header names the column ${duplicate} twice`);
  return { header, columns, cells, expiryAt };
}

// A row's expiresAt cell as the API takes it: a date becomes the end of that day (UTC); anything else
// goes as written, for the issue to accept or refuse.
function expiryCell(value: string): string | null {
  return value === '' ? null : (dayExpiry(value) ?? value);
}

// The rows of one file, a record at a time as the parser finds them: the header checked at the
// first, every row counted and checked as it comes, the row past the limit refused at once.
function recipientsCollector(fields: CsvField[], limits: CsvLimits) {
  let header: string[] | undefined;
  let columns: CsvColumn[] = [];
  let cells: number[] = [];
  let expiryAt = -1;
  const rows: CsvRow[] = [];
  return {
    // csv-parse's on_record: returns null so that the parser keeps nothing itself.
    onRecord(record: string[], info: { lines: number }): null {
      if (!header) {
        ({ header, columns, cells, expiryAt } = checkHeader(record, info.lines, fields));
        return null;
      }
      if (rows.length === limits.rows) tooManyRows(limits);
      checkCharacters(header, record, info.lines);
      const data = rowData(
        columns,
        cells.map((i) => record[i] ?? ''),
      );
      const expiresAt = expiryAt < 0 ? null : expiryCell(record[expiryAt]?.trim() ?? '');
      rows.push({
        line: info.lines,
        recipient: {
          name: record[0]?.trim() ?? '',
          email: record[1]?.trim() ?? '',
          data,
          ...(expiresAt === null ? {} : { expiresAt }),
        },
      });
      return null;
    },
    finish(): CsvRow[] {
      if (!header) refuse('The file is empty: it needs a header row and one row per recipient');
      if (rows.length === 0) refuse('The file has a header but no recipients');
      return rows;
    },
  };
}

// The header names no value, so its separator is whichever of the two it uses more.
function separatorOf(headerLine: string): ',' | ';' {
  return (headerLine.match(/;/g)?.length ?? 0) > (headerLine.match(/,/g)?.length ?? 0) ? ';' : ',';
}

function parserOptions(headerLine: string, onRecord: (r: string[], i: { lines: number }) => null): Options {
  return {
    delimiter: separatorOf(headerLine),
    skip_empty_lines: true,
    relax_column_count: true,
    on_record: onRecord,
  };
}

// A parser's own error is the file's fault; ours (a refusal) passes through as it is.
function csvProblem(err: unknown): never {
  if (err instanceof CsvError) refuse(`The file is not valid CSV: ${err.message}`);
  throw err;
}

/** The recipients of a whole file in memory, in one go, without a turn of the event loop. */
export function parseRecipientsCsv(
  bytes: Uint8Array,
  fields: CsvField[],
  maxRows = MAX_CSV_ROWS,
  maxBytes = MAX_CSV_BYTES,
): CsvRow[] {
  const limits = { rows: maxRows, bytes: maxBytes };
  if (bytes.length > limits.bytes) tooLarge(limits);
  let text: string;
  try {
    // A byte-order mark is dropped by the decoder.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    refuse(NOT_UTF8);
  }
  const collector = recipientsCollector(fields, limits);
  try {
    parseAll(text, parserOptions(text.slice(0, text.search(/\r|\n|$/)), collector.onRecord));
  } catch (err) {
    csvProblem(err);
  }
  return collector.finish();
}

async function* pieces(source: Uint8Array | AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (!(source instanceof Uint8Array)) return yield* source;
  for (let at = 0; at < source.length; at += READ_CHUNK) yield source.subarray(at, at + READ_CHUNK);
}

/**
 * The recipients of a file, read and parsed a piece at a time with a turn of the event loop every
 * TURN_MS, so that a 20 MB file never holds up other requests. `source`: the file's bytes (checked
 * against the byte limit before anything is parsed), or a stream of them (counted as they come).
 * Refusals are ValidationErrors naming the limit, the row or the column.
 */
export async function readRecipientsCsv(
  source: Uint8Array | AsyncIterable<Uint8Array>,
  fields: CsvField[],
  limits: CsvLimits = DEFAULT_LIMITS,
): Promise<CsvRow[]> {
  if (source instanceof Uint8Array && source.length > limits.bytes) tooLarge(limits);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (piece?: Uint8Array): string => {
    try {
      return piece ? decoder.decode(piece, { stream: true }) : decoder.decode();
    } catch {
      refuse(NOT_UTF8);
    }
  };
  const collector = recipientsCollector(fields, limits);
  let parser: ReturnType<typeof csvParser> | undefined;
  const start = (headerLine: string) => {
    parser = csvParser(parserOptions(headerLine, collector.onRecord));
    // Errors come back through the write and end callbacks; nothing is pushed to read.
    parser.on('error', () => {}).resume();
    return parser;
  };
  // Text handed to the parser a piece at a time, with a turn of the event loop every TURN_MS.
  let turnAt = performance.now();
  const feed = async (text: string) => {
    for (let at = 0; at < text.length; at += PARSE_PIECE) {
      const part = text.slice(at, at + PARSE_PIECE);
      await new Promise<void>((resolve, reject) =>
        parser!.write(part, (err) => (err ? reject(err) : resolve())),
      );
      if (performance.now() - turnAt >= TURN_MS) {
        await nextTurn();
        turnAt = performance.now();
      }
    }
  };
  // The text before the header line's end is known: the separator is read from that line.
  let head = '';
  let bytes = 0;
  try {
    for await (const piece of pieces(source)) {
      bytes += piece.length;
      if (bytes > limits.bytes) tooLarge(limits);
      const text = decode(piece);
      if (parser) {
        await feed(text);
        continue;
      }
      const end = text.search(/\r|\n/);
      if (end < 0) {
        head += text;
        continue;
      }
      start(head + text.slice(0, end));
      await feed(head + text);
      head = '';
    }
    const rest = head + decode();
    if (!parser) start(rest);
    await feed(rest);
    await new Promise<void>((resolve, reject) => {
      parser!.once('error', reject).once('finish', resolve).end();
    });
  } catch (err) {
    parser?.destroy();
    csvProblem(err);
  }
  return collector.finish();
}

// A failed row's reason as the results show it: "email: must be an email address".
export function issueText(issue: Issue): string {
  const path = issue.path.slice(2).join('.');
  const column = path === 'name' || path === 'email' ? path : path.startsWith('data.') ? path.slice(5) : path;
  // The API names its own form of an expiry; a file may also hold a date.
  if (path === EXPIRY_COLUMN && !issue.message.startsWith(EXPIRES_AFTER_ISSUE))
    return `${column}: ${EXPIRY_CELL_MESSAGE}`;
  return column ? `${column}: ${issue.message}` : issue.message;
}

// A results cell: one a spreadsheet would run as a formula (=, +, -, @ first) is written as text.
export function spreadsheetCell(value: string | number | null | undefined): string | number {
  if (typeof value !== 'string') return value ?? '';
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}
