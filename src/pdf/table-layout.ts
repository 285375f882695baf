import { LIST_MAX_ITEMS } from '../platform/limits.js';
import type { TableElement } from './design.schema.js';
import type { DesignFontFace } from './design-fonts.js';
import { elementFonts } from './design-fonts.js';
import { fontChain, type Face, type FallbackStyle } from './fonts.js';
import { formatNumber } from './placeholders.js';
import { num, rgb } from './pdf-syntax.js';
import type { ListItem, RenderIssue } from './render-types.js';
import { unrenderableCharacters, unrenderableMessage } from './text-check.js';
import { ISOLATE_END, ISOLATE_START } from './text-runs.js';
import { artifact, marked, type PageTags, type TagNode } from './structure-tree.js';
import {
  fittingSize,
  layoutText,
  lineHeight,
  shapeLine,
  type GlyphSink,
  type ShapedLine,
  type TextBox,
} from './text-layout.js';

// A table on the second page, filled from a list field (decisions 24): a header row of the
// columns' labels, then one row per item of the recipient's list, each cell that item's value for
// the column's key, drawn through the same stages as a dynamic text (bidi, font fallback, shaping).
// Rows that do not fit the table's height go onto further pages, each a copy of page 2 with the
// header row again. A value too wide for its column shrinks down to CELL_MIN_SCALE of the table's
// size, and past that is cut and ends with an ellipsis.

/** How far a value shrinks before it is cut with an ellipsis. */
export const CELL_MIN_SCALE = 0.75;
const ELLIPSIS = '\u2026';
/** Room above and below a row's text, and beside a cell's, as a share of the size. */
const ROW_PADDING = 0.5;
const CELL_PADDING = 0.3;
const DEFAULT_RULE = '#9CA3AF';

export interface TableColumnBox {
  key: string;
  x: number;
  width: number;
}

export interface DynamicTable {
  kind: 'table';
  elementIndex: number;
  field: string;
  columns: TableColumnBox[];
  /** The header row and its rule, the same on every page: written once for all documents. */
  headerOps: string;
  /** The header cells' MCIDs (TH elements), the same on every page. */
  headerMcids: number[];
  y: number;
  firstRowY: number;
  rowHeight: number;
  rowsPerPage: number;
  x: number;
  width: number;
  size: number;
  color: string;
  rule: string;
  own: Face[];
  style: FallbackStyle;
  locale: string;
}

/** The table's geometry: how tall a row is and how many fit in its height below the header. */
export function tableRows(
  element: TableElement,
  metrics: Face['font'],
): { rowHeight: number; rowsPerPage: number } {
  const size = element.size ?? 11;
  const rowHeight = lineHeight(metrics, size) + ROW_PADDING * size;
  return { rowHeight, rowsPerPage: Math.floor((element.height - rowHeight) / rowHeight + 1e-9) };
}

/** The header's font: the bold of a bundled font, a design's own font as it is. */
export function headerFont(font: string | undefined): string | undefined {
  if (font === undefined || font === 'sans') return 'sans-bold';
  return font === 'serif' ? 'serif-bold' : font;
}

function cellBox(
  column: TableColumnBox,
  y: number,
  table: Pick<DynamicTable, 'size' | 'color'>,
  metrics: Face['font'],
): TextBox {
  const pad = CELL_PADDING * table.size;
  return {
    x: column.x + pad,
    y: y + (ROW_PADDING * table.size) / 2,
    width: Math.max(column.width - 2 * pad, 1),
    size: table.size,
    minSize: table.size * CELL_MIN_SCALE,
    align: 'left',
    color: table.color,
    metrics,
  };
}

function ruleOps(
  table: Pick<DynamicTable, 'x' | 'width' | 'rule'>,
  y: number,
  weight: number,
  pageHeight: number,
): string {
  const at = num(pageHeight - y);
  return `q ${rgb(table.rule)} RG ${num(weight)} w ${num(table.x)} ${at} m ${num(table.x + table.width)} ${at} l S Q\n`;
}

/** Compiles a table: its columns and its header row, drawn with the static glyphs of the template. */
export function compileTable(input: {
  element: TableElement;
  elementIndex: number;
  custom: ReadonlyMap<string, DesignFontFace>;
  pageHeight: number;
  locale: string;
  sink: GlyphSink;
  /** The page's marked content: the header cells take their MCIDs from it. */
  tags: PageTags;
}): DynamicTable {
  const { element, pageHeight } = input;
  const fonts = elementFonts(element.font, input.custom, input.locale);
  const header = elementFonts(headerFont(element.font), input.custom, input.locale);
  const metrics = fonts.own[0]!.font;
  const { rowHeight, rowsPerPage } = tableRows(element, metrics);
  let x = element.x;
  const columns = element.columns.map((c) => {
    const column = { key: c.key, x, width: c.width };
    x += c.width;
    return column;
  });
  const table = {
    kind: 'table' as const,
    elementIndex: input.elementIndex,
    field: element.field,
    columns,
    firstRowY: element.y + rowHeight,
    rowHeight,
    rowsPerPage,
    x: element.x,
    y: element.y,
    width: element.width,
    size: element.size ?? 11,
    color: element.color ?? '#000000',
    rule: element.rule ?? DEFAULT_RULE,
    own: fonts.own,
    style: fonts.style,
    locale: input.locale,
  };
  let headerOps = '';
  const headerMcids: number[] = [];
  element.columns.forEach((c, i) => {
    const line = shapeLine(c.label, fontChain(header.own, c.label, header.style));
    if ('uncovered' in line) throw new Error(`elements[${input.elementIndex}] has characters no font has`);
    const box = { ...cellBox(columns[i]!, element.y, table, header.own[0]!.font), minSize: undefined };
    const layout = layoutText(
      box,
      fitted(line, box, header.own, header.style, c.label),
      pageHeight,
      input.sink,
    );
    if (!('ops' in layout)) return;
    const mcid = input.tags.mcid();
    headerMcids.push(mcid);
    headerOps += marked('TH', mcid, layout.ops);
  });
  headerOps += artifact(ruleOps(table, element.y + rowHeight, 1, pageHeight));
  return { ...table, headerOps, headerMcids };
}

