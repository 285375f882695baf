import { CROCKFORD } from '../platform/ids.js';
import type { Design } from './design.schema.js';
import { designFontFaces, elementFonts } from './design-fonts.js';
import { fontChain, type Face, type FallbackStyle } from './fonts.js';
import { ImageObjects } from './image-objects.js';
import { lineOps } from './lines.js';
import { parseText, refKey, resolveSignatories, type Segment, type ValueRef } from './placeholders.js';
import { num, PdfWriter, rgb, textString } from './pdf-syntax.js';
import { signatoryOps } from './signatory-block.js';
import { layoutText, shapeLine, type TextBox } from './text-layout.js';

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
}

export interface DynamicQr {
  kind: 'qr';
  x: number;
  y: number;
  size: number;
  color: string;
  background: string;
}

export type ContentPart = string | DynamicText | DynamicQr;

export interface CompiledTemplate {
  pageHeight: number;
  parts: ContentPart[];
  /** Fonts of the static texts, with their glyphs; a document adds fonts after them. */
  fonts: DocumentFont[];
  /** Values drawn, each with the elements' fonts: their characters are checked per recipient. */
  refs: { ref: ValueRef; elements: ElementFonts[] }[];
  requiredKeys: string[];
  /** Header, pages and image objects. */
  prefix: { bytes: Buffer; offsets: Map<number, number> };
  /** The page dictionary's entries (a document writes the page, adding its own). */
  pageEntries: string;
  title: string;
  /** The design's locale (BCP 47): how dates and numbers are written. */
  locale: string;
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
const FIRST_IMAGE = 7;

export function compileTemplate(design: Design): CompiledTemplate {
  const { width: pageWidth, height: pageHeight } = design.page;
  const customFonts = designFontFaces(design);
  if (customFonts.issues.length > 0) throw new Error('the design has fonts that cannot be used');
  const writer = new PdfWriter();
  writer.raw('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  const images = new ImageObjects(writer, FIRST_IMAGE, pageHeight);
  const { signatories } = design;

  const fonts = new Map<Face, DocumentFont>();
  const staticSink = (face: Face, gid: number, text: string) => {
    let f = fonts.get(face);
    if (!f) {
      f = { ...emptySubset(), face, resource: `F${fonts.size + 1}`, firstObject: 0 };
      fonts.set(face, f);
    }
    return { resource: f.resource, cid: glyphCid(f, gid, text) };
  };

  const parts: ContentPart[] = [];
  let pending = '';
  const flush = (): void => {
    if (pending) parts.push(pending);
    pending = '';
  };
  const refs = new Map<string, { ref: ValueRef; elements: ElementFonts[] }>();
  // Text that is the same on every certificate: its glyphs get fixed subset ids, so it is serialised
  // once for all documents.
  const staticText = (text: string, box: TextBox, fontsOf: ElementFonts, elementIndex: number): string => {
    const line = shapeLine(text, fontChain(fontsOf.own, text, fontsOf.style));
    if ('uncovered' in line) throw new Error(`elements[${elementIndex}] has characters no font has`);
    const layout = layoutText(box, line, pageHeight, staticSink);
    return 'ops' in layout ? layout.ops : '';
  };

  if (design.background?.color) {
    pending += `q ${rgb(design.background.color)} rg 0 0 ${num(pageWidth)} ${num(pageHeight)} re f Q\n`;
  }
  if (design.background?.image) {
    pending += images.place(design.background.image, { x: 0, y: 0, width: pageWidth, height: pageHeight });
  }

  design.elements.forEach((element, elementIndex) => {
    switch (element.type) {
      case 'rect': {
        const y = pageHeight - element.y - element.height;
        const rect = `${num(element.x)} ${num(y)} ${num(element.width)} ${num(element.height)} re`;
        const fill = element.fill ? `${rgb(element.fill)} rg ` : '';
        const stroke = element.stroke ? `${rgb(element.stroke)} RG ${num(element.strokeWidth ?? 1)} w ` : '';
        const paint = element.fill && element.stroke ? 'B' : element.fill ? 'f' : element.stroke ? 'S' : 'n';
        pending += `q ${fill}${stroke}${rect} ${paint} Q\n`;
        break;
      }
      case 'image':
        pending += images.place(element.src, element);
        break;
      case 'line':
        pending += lineOps(element, pageHeight);
        break;
      case 'signatory': {
        const fontsOf = elementFonts(element.font, customFonts.faces, design.locale);
        const text = (t: string, box: TextBox) => staticText(t, box, fontsOf, elementIndex);
        pending += signatoryOps(element, design, fontsOf.own[0]!.font, { images, text });
        break;
      }
      case 'qr':
        flush();
        parts.push({
          kind: 'qr',
          x: element.x,
          y: element.y,
          size: element.size,
          color: element.color ?? '#000000',
          background: element.background ?? '#FFFFFF',
        });
        if (!refs.has('verificationUrl'))
          refs.set('verificationUrl', { ref: { source: 'verificationUrl' }, elements: [] });
        break;
      case 'text': {
        const fontsOf = elementFonts(element.font, customFonts.faces, design.locale);
        const box: TextBox = {
          x: element.x,
          y: element.y,
          width: element.width,
          size: element.size ?? 14,
          minSize: element.minSize,
          align: element.align ?? 'left',
          color: element.color ?? '#000000',
          metrics: fontsOf.own[0]!.font,
        };
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
        const showsCode = segments.some(
          (s) => 'ref' in s && (s.ref.source === 'uniqueCode' || s.ref.source === 'verificationUrl'),
        );
        if (showsCode) {
          const line = shapeLine(CODE_CHARACTERS, fontChain(fontsOf.own, CODE_CHARACTERS, fontsOf.style));
          if (!('uncovered' in line))
            layoutText({ ...box, minSize: undefined }, line, pageHeight, staticSink);
        }
        for (const segment of segments) {
          if (!('ref' in segment)) continue;
          const key = refKey(segment.ref);
          const entry = refs.get(key) ?? { ref: segment.ref, elements: [] };
          entry.elements.push(fontsOf);
          refs.set(key, entry);
        }
        flush();
        parts.push({ kind: 'text', elementIndex, segments, box, ...fontsOf, hideWhenEmpty: !staticShown });
        break;
      }
    }
  });
  flush();

  let { nextObject } = images;
  const compiledFonts = [...fonts.values()];
  for (const f of compiledFonts) {
    f.firstObject = nextObject;
    nextObject += 5;
  }
  writer.object(PAGES, `<< /Type /Pages /Kids [${PAGE} 0 R] /Count 1 >>`);
  const pageEntries =
    `/Type /Page /Parent ${PAGES} 0 R /MediaBox [0 0 ${num(pageWidth)} ${num(pageHeight)}] ` +
    `/Resources << /Font ${FONTS_OBJECT} 0 R /XObject << ${images.entries()} >> >> ` +
    `/Contents ${CONTENT_OBJECT} 0 R`;

  return {
    pageHeight,
    parts,
    fonts: compiledFonts,
    refs: [...refs.values()],
    requiredKeys: design.fields.filter((f) => f.required).map((f) => f.key),
    prefix: writer.build(),
    pageEntries,
    title: textString(design.name),
    locale: design.locale ?? 'en',
    objectCount: nextObject,
  };
}

export function emptySubset(): SubsetState {
  return { glyphs: [0], index: new Map([[0, 0]]), text: [''], variants: new Map() };
}

/** The CID of a glyph drawn as `text` in this subset, added when new. */
export function glyphCid(f: SubsetState, gid: number, text: string): number {
  const id = f.index.get(gid);
  if (id !== undefined && f.text[id] === text) return id;
  if (id !== undefined) {
    const variant = f.variants.get(`${gid}:${text}`);
    if (variant !== undefined) return variant;
  }
  const cid = f.glyphs.length;
  f.glyphs.push(gid);
  f.text.push(text);
  if (id === undefined) f.index.set(gid, cid);
  else f.variants.set(`${gid}:${text}`, cid);
  return cid;
}
