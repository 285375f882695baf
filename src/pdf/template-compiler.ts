import { CROCKFORD } from '../platform/ids.js';
import type { Design, QrElement } from './design.schema.js';
import { designFontFaces, elementFonts } from './design-fonts.js';
import { fontChain, type Face, type FallbackStyle } from './fonts.js';
import { ImageObjects } from './image-objects.js';
import { lineOps } from './lines.js';
import { parseText, refKey, resolveSignatories, type Segment, type ValueRef } from './placeholders.js';
import { num, PdfWriter, textString } from './pdf-syntax.js';
import { outputIntentProfile, outputIntents } from './output-intent.js';
import {
  artifact,
  PageTags,
  STRUCT_TREE_ROOT,
  sharedTags,
  type StructurePlans,
  type TagNode,
} from './structure-tree.js';
import { documentLanguage, textLanguage } from './text-language.js';
import { xmpHalves } from './xmp.js';
import { backgroundOps, rectOps, textBox, titleIndex } from './template-parts.js';
import { signatoryOps } from './signatory-block.js';
import { layoutText, shapeLine, type GlyphSink, type TextBox } from './text-layout.js';
import { compileTable, type DynamicTable } from './table-layout.js';
import { deflatedPiece, type ZlibPiece } from './zlib-pieces.js';

// Everything about a template that does not depend on the recipient is worked out once per thread
// and template version: fonts, images serialised as PDF objects, static content, static glyphs.

/** A font's subset in one document: glyphs in subset order (index = CID, 0 = .notdef). */
export interface SubsetState {
  glyphs: number[];
  /** Original glyph id -> the CID drawn with its own text (and used for composite components). */
  index: Map<number, number>;
  /** Unicode text of each CID (ToUnicode); '' for glyphs that are part of another's cluster. */
  text: string[];
  /** `gid:text` -> CID, for a glyph drawn with another text than its first (e.g. in a ligature). */
  variants: Map<string, number>;
}

export interface DocumentFont extends SubsetState {
  face: Face;
  resource: string;
  firstObject: number; // Type0, CIDFont, FontDescriptor, FontFile2, ToUnicode
}

/** The fonts a text element draws with first, before the fallbacks its text calls for. */
export interface ElementFonts {
  own: Face[];
  /** The family, weight and locale its fallbacks follow. */
  style: FallbackStyle;
}

export interface DynamicText extends ElementFonts {
  kind: 'text';
  elementIndex: number;
  segments: Segment[];
  box: TextBox;
  /** Not drawn when every value it shows is empty ("Valid until {{certificate.expiresAt}}" without one). */
  hideWhenEmpty: boolean;
  /** Its structure element: the design's title (H1) or a paragraph. */
  role: 'H1' | 'P';
}

export interface DynamicQr {
  kind: 'qr';
  x: number;
  y: number;
  size: number;
  color: string;
  background: string;
  /** The design's alternative text (a PDF text string); by default one naming the verification link. */
  alt: string | undefined;
}

export type ContentPart = string | DynamicText | DynamicQr | DynamicTable;

export interface CompiledTemplate {
  pageHeight: number;
  /** Page 1's content. */
  parts: ContentPart[];
  /**
   * Page 2's content, in a design of two pages: repeated, with the table's further rows, onto as many
   * pages as the table needs. Undefined for one page.
   */
  secondPage: ContentPart[] | undefined;
  /** The static parts of the pages' content, each deflated once (a piece of the content stream). */
  staticPieces: Map<string, ZlibPiece>;
  /** Fonts of the static texts, with their glyphs; a document adds fonts after them. */
  fonts: DocumentFont[];
  /** Values drawn, each with the elements' fonts: their characters are checked per recipient. */
  refs: { ref: ValueRef; elements: ElementFonts[] }[];
  requiredKeys: string[];
  /**
   * Header, output profile, image objects, pages (of a one-page design) and the first page's shared
   * structure elements.
   */
  prefix: { bytes: Buffer; offsets: Map<number, number> };
  /** The page dictionary's entries (a document writes the page, adding its own). */
  pageEntries: string;
  /** The same without /Contents, for each page after the first (`/Contents n 0 R` follows). */
  pageHead: string;
  title: string;
  /** The design's locale (BCP 47): how dates and numbers are written. */
  locale: string;
  /** The document's language (the catalog's /Lang): the locale, else English. */
  lang: string;
  rtl: boolean;
  /**
   * The marked content every document shares, per page: its elements (the first page's in the
   * prefix, with their object numbers) and how many MCIDs.
   */
  tags: { nodes: TagNode[]; count: number }[];
  /** The structures of documents written so far, by shape (structure-tree.ts). */
  structurePlans: StructurePlans;
  /** The catalog's entries after /Pages: language, tags, metadata, output intent. */
  catalogEntries: string;
  /** The XMP metadata around the creation date (xmp.ts). */
  xmp: { head: Buffer; tail: Buffer };
  objectCount: number;
}