/** A cell's text as it is drawn: numbers in the design's language, strings as given. */
export function cellText(value: unknown, locale: string): string {
  if (typeof value === 'number') return formatNumber(value, locale);
  return typeof value === 'string' ? value.normalize('NFC') : '';
}

// The line itself when it fits at the smallest size; else its longest start (whole graphemes) that
// fits with an ellipsis after it.
function fitted(
  line: ShapedLine,
  box: TextBox,
  own: Face[],
  style: FallbackStyle,
  value: string,
): ShapedLine {
  const smallest = box.minSize ?? box.size;
  if (fittingSize(line, box.width, box.size) >= smallest) return line;
  const ends = [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(value)].map(
    (s) => s.index + s.segment.length,
  );
  const cut = (n: number): ShapedLine | undefined => {
    const text = `${ISOLATE_START}${value.slice(0, ends[n - 1] ?? 0).trimEnd()}${ISOLATE_END}${ELLIPSIS}`;
    const shaped = shapeLine(text, fontChain(own, text, style));
    return 'uncovered' in shaped ? undefined : shaped;
  };
  let low = 0;
  let high = ends.length - 1;
  let best = cut(0);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    const shaped = cut(mid);
    if (shaped && shaped.em * smallest <= box.width) {
      best = shaped;
      low = mid;
    } else high = mid - 1;
  }
  return best ?? line;
}

/** The list's problems as issues (items that are not objects, too many of them, characters). */
export function tableIssues(table: DynamicTable, items: unknown): RenderIssue[] {
  const path = ['data', table.field];
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) return [{ path, message: 'must be a list (an array of objects)' }];
  if (items.length > LIST_MAX_ITEMS) return [{ path, message: `has more than ${LIST_MAX_ITEMS} items` }];
  const issues: RenderIssue[] = [];
  items.forEach((item: unknown, i) => {
    if (!item || typeof item !== 'object' || Array.isArray(item)) {
      issues.push({ path: [...path, i], message: 'must be an object' });
      return;
    }
    for (const { key } of table.columns) {
      const text = cellText((item as ListItem)[key], table.locale);
      const bad = unrenderableCharacters(text, fontChain(table.own, text, table.style));
      if (bad.length > 0) issues.push({ path: [...path, i, key], message: unrenderableMessage(bad) });
    }
  });
  return issues;
}

/**
 * The table's content on each of its pages (at least one: the header alone for an empty list), and
 * its Table element there (a header row of TH, a row of TD per item), the cells' MCIDs from
 * `firstMcid` on each page.
 */
export function tablePages(
  table: DynamicTable,
  items: ListItem[],
  pageHeight: number,
  sink: GlyphSink,
  firstMcid: number,
): { ops: string; node: TagNode }[] {
  const pages: { ops: string; node: TagNode }[] = [];
  const perPage = Math.max(1, table.rowsPerPage);
  const metrics = table.own[0]!.font;
  const at = { x: table.x, y: table.y };
  const cell = (role: string, k: number[]): TagNode => ({ role, attrs: '', k, ...at });
  for (let start = 0; start === 0 || start < items.length; start += perPage) {
    let ops = table.headerOps;
    let mcid = firstMcid;
    const rows: TagNode[] = [
      { role: 'TR', attrs: '', k: table.headerMcids.map((id) => cell('TH', [id])), ...at },
    ];
    items.slice(start, start + perPage).forEach((item, row) => {
      const y = table.firstRowY + row * table.rowHeight;
      const cells: TagNode[] = [];
      rows.push({ role: 'TR', attrs: '', k: cells, ...at });
      for (const column of table.columns) {
        const value = cellText(item[column.key], table.locale);
        if (value === '') {
          cells.push(cell('TD', []));
          continue;
        }
        const box = cellBox(column, y, table, metrics);
        const text = ISOLATE_START + value + ISOLATE_END;
        const line = shapeLine(text, fontChain(table.own, text, table.style));
        if ('uncovered' in line) continue; // refused before (tableIssues)
        const layout = layoutText(box, fitted(line, box, table.own, table.style, value), pageHeight, sink);
        if (!('ops' in layout)) continue;
        const id = mcid++;
        ops += marked('TD', id, layout.ops);
        cells.push(cell('TD', [id]));
      }
      ops += artifact(ruleOps(table, y + table.rowHeight, 0.5, pageHeight));
    });
    pages.push({ ops, node: { role: 'Table', attrs: '', k: rows, ...at } });
  }
  return pages;
}
