import { PdfWriter } from './pdf-syntax.js';

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

function elementHead(node: TagNode, parent: number, page: number, k: string): string {
  return `<< /Type /StructElem /S /${node.role} /P ${parent} 0 R /Pg ${page} 0 R /K [${k}]`;
}

function elementBody(node: TagNode, parent: number, page: number, k: string): string {
  return `${elementHead(node, parent, page, k)}${node.attrs} >>`;
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
 * A one-page document's structure as the first document of its shape wrote it (by the elements'
 * first object and the widget): where each new element goes and its body but its attributes (a
 * name's /Lang and /ActualText, the QR code's /Alt), and the root, parent tree and Document
 * element as bytes.
 */
interface StructurePlan {
  nodes: readonly TagNode[];
  /** The new elements in the order written: their node's index on the page, object, body's head. */
  placed: [index: number, id: number, head: string][];
  tail: { bytes: Buffer; offsets: Map<number, number> };
}

/** A template's plans (speed-first: most documents of a template share their structure's shape). */
export type StructurePlans = Map<string, StructurePlan>;

interface StructureOptions {
  pages: readonly StructurePage[];
  firstId: number;
  rtl: boolean;
  /** The signature field's widget annotation (on the first page), tagged as a Form element. */
  widget?: number;
  plans?: StructurePlans;
}

/**
 * Writes the StructTreeRoot, the ParentTree, the Document element and the pages' elements but
 * those of the prefix (from object `firstId` on, elementCount of them, then the widget's Form
 * element when there is one). A one-page document whose elements have the shape of one written
 * before (the same elements at the same places with the same MCIDs) writes from that one's plan.
 */
export function writeStructure(writer: PdfWriter, opts: StructureOptions): void {
  const nodes = opts.pages.length === 1 ? opts.pages[0]!.nodes : undefined;
  const key = `${opts.firstId} ${opts.widget ?? ''}`;
  const known = nodes && opts.plans?.get(key);
  if (known && sameShape(known.nodes, nodes)) {
    // Every body is ASCII (names, numbers, hex or ASCII strings): written in one go.
    const objects: [number, string][] = [];
    for (const [i, id, head] of known.placed) objects.push([id, `${head}${nodes[i]!.attrs} >>`]);
    writer.objects(objects);
    writer.prebuilt(known.tail.bytes, known.tail.offsets);
    return;
  }
  const { placed, root } = layout(opts);
  writer.objects(placed.map(([node, id, head]) => [id, `${head}${node.attrs} >>`]));
  const plannable =
    nodes !== undefined &&
    opts.plans !== undefined &&
    opts.plans.size < 16 &&
    nodes.every((n) => n.id !== undefined || n.k.every((k) => typeof k === 'number'));
  if (!plannable) {
    writer.objects(root);
    return;
  }
  // The root's objects as bytes of their own, written now and kept for the documents to come.
  const tail = new PdfWriter();
  tail.objects(root);
  const built = tail.build();
  writer.prebuilt(built.bytes, built.offsets);
  const index = new Map(nodes.map((node, i) => [node, i]));
  opts.plans!.set(key, {
    nodes,
    placed: placed.map(([node, id, head]) => [index.get(node)!, id, head]),
    tail: built,
  });
}

// The same elements as the plan's: the template's shared ones, and new leaves with the same role,
// place and MCIDs.
function sameShape(plan: readonly TagNode[], nodes: readonly TagNode[]): boolean {
  if (plan.length !== nodes.length) return false;
  for (let i = 0; i < nodes.length; i++) {
    const a = plan[i]!;
    const b = nodes[i]!;
    if (a === b) continue;
    if (b.id !== undefined || a.role !== b.role || a.x !== b.x || a.y !== b.y) return false;
    if (a.k.length !== b.k.length) return false;
    for (let j = 0; j < b.k.length; j++) {
      if (typeof b.k[j] !== 'number' || a.k[j] !== b.k[j]) return false;
    }
  }
  return true;
}

// Each new element's object and body but its attributes, and the root's objects.
function layout(opts: StructureOptions): {
  placed: [node: TagNode, id: number, head: string][];
  root: [number, string][];
} {
  let nextId = opts.firstId;
  const placed: [TagNode, number, string][] = [];
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
      placed.push([node, id, elementHead(node, parent, page.id, k.trim())]);
      return id;
    };
    const ordered = page.nodes.slice().sort((a, b) => a.y - b.y || across * (a.x - b.x));
    for (const node of ordered) top.push(write(node, DOCUMENT_ELEMENT));
    let refs = '';
    for (let i = 0; i < parents.length; i++)
      refs += parents[i] === undefined ? ' null' : ` ${parents[i]} 0 R`;
    nums.push(`${pageIndex} [${refs.trim()}]`);
  });
  const root: [number, string][] = [];
  let nextKey = opts.pages.length;
  if (opts.widget !== undefined) {
    const id = nextId++;
    root.push([
      id,
      `<< /Type /StructElem /S /Form /P ${DOCUMENT_ELEMENT} 0 R /Pg ${opts.pages[0]!.id} 0 R ` +
        `/K << /Type /OBJR /Obj ${opts.widget} 0 R /Pg ${opts.pages[0]!.id} 0 R >> /Alt (Digital signature of the issuer) >>`,
    ]);
    top.push(id);
    nums.push(`${nextKey++} ${id} 0 R`);
  }
  root.push(
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
  return { placed, root };
}
