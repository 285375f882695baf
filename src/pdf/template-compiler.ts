import type { Design } from './design.schema.js';
import { loadFont, type FontName } from './fonts.js';
import { decodeImage } from './images.js';
import { parseText, refKey, type Segment, type ValueRef } from './placeholders.js';
import { num, PdfWriter, rgb, textString } from './pdf-syntax.js';
import { layoutText, type TextBox } from './text-layout.js';
import type { TrueTypeFont } from './truetype-font.js';

// Everything about a template that does not depend on the recipient is worked out once per thread
// and template version: fonts, images serialised as PDF objects, static content, static glyphs.

export interface CompiledFont {
  name: FontName;
  font: TrueTypeFont;
  resource: string;
  firstObject: number; // Type0, CIDFont, FontDescriptor, FontFile2, ToUnicode
  /** Glyphs of the static texts, in subset order (index 0 = .notdef). */
  staticGlyphs: number[];
  staticIndex: Map<number, number>;
  staticText: string[]; // unicode text of each subset glyph (ToUnicode)
}

export interface DynamicText {
  kind: 'text';
  elementIndex: number;
  segments: Segment[];
  box: TextBox;
  compiledFont: CompiledFont;
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
  fonts: CompiledFont[];
  /** Values drawn, each with the fonts that draw it: their characters are checked per recipient. */
  refs: { ref: ValueRef; fonts: TrueTypeFont[] }[];
  requiredKeys: string[];
  /** Header, catalog, pages, page and image objects. */
  prefix: { bytes: Buffer; offsets: Map<number, number> };
  title: string;
  objectCount: number;
}

const CATALOG = 1;
const PAGES = 2;
const PAGE = 3;
export const CONTENT_OBJECT = 4;
export const INFO_OBJECT = 5;
const FIRST_IMAGE = 6;

export function compileTemplate(design: Design): CompiledTemplate {
  const { width: pageWidth, height: pageHeight } = design.page;
  const writer = new PdfWriter();
  writer.raw('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  let nextObject = FIRST_IMAGE;

  const images = new Map<string, { name: string; id: number }>(); // by data URL
  const imageResource = (src: string): string => {
    const known = images.get(src);
    if (known) return known.name;
    const image = decodeImage(src);
    const id = nextObject++;
    const smaskId = image.smask ? nextObject++ : 0;
    writer.stream(id, image.dict + (smaskId ? ` /SMask ${smaskId} 0 R` : ''), image.data);
    if (image.smask) writer.stream(smaskId, image.smask.dict, image.smask.data);
    const name = `Im${images.size + 1}`;
    images.set(src, { name, id });
    return name;
  };

  const fonts = new Map<FontName, CompiledFont>();
  const fontFor = (name: FontName): CompiledFont => {
    let compiled = fonts.get(name);
    if (!compiled) {
      compiled = {
        name,
        font: loadFont(name),
        resource: `F${fonts.size + 1}`,
        firstObject: 0,
        staticGlyphs: [0],
        staticIndex: new Map([[0, 0]]),
        staticText: [''],
      };
      fonts.set(name, compiled);
    }
    return compiled;
  };

  const parts: ContentPart[] = [];
  let pending = '';
  const flush = (): void => {
    if (pending) parts.push(pending);
    pending = '';
  };
  const refs = new Map<string, { ref: ValueRef; fonts: TrueTypeFont[] }>();

  if (design.background?.color) {
    pending += `q ${rgb(design.background.color)} rg 0 0 ${num(pageWidth)} ${num(pageHeight)} re f Q\n`;
  }
  if (design.background?.image) {
    const name = imageResource(design.background.image);
    pending += `q ${num(pageWidth)} 0 0 ${num(pageHeight)} 0 0 cm /${name} Do Q\n`;
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
      case 'image': {
        const name = imageResource(element.src);
        const y = pageHeight - element.y - element.height;
        pending += `q ${num(element.width)} 0 0 ${num(element.height)} ${num(element.x)} ${num(y)} cm /${name} Do Q\n`;
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
          refs.set('verificationUrl', { ref: { source: 'verificationUrl' }, fonts: [] });
        break;
      case 'text': {
        const compiledFont = fontFor(element.font ?? 'sans');
        const box: TextBox = {
          x: element.x,
          y: element.y,
          width: element.width,
          size: element.size ?? 14,
          minSize: element.minSize,
          align: element.align ?? 'left',
          color: element.color ?? '#000000',
          font: compiledFont.font,
          resource: compiledFont.resource,
        };
        const { segments, unknown } = parseText(element.text);
        if (unknown.length > 0) throw new Error(`elements[${elementIndex}] has unknown placeholders`);
        const dynamic = segments.some((s) => 'ref' in s);
        if (!dynamic) {
          // Static glyphs get fixed subset ids, so this text is serialised once for all documents.
          const layout = layoutText(box, element.text, pageHeight, (gid, char) =>
            staticGlyph(compiledFont, gid, char),
          );
          pending += 'ops' in layout ? layout.ops : '';
          break;
        }
        for (const segment of segments) {
          if (!('ref' in segment)) {
            for (const char of segment.literal) {
              staticGlyph(compiledFont, compiledFont.font.glyphId(char.codePointAt(0) ?? 0), char);
            }
            continue;
          }
          const key = refKey(segment.ref);
          const entry = refs.get(key) ?? { ref: segment.ref, fonts: [] };
          if (!entry.fonts.includes(compiledFont.font)) entry.fonts.push(compiledFont.font);
          refs.set(key, entry);
        }
        flush();
        parts.push({ kind: 'text', elementIndex, segments, box, compiledFont });
        break;
      }
    }
  });
  flush();

  const compiledFonts = [...fonts.values()];
  for (const f of compiledFonts) {
    f.firstObject = nextObject;
    nextObject += 5;
  }
  const fontResources = compiledFonts.map((f) => `/${f.resource} ${f.firstObject} 0 R`).join(' ');
  const imageResources = [...images.values()].map(({ name, id }) => `/${name} ${id} 0 R`);
  writer.object(CATALOG, `<< /Type /Catalog /Pages ${PAGES} 0 R >>`);
  writer.object(PAGES, `<< /Type /Pages /Kids [${PAGE} 0 R] /Count 1 >>`);
  writer.object(
    PAGE,
    `<< /Type /Page /Parent ${PAGES} 0 R /MediaBox [0 0 ${num(pageWidth)} ${num(pageHeight)}] ` +
      `/Resources << /Font << ${fontResources} >> /XObject << ${imageResources.join(' ')} >> >> ` +
      `/Contents ${CONTENT_OBJECT} 0 R >>`,
  );

  return {
    pageHeight,
    parts,
    fonts: compiledFonts,
    refs: [...refs.values()],
    requiredKeys: design.fields.filter((f) => f.required).map((f) => f.key),
    prefix: writer.build(),
    title: textString(design.name),
    objectCount: nextObject,
  };
}

function staticGlyph(f: CompiledFont, gid: number, char: string): number {
  let id = f.staticIndex.get(gid);
  if (id === undefined) {
    id = f.staticGlyphs.length;
    f.staticGlyphs.push(gid);
    f.staticIndex.set(gid, id);
    f.staticText.push(char);
  }
  return id;
}
