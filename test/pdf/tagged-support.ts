import { execFileSync } from 'node:child_process';
import { withPdfFile } from './pdf-helpers.js';

// Reading a tagged PDF back with implementations we did not write: pdf.js (the structure tree and
// the marked content of each page) and qpdf (the objects, as JSON).

export interface StructNode {
  role: string;
  lang?: string;
  /** pdf.js gives /Alt, or /ActualText when there is no /Alt, as `alt`. */
  alt?: string;
  children: StructNode[];
  /** The marked-content ids directly under the element (`p3R_mc5`). */
  content: string[];
  /** Its marked-content ids and child elements, in the order of its /K. */
  items: (string | StructNode)[];
}

interface PdfJsNode {
  role?: string;
  type?: string;
  id?: string;
  lang?: string;
  alt?: string;
  children?: PdfJsNode[];
}

function toNode(raw: PdfJsNode): StructNode {
  const items = (raw.children ?? [])
    .filter((k) => k.type !== 'object')
    .map((k) => (k.type === 'content' ? (k.id ?? '') : toNode(k)));
  return {
    role: raw.role ?? '',
    ...(raw.lang ? { lang: raw.lang } : {}),
    ...(raw.alt ? { alt: raw.alt } : {}),
    children: items.filter((k): k is StructNode => typeof k !== 'string'),
    content: items.filter((k): k is string => typeof k === 'string'),
    items,
  };
}

export interface TaggedPage {
  tree: StructNode;
  /** The text shown in each marked-content sequence, by id. */
  text: Map<string, string>;
  /** Text shown outside any sequence with an MCID (none in a tagged page). */
  untagged: string[];
}

/** Each page's structure tree and marked content, as pdf.js reads them. */
export async function taggedPages(pdf: Buffer): Promise<TaggedPage[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), verbosity: 0 }).promise;
  const pages: TaggedPage[] = [];
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const tree = toNode(((await page.getStructTree()) ?? { children: [] }) as PdfJsNode);
      const content = await page.getTextContent({ includeMarkedContent: true });
      const text = new Map<string, string>();
      const untagged: string[] = [];
      const open: (string | undefined)[] = [];
      for (const item of content.items as { type?: string; id?: string; str?: string }[]) {
        if (item.type === 'beginMarkedContentProps' || item.type === 'beginMarkedContent') {
          open.push(item.id ?? open[open.length - 1]);
        } else if (item.type === 'endMarkedContent') open.pop();
        else if (item.str) {
          const id = open[open.length - 1];
          if (id) text.set(id, (text.get(id) ?? '') + item.str);
          else if (item.str.trim()) untagged.push(item.str);
        }
      }
      pages.push({ tree, text, untagged });
    }
  } finally {
    await doc.destroy();
  }
  return pages;
}

/** Every element of the tree, depth first. */
export function allNodes(node: StructNode): StructNode[] {
  return [node, ...node.children.flatMap(allNodes)];
}

/** The text an element and its children show. */
export function nodeText(page: TaggedPage, node: StructNode): string {
  return node.items
    .map((k) => (typeof k === 'string' ? (page.text.get(k) ?? '') : nodeText(page, k)))
    .join('');
}

export type QpdfObjects = Record<
  string,
  { value?: unknown; stream?: { dict: Record<string, unknown>; data?: string } }
>;

/** The file's objects and trailer as `qpdf --json` gives them (streams decoded, base64). */
export function qpdfJson(pdf: Buffer): QpdfObjects {
  const out = withPdfFile(pdf, (file) =>
    execFileSync(
      'qpdf',
      ['--json', '--json-key=qpdf', '--json-stream-data=inline', '--decode-level=all', file],
      {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    ),
  );
  return (JSON.parse(out) as { qpdf: [unknown, QpdfObjects] }).qpdf[1];
}

/** An object's value, following a reference (`12 0 R`). */
export function resolve(objects: QpdfObjects, value: unknown): unknown {
  if (typeof value === 'string' && / 0 R$/.test(value)) {
    const obj = objects[`obj:${value}`];
    return obj?.stream ?? obj?.value;
  }
  return value;
}

/** A stream's decoded bytes. */
export function streamData(objects: QpdfObjects, ref: string): Buffer {
  return Buffer.from(objects[`obj:${ref}`]?.stream?.data ?? '', 'base64');
}

/** The document catalog. */
export function catalogOf(objects: QpdfObjects): Record<string, unknown> {
  const trailer = objects.trailer?.value as Record<string, string>;
  return resolve(objects, trailer['/Root']) as Record<string, unknown>;
}

/** What PDF/A and PDF/UA ask of the catalog and metadata, as found in the file (for assertions). */
export function archivalFacts(objects: QpdfObjects) {
  const catalog = catalogOf(objects);
  const trailer = objects.trailer?.value as Record<string, unknown>;
  const info = resolve(objects, trailer['/Info']) as Record<string, string>;
  const xmp = catalog['/Metadata']
    ? streamData(objects, catalog['/Metadata'] as string).toString('utf8')
    : '';
  const intents = ((resolve(objects, catalog['/OutputIntents']) as unknown[] | undefined) ?? []).map(
    (i) => resolve(objects, i) as Record<string, unknown>,
  );
  return { catalog, trailer, info, xmp, intents };
}
