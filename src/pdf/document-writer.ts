import { createHash } from 'node:crypto';
import { fontChain, type Face } from './fonts.js';
import { refKey, refPath, valueOf } from './placeholders.js';
import { contentStream, drawParts } from './document-pages.js';
import { fontStreams } from './font-streams.js';
import { num, pdfDate, PdfWriter } from './pdf-syntax.js';
import {
  sealCatalogEntries,
  sealPageEntries,
  sealWidget,
  writeSealFrame,
  type UnsealedPdf,
} from './pdf-seal.js';
import { elementCount, writeStructure, type StructurePage } from './structure-tree.js';
import {
  CATALOG,
  CONTENT_OBJECT,
  FONTS_OBJECT,
  INFO_OBJECT,
  METADATA_OBJECT,
  PAGE,
  PAGES,
  copyOfSubset,
  documentFont,
  glyphCid,
  knownCid,
  type CompiledTemplate,
  type DocumentFont,
} from './template-compiler.js';
import { unrenderableCharacters, unrenderableMessage } from './text-check.js';
import type { GlyphSink } from './text-layout.js';
import { METADATA_DICT, PRODUCER, xmpDate } from './xmp.js';
import type { RenderIssue, RenderValues } from './render-types.js';

// The per-recipient work: check the values, shape and lay out the dynamic texts, subset the fonts
// to the glyphs used, and write the PDF after the prebuilt prefix: pages, fonts, the structure tree
// (tagged PDF), the XMP metadata with its date, and the file identifier (PDF/A).

export type DocumentResult =
  | { ok: true; pdf: Buffer; sha256: string }
  | { ok: true; unsealed: UnsealedPdf }
  | { ok: false; issues: RenderIssue[] };

// A sealable document is left without its cross-reference table, for sealPdf (pdf-seal.ts).
export function renderDocument(
  template: CompiledTemplate,
  values: RenderValues,
  sealable: true,
): DocumentResult;
export function renderDocument(
  template: CompiledTemplate,
  values: RenderValues,
  sealable?: false,
): Exclude<DocumentResult, { unsealed: UnsealedPdf }>;
export function renderDocument(
  template: CompiledTemplate,
  values: RenderValues,
  sealable = false,
): DocumentResult {
  const issues: RenderIssue[] = [];
  const data = values.data ?? {};
  for (const key of template.requiredKeys) {
    if (data[key] === undefined) issues.push({ path: ['data', key], message: 'is required' });
  }
  const resolved = new Map<string, string>(); // by refKey
  for (const { ref, elements } of template.refs) {
    const value = valueOf(ref, values, template.locale);
    if (value === undefined) {
      issues.push({
        path: refPath(ref),
        message:
          ref.source === 'issuedAt' || ref.source === 'expiresAt' ? 'is not a valid date' : 'is missing',
      });
      continue;
    }
    const bad = new Set<string>();
    for (const { own, style } of elements) {
      for (const b of unrenderableCharacters(value, fontChain(own, value, style))) bad.add(b);
    }
    if (ref.source === 'verificationUrl' && value.length === 0)
      issues.push({ path: ['verificationUrl'], message: 'is empty' });
    if (bad.size > 0) issues.push({ path: refPath(ref), message: unrenderableMessage([...bad]) });
    resolved.set(refKey(ref), value);
  }
  if (issues.length > 0) return { ok: false, issues };

  // The template's subsets as they are, each copied when the document first adds a glyph to it.
  const docFonts = new Map<Face, DocumentFont>();
  const own = new Set<DocumentFont>();
  for (const f of template.fonts) docFonts.set(f.face, f);
  const sink: GlyphSink = (face, gid, text) => {
    let f = docFonts.get(face);
    if (!f) {
      // A font only this document's values need: objects after the template's own.
      const n = docFonts.size;
      f = documentFont(face, `F${n + 1}`, template.objectCount + 5 * (n - template.fonts.length));
      docFonts.set(face, f);
      own.add(f);
    }
    const known = knownCid(f, gid, text);
    if (known !== undefined) return { resource: f.resource, cid: known };
    if (!own.has(f)) {
      f = copyOfSubset(f);
      docFonts.set(face, f);
      own.add(f);
    }
    return { resource: f.resource, cid: glyphCid(f, gid, text) };
  };

  const draw = { template, values, resolved, sink, issues };
  const first = drawParts(draw, template.parts, template.tags[0]!)[0]!;
  // Page 2 and the pages its table continues onto (a copy of page 2 each, with the next rows).
  const further = template.secondPage ? drawParts(draw, template.secondPage, template.tags[1]!) : [];
  if (issues.length > 0) return { ok: false, issues };

  const writer = new PdfWriter();
  writer.prebuilt(template.prefix.bytes, template.prefix.offsets);
  writer.stream(CONTENT_OBJECT, '/Filter /FlateDecode', contentStream(first.content));
  writer.object(
    INFO_OBJECT,
    `<< /Title ${template.title} /Producer (${PRODUCER}) /CreationDate ${pdfDate(values.issuedAt)} >>`,
  );
  writer.stream(METADATA_OBJECT, METADATA_DICT, [
    template.xmp.head,
    xmpDate(values.issuedAt),
    template.xmp.tail,
  ]);
  let resources = '';
  for (const f of docFonts.values()) resources += `/${f.resource} ${f.firstObject} 0 R `;
  writer.object(FONTS_OBJECT, `<< ${resources}>>`);
  let k = 0;
  for (const doc of docFonts.values()) writeFont(writer, doc, template.fonts[k++]);
  // The objects after the fonts: the further pages' (a page and its content each), the structure
  // elements, then the seal's, in a sealable document.
  const afterFonts = template.objectCount + 5 * (docFonts.size - template.fonts.length);
  const pages: StructurePage[] = [{ id: PAGE, nodes: first.nodes }];
  further.forEach((page, i) => pages.push({ id: afterFonts + 2 * i, nodes: page.nodes }));
  const structureFirst = afterFonts + 2 * further.length;
  const base = structureFirst + elementCount(pages) + (sealable ? 1 : 0);
  if (template.secondPage) {
    const kids = [`${PAGE} 0 R`];
    further.forEach((page, i) => {
      const id = afterFonts + 2 * i;
      kids.push(`${id} 0 R`);
      writer.object(id, `<< ${template.pageHead} /StructParents ${i + 1} /Contents ${id + 1} 0 R >>`);
      writer.stream(id + 1, '/Filter /FlateDecode', contentStream(page.content));
    });
    writer.object(PAGES, `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${kids.length} >>`);
  }
  writeStructure(writer, {
    pages,
    firstId: structureFirst,
    rtl: template.rtl,
    widget: sealable ? sealWidget(base) : undefined,
    plans: template.structurePlans,
  });
  writer.object(
    CATALOG,
    `<< /Type /Catalog /Pages ${PAGES} 0 R${template.catalogEntries}${sealable ? sealCatalogEntries(base) : ''} >>`,
  );
  writer.object(PAGE, `<< ${template.pageEntries}${sealable ? sealPageEntries(base) : ''} >>`);
  // PDF/A asks for the file identifier: the certificate's code and issue time (unique, and the same
  // for the same certificate), as bytes. No hash: it costs more than the rest of the tags.
  const fileId = Buffer.from(`${values.uniqueCode}${values.issuedAt}`, 'utf8').toString('hex');
  if (sealable) {
    writeSealFrame(writer, base, PAGE, pages.length);
    const { bytes, offsets } = writer.sharedBody();
    return { ok: true, unsealed: { body: bytes, offsets, base, fileId } };
  }
  const pdf = writer.finish(CATALOG, INFO_OBJECT, fileId);
  return { ok: true, pdf, sha256: createHash('sha256').update(pdf).digest('hex') };
}

