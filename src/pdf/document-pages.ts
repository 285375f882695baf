import { fontChain } from './fonts.js';
import { refKey, refPath } from './placeholders.js';
import { num, textString } from './pdf-syntax.js';
import { qrOps } from './qr-code.js';
import { PageTags, type TagNode } from './structure-tree.js';
import type { CompiledTemplate, ContentPart, DynamicText } from './template-compiler.js';
import { tableIssues, tablePages, type DynamicTable } from './table-layout.js';
import { unrenderableMessage } from './text-check.js';
import { textLanguage } from './text-language.js';
import { ISOLATE_END, ISOLATE_START } from './text-runs.js';
import { layoutText, shapeLine, type GlyphSink, type LineTag } from './text-layout.js';
import { storedPiece, zlibStream, type ZlibPiece } from './zlib-pieces.js';
import type { ListItem, RenderIssue, RenderValues } from './render-types.js';

// A document's pages: the template's content with the recipient's values drawn into it, each text
// line, the QR code and the table's cells marked with the next MCIDs of the page and given their
// structure elements (structure-tree.ts).

// The QR code's default alternative text before its URL.
const QR_ALT = 'QR code: verification link ';

export interface DrawContext {
  template: CompiledTemplate;
  values: RenderValues;
  /** The placeholders' values, by refKey. */
  resolved: Map<string, string>;
  sink: GlyphSink;
  issues: RenderIssue[];
}

export interface DrawnPage {
  /** The template's static parts as their pieces (deflated once), the recipient's as text. */
  content: (ZlibPiece | string)[];
  nodes: TagNode[];
}

/**
 * A page's content stream: the static parts' pieces as they are, the text between them stored (no
 * zlib call per document: a call costs more than the rest of the stream, for a few hundred bytes).
 */
export function contentStream(content: (ZlibPiece | string)[]): Buffer {
  const pieces: ZlibPiece[] = [];
  let text = '';
  for (const c of content) {
    if (typeof c === 'string') {
      text += c;
      continue;
    }
    if (text) pieces.push(storedPiece(Buffer.from(text, 'latin1')));
    text = '';
    pieces.push(c);
  }
  if (text) pieces.push(storedPiece(Buffer.from(text, 'latin1')));
  return zlibStream(pieces);
}

// A page's content: one, or one per page when the page holds a table that runs onto further pages
// (everything else on the page repeated on each).
export function drawParts(
  ctx: DrawContext,
  parts: ContentPart[],
  shared: { nodes: readonly TagNode[]; count: number },
): DrawnPage[] {
  const { template, values, sink, issues } = ctx;
  const tags = new PageTags(shared);
  let content: (ZlibPiece | string)[] = [];
  let table: { part: DynamicTable; items: ListItem[]; before: (ZlibPiece | string)[] } | undefined;
  for (const part of parts) {
    if (typeof part === 'string') {
      content.push(template.staticPieces.get(part)!);
      continue;
    }
    if (part.kind === 'table') {
      const items = values.data?.[part.field];
      const problems = tableIssues(part, items);
      issues.push(...problems);
      if (problems.length > 0) continue;
      // Drawn last, so that its cells take the page's last MCIDs, from the same number on every page.
      table = { part, items: Array.isArray(items) ? (items as ListItem[]) : [], before: content };
      content = [];
      continue;
    }
    if (part.kind === 'qr') {
      let ops: string;
      try {
        ops = qrOps(part, values.verificationUrl, template.pageHeight);
      } catch {
        issues.push({ path: ['verificationUrl'], message: 'cannot be encoded as a QR code (too long)' });
        continue;
      }
      const alt = part.alt ?? textString(QR_ALT + values.verificationUrl);
      content.push(tags.mark('Figure', ` /Alt ${alt}`, ops, part));
    } else content.push(drawText(ctx, part, tags));
  }
  if (!table) return [{ content, nodes: tags.nodes }];
  const pages = tablePages(table.part, table.items, template.pageHeight, sink, tags.count);
  return pages.map((page) => ({
    content: [...table.before, page.ops, ...content],
    nodes: [...tags.nodes, page.node],
  }));
}

