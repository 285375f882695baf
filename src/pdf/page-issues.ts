import type { Design, TableElement } from './design.schema.js';
import { elementFonts, type DesignFontFace } from './design-fonts.js';
import { elementName } from './element-labels.js';
import { fontChain, fontNames } from './fonts.js';
import { parseText } from './placeholders.js';
import { num } from './pdf-syntax.js';
import type { RenderIssue } from './render-types.js';
import { headerFont, tableRows } from './table-layout.js';
import { unrenderableCharacters, unrenderableMessage } from './text-check.js';

// Static checks of a design's pages and its table (decisions 24), beside design-issues.ts: what
// is on page 2 needs a design of two pages, a table shows a declared list field within the page,
// and a list is shown by a table only, never by a text's placeholder.

export function pageIssues(design: Design, custom: ReadonlyMap<string, DesignFontFace>): RenderIssue[] {
  const issues: RenderIssue[] = [];
  const lists = new Set(design.fields.filter((f) => f.type === 'list').map((f) => f.key));
  let tables = 0;
  design.elements.forEach((element, i) => {
    if (element.type === 'text')
      issues.push(...listPlaceholders(element.text, lists, ['elements', i, 'text']));
    if (element.type !== 'table') return;
    tables++;
    if (tables > 1) {
      issues.push({ path: ['elements', i], message: 'is a second table: a design has at most one' });
      return;
    }
    issues.push(...tableIssues({ design, table: element, i, lists, custom }));
  });
  if (design.title !== undefined) issues.push(...listPlaceholders(design.title, lists, ['title']));
  // Named as the studio's list names them ("Table 4: ..."), like the other element issues.
  return issues.map((issue) => {
    const i = issue.path[0] === 'elements' ? issue.path[1] : undefined;
    const element = typeof i === 'number' ? design.elements[i] : undefined;
    return element ? { ...issue, message: `${elementName(element, i as number)}: ${issue.message}` } : issue;
  });
}

function listPlaceholders(text: string, lists: Set<string>, path: (string | number)[]): RenderIssue[] {
  return parseText(text).segments.flatMap((s) =>
    'ref' in s && s.ref.source === 'data' && lists.has(s.ref.key)
      ? [{ path, message: `{{data.${s.ref.key}}} is a list field: a table shows it, a text cannot` }]
      : [],
  );
}

function tableIssues(input: {
  design: Design;
  table: TableElement;
  i: number;
  lists: Set<string>;
  custom: ReadonlyMap<string, DesignFontFace>;
}): RenderIssue[] {
  const { design, table, i, lists, custom } = input;
  const issues: RenderIssue[] = [];
  const at = (...rest: (string | number)[]) => ['elements', i, ...rest];
  if (!lists.has(table.field)) {
    const declared = design.fields.some((f) => f.key === table.field);
    issues.push({
      path: at('field'),
      message: declared
        ? `"${table.field}" is a text field: a table shows a field of type list`
        : `"${table.field}" is not a declared field: declare it in fields with type list`,
    });
  }
  const columnsWidth = table.columns.reduce((sum, c) => sum + c.width, 0);
  if (columnsWidth > table.width + 1e-6) {
    issues.push({
      path: at('columns'),
      message: `its columns are ${num(columnsWidth)} pt wide in all, wider than the table (${num(table.width)} pt)`,
    });
  }
  const { width: pageWidth, height: pageHeight } = design.page;
  if (table.x + table.width > pageWidth + 1e-6) {
    issues.push({
      path: at('x'),
      message: `reaches past the right edge by ${num(Math.ceil((table.x + table.width - pageWidth) * 100) / 100)} pt`,
    });
  }
  if (table.y + table.height > pageHeight + 1e-6) {
    issues.push({
      path: at('y'),
      message: `reaches past the bottom edge by ${num(Math.ceil((table.y + table.height - pageHeight) * 100) / 100)} pt`,
    });
  }
  if (
    table.font !== undefined &&
    !(fontNames as readonly string[]).includes(table.font) &&
    !custom.has(table.font)
  ) {
    issues.push({
      path: at('font'),
      message: `"${table.font}" is neither a bundled font (${fontNames.join(', ')}) nor one of the design's fonts`,
    });
    return issues;
  }
  const { own } = elementFonts(table.font, custom, design.locale);
  const { rowHeight, rowsPerPage } = tableRows(table, own[0]!.font);
  if (rowsPerPage < 1) {
    issues.push({
      path: at('height'),
      message: `leaves no room for a row under the header: at least ${num(2 * rowHeight)} pt at size ${num(table.size ?? 11)}`,
    });
  }
  const header = elementFonts(headerFont(table.font), custom, design.locale);
  table.columns.forEach((c, k) => {
    const bad = unrenderableCharacters(c.label, fontChain(header.own, c.label, header.style));
    if (bad.length > 0) issues.push({ path: at('columns', k, 'label'), message: unrenderableMessage(bad) });
  });
  return issues;
}