// `base`: the template's subset of the face, which `doc` extends (docFonts holds the template's first).
function writeFont(writer: PdfWriter, doc: DocumentFont, base: DocumentFont | undefined): void {
  const { firstObject: id, face } = doc;
  const { font } = face;
  const { baseFont, widths, fontFile, length1, toUnicode } = fontStreams(face, doc, base);
  const scale = 1000 / font.unitsPerEm;
  writer.object(
    id,
    `<< /Type /Font /Subtype /Type0 /BaseFont ${baseFont} /Encoding /Identity-H ` +
      `/DescendantFonts [${id + 1} 0 R] /ToUnicode ${id + 4} 0 R >>`,
  );
  writer.object(
    id + 1,
    `<< /Type /Font /Subtype /CIDFontType2 /BaseFont ${baseFont} ` +
      `/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> ` +
      `/FontDescriptor ${id + 2} 0 R /W [0 [${widths}]] /CIDToGIDMap /Identity >>`,
  );
  const [x0, y0, x1, y1] = font.bbox.map((v) => Math.round(v * scale));
  writer.object(
    id + 2,
    `<< /Type /FontDescriptor /FontName ${baseFont} /Flags ${face.serif ? 6 : 4} /FontBBox [${x0} ${y0} ${x1} ${y1}] ` +
      `/ItalicAngle ${num(font.italicAngle)} /Ascent ${Math.round(font.ascender * scale)} ` +
      `/Descent ${Math.round(font.descender * scale)} /CapHeight ${Math.round(font.capHeight * scale)} ` +
      `/StemV ${face.bold ? 120 : 80} /FontFile2 ${id + 3} 0 R >>`,
  );
  writer.stream(id + 3, `/Filter /FlateDecode /Length1 ${length1}`, fontFile);
  writer.stream(id + 4, '/Filter /FlateDecode', toUnicode);
}