// Speed-first: the name element's attributes of names seen lately (a batch repeats its names), by
// the document's language, then the name (no key joined per document).
const nameAttrsSeen = new Map<string, Map<string, string>>();
let nameAttrsCount = 0;
function nameAttributes(name: string, lang: string): string {
  let attrs = nameAttrsSeen.get(lang)?.get(name);
  if (attrs !== undefined) return attrs;
  attrs = ` /Lang ${textString(textLanguage(name, lang))} /ActualText ${textString(name)}`;
  if (nameAttrsCount++ >= 4096) {
    nameAttrsSeen.clear();
    nameAttrsCount = 0;
  }
  let seen = nameAttrsSeen.get(lang);
  if (!seen) nameAttrsSeen.set(lang, (seen = new Map()));
  seen.set(name, attrs);
  return attrs;
}

// Loops and module-level functions, not closures made per document: V8 drops the optimised code of
// closures that no live function holds at each full GC, and compiled these again (docs/benchmarks.md).
function printsNothing(part: DynamicText, resolved: DrawContext['resolved']): boolean {
  for (const s of part.segments) if ('ref' in s && resolved.get(refKey(s.ref))) return false;
  return true;
}
const isRecipientValue = (s: DynamicText['segments'][number]) =>
  'ref' in s && (s.ref.source === 'name' || s.ref.source === 'data');

// A text with values: its line marked as one element (the name alone on its line is that element),
// or, when the line shows the recipient's name among other text, a paragraph with the name as a Span
// of its own inside it, in logical order.
function drawText(ctx: DrawContext, part: DynamicText, tags: PageTags): string {
  const { template, resolved, sink, issues } = ctx;
  // A text whose placeholders all print nothing is not drawn (docs/design-format.md).
  if (part.hideWhenEmpty && printsNothing(part, resolved)) return '';
  let text = '';
  let name: { value: string; range: [number, number] } | undefined;
  let others = false;
  for (const segment of part.segments) {
    if ('ref' in segment) {
      const value = resolved.get(refKey(segment.ref)) ?? '';
      if (segment.ref.source === 'name' && !name)
        name = { value, range: [text.length, text.length + value.length + 2] };
      else if (value.trim()) others = true;
      text += ISOLATE_START + value + ISOLATE_END;
    } else {
      text += segment.literal;
      if (segment.literal.trim()) others = true;
    }
  }
  const split = name && others ? name.range : undefined;
  const line = shapeLine(text, fontChain(part.own, text, part.style), split);
  const culprit = part.segments.find(isRecipientValue);
  const path = culprit && 'ref' in culprit ? refPath(culprit.ref) : [];
  if ('uncovered' in line) {
    issues.push({ path, message: unrenderableMessage(line.uncovered) });
    return '';
  }
  const lang = template.lang;
  const nameAttrs = name ? nameAttributes(name.value, lang) : '';
  const sequences: { id: number; own: boolean; start: number }[] = [];
  const tag: LineTag | undefined = split && {
    own: split,
    open(own, start) {
      const id = tags.mcid();
      sequences.push({ id, own, start });
      return `/${own ? 'Span' : part.role} <</MCID ${id}>> BDC\n`;
    },
  };
  const layout = layoutText(part.box, line, template.pageHeight, sink, tag);
  if (!('ops' in layout)) {
    issues.push({
      path,
      message: `is too long to fit its box in design element ${part.elementIndex} at the minimum size ${num(part.box.minSize ?? 0)} pt`,
    });
    return '';
  }
  if (!split) {
    if (name) return tags.mark(part.role, nameAttrs, layout.ops, part.box);
    const textLang = textLanguage(line.text, lang);
    return tags.mark(
      part.role,
      textLang === lang ? '' : ` /Lang ${textString(textLang)}`,
      layout.ops,
      part.box,
    );
  }
  if (sequences.length === 0) return layout.ops;
  const k: TagNode['k'] = [];
  let span: TagNode | undefined;
  for (const s of sequences.sort((a, b) => a.start - b.start)) {
    if (!s.own) k.push(s.id);
    else if (span) span.k.push(s.id);
    else {
      span = { role: 'Span', attrs: nameAttrs, k: [s.id], x: part.box.x, y: part.box.y };
      k.push(span);
    }
  }
  const lineLang = textLanguage(line.text.replace(name!.value, ''), lang);
  tags.nodes.push({
    role: part.role,
    attrs: lineLang === lang ? '' : ` /Lang ${textString(lineLang)}`,
    k,
    x: part.box.x,
    y: part.box.y,
  });
  return layout.ops;
}
