import type { PdfWriter } from './pdf-syntax.js';

// Tagged PDF (PDF/UA-1, docs/pdf.md): every text line, image and QR code is a marked-content
// sequence with an MCID (BDC ... EMC), decorations are artifacts, and a structure tree says what each
// is (H1, P, Span, Figure, Table) in reading order. The template compiler marks what every
// certificate shares (MCIDs from 0 on each page); a document numbers its own values after them and
// writes the tree: a Document element under the StructTreeRoot, the page's elements sorted top to
// bottom, then left to right (right to left in a right-to-left language), and the ParentTree that
// maps each page's MCIDs (and the signature widget) back to their elements. The first page's shared
// elements are objects of the template's prefix (sharedTags): a document only refers to them.

export const STRUCT_TREE_ROOT = 7;
export const PARENT_TREE = 8;
export const DOCUMENT_ELEMENT = 9;

/** A structure element of one page. */
export interface TagNode {
  role: string;
  /** Its other entries in PDF syntax, each after a space: /Lang, /Alt, /ActualText. */
  attrs: string;
  /** Its MCIDs (on its page) and child elements, in logical order. */
  k: (number | TagNode)[];
  /** Where it starts, in points from the top-left of the page: its place in the reading order. */
  x: number;
  y: number;
  /** Its object, when the template's prefix holds it (sharedTags). */
  id?: number;
}

/** The marked content of a page and its elements; numbers MCIDs from `count` on. */
export class PageTags {
  readonly nodes: TagNode[];
  private next: number;

  constructor(from?: { nodes: readonly TagNode[]; count: number }) {
    this.nodes = from ? from.nodes.slice() : [];
    this.next = from?.count ?? 0;
  }

  /** MCIDs given so far on this page. */
  get count(): number {
    return this.next;
  }

  mcid(): number {
    return this.next++;
  }

  /** `ops` as one element of its own (a P, a Figure ...), marked; nothing for no operators. */
  mark(role: string, attrs: string, ops: string, at: { x: number; y: number }): string {
    if (!ops) return '';
    const id = this.mcid();
    this.nodes.push({ role, attrs, k: [id], x: at.x, y: at.y });
    return marked(role, id, ops);
  }
}

/** Operators in a marked-content sequence with an MCID. */
export function marked(role: string, mcid: number, ops: string): string {
  return `/${role} <</MCID ${mcid}>> BDC\n${ops}EMC\n`;
}

/** Decorations (borders, rules, backgrounds): not part of the structure. */
export function artifact(ops: string): string {
  return ops ? `/Artifact BMC\n${ops}EMC\n` : '';
}

export interface StructurePage {
  id: number;
  nodes: readonly TagNode[];
}

/** How many objects the page's elements take (one each, but for those of the prefix). */
export function elementCount(pages: readonly StructurePage[]): number {
  let n = 0;
  const walk = (node: TagNode): void => {
    if (node.id === undefined) n++;
    for (const k of node.k) if (typeof k !== 'number') walk(k);
  };
  for (const page of pages) for (const node of page.nodes) walk(node);
  return n;
}

function elementBody(node: TagNode, parent: number, page: number, k: string): string {
  return `<< /Type /StructElem /S /${node.role} /P ${parent} 0 R /Pg ${page} 0 R /K [${k}]${node.attrs} >>`;
}

/**
 * The marked content every document shares, per page: its elements and how many MCIDs. The first
 * page's elements (each of its MCIDs alone, children of the Document element) are written once, as
 * objects from `firstId` on, and carry their `id`; `next` is the next free object number.
 */
export function sharedTags(
  writer: PdfWriter,
  pages: readonly PageTags[],
  firstPageId: number,
  firstId: number,
): { tags: { nodes: TagNode[]; count: number }[]; next: number } {
  let next = firstId;
  const objects: [number, string][] = [];
  const written = pages[0]!.nodes.map((node) => {
    if (!node.k.every((k) => typeof k === 'number')) return node;
    const id = next++;
    objects.push([id, elementBody(node, DOCUMENT_ELEMENT, firstPageId, node.k.join(' '))]);
    return { ...node, id };
  });
  writer.objects(objects);
  const tags = pages.map((page, i) => ({ nodes: i === 0 ? written : page.nodes, count: page.count }));
  return { tags, next };
}

/**
 * Writes the StructTreeRoot, the ParentTree, the Document element and the pages' elements but
 * those of the prefix (from object `firstId` on, elementCount of them, then the widget's Form
 * element when there is one).
 */
export function writeStructure(
  writer: PdfWriter,
  opts: {
    pages: readonly StructurePage[];
    firstId: number;
    rtl: boolean;
    /** The signature field's widget annotation (on the first page), tagged as a Form element. */
    widget?: number;
  },
): void {
  let nextId = opts.firstId;
  // Every body is ASCII (names, numbers, hex strings): written in one go.
  const objects: [number, string][] = [];
  const top: number[] = [];
  const nums: string[] = [];
  const across = opts.rtl ? -1 : 1;
  opts.pages.forEach((page, pageIndex) => {
    const parents: number[] = [];
    const write = (node: TagNode, parent: number): number => {
      if (node.id !== undefined) {
        for (const item of node.k) parents[item as number] = node.id;
        return node.id;
      }
      const id = nextId++;
      let k = '';
      for (const item of node.k) {
        if (typeof item === 'number') {
          parents[item] = id;
          k += ` ${item}`;
        } else k += ` ${write(item, id)} 0 R`;
      }
      objects.push([id, elementBody(node, parent, page.id, k.trim())]);
      return id;
    };
    const ordered = page.nodes.slice().sort((a, b) => a.y - b.y || across * (a.x - b.x));
    for (const node of ordered) top.push(write(node, DOCUMENT_ELEMENT));
    let refs = '';
    for (let i = 0; i < parents.length; i++)
      refs += parents[i] === undefined ? ' null' : ` ${parents[i]} 0 R`;
    nums.push(`${pageIndex} [${refs.trim()}]`);
  });
  let nextKey = opts.pages.length;
  if (opts.widget !== undefined) {
    const id = nextId++;
    objects.push([
      id,
      `<< /Type /StructElem /S /Form /P ${DOCUMENT_ELEMENT} 0 R /Pg ${opts.pages[0]!.id} 0 R ` +
        `/K << /Type /OBJR /Obj ${opts.widget} 0 R /Pg ${opts.pages[0]!.id} 0 R >> /Alt (Digital signature of the issuer) >>`,
    ]);
    top.push(id);
    nums.push(`${nextKey++} ${id} 0 R`);
  }
  objects.push(
    [
      STRUCT_TREE_ROOT,
      `<< /Type /StructTreeRoot /K ${DOCUMENT_ELEMENT} 0 R /ParentTree ${PARENT_TREE} 0 R /ParentTreeNextKey ${nextKey} >>`,
    ],
    [PARENT_TREE, `<< /Nums [${nums.join(' ')}] >>`],
    [
      DOCUMENT_ELEMENT,
      `<< /Type /StructElem /S /Document /P ${STRUCT_TREE_ROOT} 0 R /K [${top.map((id) => `${id} 0 R`).join(' ')}] >>`,
    ],
  );
  writer.objects(objects);
}
