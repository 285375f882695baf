import { ValidationError } from '../../platform/errors.js';
import { DATA_KEY_PATTERN } from '../../platform/ids.js';
import { LIST_ITEM_MAX_KEYS, LIST_MAX_ITEMS } from '../../platform/limits.js';
import type { ListItem } from '../../pdf/pdf-renderer.js';

// The CSV columns of a list field (decisions 24): `units[0].name`, `units[0].hours`, `units[1].name`
// ... each cell one value of one item. A row's items are its indexes that have a value, in index
// order: gaps and empty items (a shorter list than the header has room for) are dropped.

export interface CsvField {
  key: string;
  required: boolean;
  type?: 'text' | 'list' | undefined;
}

/** What a column of the header holds: a text field's value, or one value of a list field's item. */
export type CsvColumn = { key: string } | { key: string; index: number; column: string };

/** The data of a row: a text field's value, a list field's items. */
export type CsvData = Record<string, string | ListItem[]>;

const KEY = DATA_KEY_PATTERN.slice(1, -1);
const LIST_COLUMN = new RegExp(`^(${KEY})\\[(0|[1-9][0-9]*)\\]\\.(${KEY})$`);
// Anything that looks like an attempt at one: a bracket, or a list field's key with a dot.
const LOOKS_LISTED = /^([^[.]*)[[.]/;

function refuse(message: string, column: string): never {
  throw new ValidationError([{ path: ['file', 1, column], message }], message);
}

/**
 * The header's field columns (after name and email), each checked against the template's fields:
 * a text field by its key, a list field by `key[i].col` (i from 0 to LIST_MAX_ITEMS - 1).
 */
export function fieldColumns(header: string[], fields: CsvField[], also = ''): CsvColumn[] {
  const byKey = new Map(fields.map((f) => [f.key, f]));
  const keysOf = new Map<string, Set<string>>();
  const listed = (h: string): CsvColumn | undefined => {
    const match = LIST_COLUMN.exec(h);
    const field = byKey.get(match?.[1] ?? LOOKS_LISTED.exec(h)?.[1] ?? '');
    if (!field) return undefined;
    const example = `${field.key}[0].name, ${field.key}[0].hours, ${field.key}[1].name`;
    if (field.type !== 'list')
      refuse(`The column ${h}: ${field.key} is a text field, its column is ${field.key}`, h);
    const index = Number(match?.[2]);
    if (!match || index >= LIST_MAX_ITEMS) {
      refuse(
        `The column ${h} is not a column of the list ${field.key}: write ${example} ... (an item's index from 0 to ${LIST_MAX_ITEMS - 1}, a dot, then the key of its value)`,
        h,
      );
    }
    const keys = keysOf.get(field.key) ?? new Set<string>();
    keys.add(match[3]!);
    keysOf.set(field.key, keys);
    if (keys.size > LIST_ITEM_MAX_KEYS)
      refuse(`The columns of the list ${field.key} name more than ${LIST_ITEM_MAX_KEYS} keys of an item`, h);
    return { key: field.key, index, column: match[3]! };
  };
  const columns = header.map((h) => {
    const field = byKey.get(h);
    if (field?.type === 'list') {
      refuse(
        `The column ${h} is a list field: give its items' values in columns ${h}[0].name, ${h}[0].hours, ${h}[1].name ...`,
        h,
      );
    }
    return field ? { key: h } : listed(h);
  });
  const extra = header.filter((_, i) => columns[i] === undefined);
  if (extra.length > 0) {
    const names = fields.map((f) => (f.type === 'list' ? `${f.key}[i].<key>` : f.key));
    const message = `The header names columns this template has no field for: ${extra.join(', ')}; its fields are ${names.join(', ') || 'none'}${also}`;
    throw new ValidationError([{ path: ['file'], message }], message);
  }
  return columns as CsvColumn[];
}

/** The field columns of a row as data: empty cells left out, each list's items in index order. */
export function rowData(columns: CsvColumn[], cells: string[]): CsvData {
  const data: CsvData = {};
  let lists: Map<string, Map<number, ListItem>> | undefined;
  columns.forEach((c, i) => {
    const value = cells[i]?.trim() ?? '';
    if (value === '') return;
    if (!('index' in c)) {
      data[c.key] = value;
      return;
    }
    lists ??= new Map();
    const items = lists.get(c.key) ?? new Map<number, ListItem>();
    lists.set(c.key, items);
    const item = items.get(c.index) ?? {};
    items.set(c.index, item);
    item[c.column] = value;
  });
  for (const [key, items] of lists ?? []) {
    data[key] = [...items.entries()].sort((a, b) => a[0] - b[0]).map(([, item]) => item);
  }
  return data;
}

/** Whether the header has a column for the field (any of its columns, for a list). */
export function hasColumn(columns: CsvColumn[], key: string): boolean {
  return columns.some((c) => c.key === key);
}