// Speed-first: code characters in the template's subsets make them the same for any code (cache hits).
// A code with other characters still renders. PDFs +2.3 KB.
const CODE_CHARACTERS = CROCKFORD;

export const CATALOG = 1;
export const PAGES = 2;
export const PAGE = 3;
export const CONTENT_OBJECT = 4;
export const INFO_OBJECT = 5;
export const FONTS_OBJECT = 6; // the page's font resources: each document has its own fonts
// 7, 8, 9: the structure tree's root, parent tree and Document element (structure-tree.ts)
export const METADATA_OBJECT = 10;
const OUTPUT_PROFILE = 11;
const FIRST_IMAGE = 12;

export function compileTemplate(design: Design): CompiledTemplate {
  const { width: pageWidth, height: pageHeight } = design.page;
  const customFonts = designFontFaces(design);
  if (customFonts.issues.length > 0) throw new Error('the design has fonts that cannot be used');
  const writer = new PdfWriter();
  writer.raw('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  const profile = outputIntentProfile();
  writer.stream(OUTPUT_PROFILE, profile.dict, profile.data);
  const images = new ImageObjects(writer, FIRST_IMAGE, pageHeight);
  const { signatories } = design;
  const { fonts, staticSink } = staticFonts();

  // The content of each page; `parts` and `pending` are those of the page the element is drawn on.
  const pageParts: ContentPart[][] = [[], []];
  let parts = pageParts[0]!;
  const pageTags = [new PageTags(), new PageTags()];
  let tags = pageTags[0]!;
  const archival = archivalEntries(design);
  const { lang } = archival;
  const h1 = titleIndex(design);
  // The background is on every page.
  let pending = artifact(backgroundOps(design, images));
  const flush = (): void => {
    if (pending) parts.push(pending);
    pending = '';
  };
  const toPage = (page: number): void => {
    if (parts === pageParts[page]) return;
    flush();
    parts = pageParts[page]!;
    tags = pageTags[page]!;
  };
  const refs = new Map<string, { ref: ValueRef; elements: ElementFonts[] }>();
  // Text that is the same on every certificate: its glyphs get fixed subset ids, so it is serialised
  // once for all documents.
  const staticText = (text: string, box: TextBox, fontsOf: ElementFonts, elementIndex: number): string => {
    const line = shapeLine(text, fontChain(fontsOf.own, text, fontsOf.style));
    if ('uncovered' in line) throw new Error(`elements[${elementIndex}] has characters no font has`);
    const layout = layoutText(box, line, pageHeight, staticSink);
    if (!('ops' in layout)) return '';
    const textLang = textLanguage(text, lang);
    const attrs = textLang === lang ? '' : ` /Lang ${textString(textLang)}`;
    return tags.mark(elementIndex === h1 ? 'H1' : 'P', attrs, layout.ops, box);
  };
  const locale = design.locale ?? 'en';
  const pageCount = design.pages ?? 1;
  const tableInput = { custom: customFonts.faces, pageHeight, locale, sink: staticSink };

  if (pageCount === 2 && pending) pageParts[1]!.push(pending);
  const figure = (ops: string, alt: string | undefined, at: { x: number; y: number }): string =>
    // An image without alternative text is decoration (docs/design-format.md).
    alt ? tags.mark('Figure', ` /Alt ${textString(alt)}`, ops, at) : artifact(ops);

  design.elements.forEach((element, elementIndex) => {
    toPage((element.page ?? 1) - 1);
    switch (element.type) {
      case 'rect':
        pending += artifact(rectOps(element, pageHeight));
        break;
      case 'image':
        pending += figure(images.place(element.src, element), element.alt?.trim(), element);
        break;
      case 'line':
        pending += artifact(lineOps(element, pageHeight));
        break;
      case 'signatory': {
        const fontsOf = elementFonts(element.font, customFonts.faces, design.locale);
        const text = (t: string, box: TextBox) => staticText(t, box, fontsOf, elementIndex);
        pending += signatoryOps(element, design, fontsOf.own[0]!.font, { images, text, figure });
        break;
      }
      case 'qr':
        flush();
        parts.push(qrPart(element));
        if (!refs.has('verificationUrl'))
          refs.set('verificationUrl', { ref: { source: 'verificationUrl' }, elements: [] });
        break;
      case 'text': {
        const fontsOf = elementFonts(element.font, customFonts.faces, design.locale);
        const box = textBox(element, fontsOf.own[0]!.font);
        const parsed = parseText(element.text);
        if (parsed.unknown.length > 0) throw new Error(`elements[${elementIndex}] has unknown placeholders`);
        // The signatories' values are the template's: literal text from here on.
        const { segments, placeholders, staticShown } = resolveSignatories(parsed.segments, signatories);
        const dynamic = segments.some((s) => 'ref' in s);
        if (!dynamic) {
          // A text whose placeholders are all empty is not drawn (docs/design-format.md).
          if (placeholders && !staticShown) break;
          const text = segments.map((s) => ('literal' in s ? s.literal : '')).join('');
          pending += staticText(text, box, fontsOf, elementIndex);
          break;
        }
        reserveCodeGlyphs(segments, fontsOf, box, pageHeight, staticSink);
        for (const segment of segments) {
          if (!('ref' in segment)) continue;
          const entry = refs.get(refKey(segment.ref)) ?? { ref: segment.ref, elements: [] };
          entry.elements.push(fontsOf);
          refs.set(refKey(segment.ref), entry);
        }
        flush();
        parts.push({
          kind: 'text',
          elementIndex,
          segments,
          box,
          ...fontsOf,
          hideWhenEmpty: !staticShown,
          role: elementIndex === h1 ? 'H1' : 'P',
        });
        break;
      }
      case 'table':
        flush();
        parts.push(compileTable({ ...tableInput, element, elementIndex, tags }));
        break;
    }
  });
  flush();

  const compiledFonts = [...fonts.values()];
  let { nextObject } = images;
  for (const f of compiledFonts) f.firstObject = (nextObject += 5) - 5;
  // The first page's own elements follow the fonts, in the prefix (a further page's number differs
  // from document to document: their elements are written with the document's).
  const shared = sharedTags(writer, pageTags, PAGE, nextObject);
  // A design of two pages has as many as its table needs: each document writes its page tree.
  if (pageCount === 1) writer.object(PAGES, `<< /Type /Pages /Kids [${PAGE} 0 R] /Count 1 >>`);
  // /StructParents follows: each page's key in the structure's parent tree.
  const pageHead =
    `/Type /Page /Parent ${PAGES} 0 R /MediaBox [0 0 ${num(pageWidth)} ${num(pageHeight)}] ` +
    `/Resources << /Font ${FONTS_OBJECT} 0 R /XObject << ${images.entries()} >> >> /Tabs /S`;

  return {
    pageHeight,
    parts: pageParts[0]!,
    secondPage: pageCount === 2 ? pageParts[1] : undefined,
    staticPieces: staticPieces(pageParts),
    fonts: compiledFonts,
    refs: [...refs.values()],
    requiredKeys: design.fields.filter((f) => f.required).map((f) => f.key),
    prefix: writer.build(),
    pageEntries: `${pageHead} /StructParents 0 /Contents ${CONTENT_OBJECT} 0 R`,
    pageHead,
    locale,
    ...archival,
    tags: shared.tags,
    structurePlans: new Map(),
    objectCount: shared.next,
  };
}

// The pages' static content, each part deflated once: pieces of every document's content streams.
function staticPieces(pages: ContentPart[][]): Map<string, ZlibPiece> {
  const pieces = new Map<string, ZlibPiece>();
  for (const part of pages.flat()) {
    if (typeof part === 'string') pieces.set(part, deflatedPiece(Buffer.from(part, 'latin1')));
  }
  return pieces;
}

// What a tagged, PDF/A document says of itself: its title, language, tags, metadata, output intent.
function archivalEntries(design: Design) {
  const lang = documentLanguage(design.locale);
  return {
    title: textString(design.name),
    lang,
    rtl: /^(ar|he|fa|ur)\b/i.test(lang),
    catalogEntries:
      ` /Lang ${textString(lang)} /MarkInfo << /Marked true >> /StructTreeRoot ${STRUCT_TREE_ROOT} 0 R` +
      ` /ViewerPreferences << /DisplayDocTitle true >> /Metadata ${METADATA_OBJECT} 0 R` +
      ` /OutputIntents ${outputIntents(OUTPUT_PROFILE)}`,
    xmp: xmpHalves(design.name, lang),
  };
}

// A text showing the code or the URL: the code's characters in the template's subsets (CODE_CHARACTERS).
function reserveCodeGlyphs(
  segments: Segment[],
  fontsOf: ElementFonts,
  box: TextBox,
  pageHeight: number,
  sink: GlyphSink,
): void {
  const showsCode = segments.some(
    (s) => 'ref' in s && (s.ref.source === 'uniqueCode' || s.ref.source === 'verificationUrl'),
  );
  if (!showsCode) return;
  const line = shapeLine(CODE_CHARACTERS, fontChain(fontsOf.own, CODE_CHARACTERS, fontsOf.style));
  if (!('uncovered' in line)) layoutText({ ...box, minSize: undefined }, line, pageHeight, sink);
}

function qrPart(element: QrElement): DynamicQr {
  const { x, y, size } = element;
  return {
    kind: 'qr',
    x,
    y,
    size,
    color: element.color ?? '#000000',
    background: element.background ?? '#FFFFFF',
    alt: element.alt?.trim() ? textString(element.alt.trim()) : undefined,
  };
}

// The fonts of the static texts: their glyphs get fixed ids, the same in every document.
function staticFonts() {
  const fonts = new Map<Face, DocumentFont>();
  const staticSink = (face: Face, gid: number, text: string) => {
    let f = fonts.get(face);
    if (!f) {
      f = documentFont(face, `F${fonts.size + 1}`, 0);
      fonts.set(face, f);
    }
    return { resource: f.resource, cid: glyphCid(f, gid, text) };
  };
  return { fonts, staticSink };
}

/**
 * A font with an empty subset. Every DocumentFont is made here or by copyOfSubset, with its fields in
 * one order: one object shape for the code that draws with them (a spread made several).
 */
export function documentFont(face: Face, resource: string, firstObject: number): DocumentFont {
  const index = new Map([[0, 0]]);
  return { glyphs: [0], index, text: [''], variants: new Map(), face, resource, firstObject };
}

/** The CID of a glyph drawn as `text` in this subset; undefined when it is not there yet. */
export function knownCid(f: SubsetState, gid: number, text: string): number | undefined {
  const id = f.index.get(gid);
  if (id === undefined || f.text[id] === text) return id;
  return f.variants.get(`${gid}:${text}`);
}

/** The CID of a glyph drawn as `text` in this subset, added when new. */
export function glyphCid(f: SubsetState, gid: number, text: string): number {
  const known = knownCid(f, gid, text);
  if (known !== undefined) return known;
  const id = f.index.get(gid);
  const cid = f.glyphs.length;
  f.glyphs.push(gid);
  f.text.push(text);
  if (id === undefined) f.index.set(gid, cid);
  else f.variants.set(`${gid}:${text}`, cid);
  return cid;
}

/** A subset to add glyphs to, the template's left as it is. */
export function copyOfSubset(f: DocumentFont): DocumentFont {
  return {
    glyphs: f.glyphs.slice(),
    index: new Map(f.index),
    text: f.text.slice(),
    variants: new Map(f.variants),
    face: f.face,
    resource: f.resource,
    firstObject: f.firstObject,
  };
}
