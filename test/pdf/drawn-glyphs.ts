import { inflateSync } from 'node:zlib';
import fontkit from '@pdf-lib/fontkit';

// Reads back what a one-page PDF draws: every glyph with its font's BaseFont, its outline (from the
// embedded font file, parsed by fontkit) and its position in points. Independent of the renderer's
// own code: it follows the PDF objects and the content stream operators.

export interface DrawnGlyph {
  baseFont: string;
  /** SVG path of the glyph's outline in font units, as fontkit reads it from the embedded subset. */
  outline: string;
  x: number;
  y: number;
  size: number;
  /** Advance in points, from the font's /W widths. */
  width: number;
}

type Obj = { dict: string; stream?: Buffer };

function objects(pdf: Buffer): Map<number, Obj> {
  const out = new Map<number, Obj>();
  const text = pdf.toString('latin1');
  const pattern = /(\d+) 0 obj\n/g;
  for (const m of text.matchAll(pattern)) {
    const start = (m.index ?? 0) + m[0].length;
    const end = text.indexOf('\nendobj', start);
    const body = text.slice(start, end);
    const at = body.indexOf('stream\n');
    if (at >= 0 && body.startsWith('<<')) {
      const length = Number(/\/Length (\d+)/.exec(body.slice(0, at))?.[1]);
      const from = start + at + 'stream\n'.length;
      out.set(Number(m[1]), { dict: body.slice(0, at), stream: pdf.subarray(from, from + length) });
    } else out.set(Number(m[1]), { dict: body });
  }
  return out;
}

const ref = (dict: string, key: string): number => Number(new RegExp(`/${key} (\\d+) 0 R`).exec(dict)?.[1]);

interface PdfFont {
  baseFont: string;
  widths: number[];
  outline: (cid: number) => string;
}

function fontsOf(objs: Map<number, Obj>): Map<string, PdfFont> {
  const page = [...objs.values()].find((o) => o.dict.includes('/Type /Page '));
  const resources = page?.dict ?? '';
  const fontDictRef = /\/Font (\d+) 0 R/.exec(resources)?.[1];
  const fontDict = fontDictRef
    ? objs.get(Number(fontDictRef))!.dict
    : (/\/Font <<(.*?)>>/.exec(resources)?.[1] ?? '');
  const fonts = new Map<string, PdfFont>();
  for (const m of fontDict.matchAll(/\/(\w+) (\d+) 0 R/g)) {
    const type0 = objs.get(Number(m[2]))!.dict;
    const cidFont = objs.get(ref(type0, 'DescendantFonts') || Number(/\[(\d+) 0 R\]/.exec(type0)?.[1]))!.dict;
    const descriptor = objs.get(ref(cidFont, 'FontDescriptor'))!.dict;
    const file = inflateSync(objs.get(ref(descriptor, 'FontFile2'))!.stream!);
    const font = fontkit.create(file);
    const widths = (/\/W \[0 \[([^\]]*)\]\]/.exec(cidFont)?.[1] ?? '').trim().split(/\s+/).map(Number);
    fonts.set(m[1]!, {
      baseFont: /\/BaseFont \/(\S+)/.exec(type0)?.[1] ?? '',
      widths,
      outline: (cid) => font.getGlyph(cid).path.toSVG(),
    });
  }
  return fonts;
}

/** The glyphs drawn by the page's content stream, in drawing order. */
export function drawnGlyphs(pdf: Buffer): DrawnGlyph[] {
  const objs = objects(pdf);
  const fonts = fontsOf(objs);
  const page = [...objs.values()].find((o) => o.dict.includes('/Type /Page '))!;
  const content = inflateSync(objs.get(ref(page.dict, 'Contents'))!.stream!).toString('latin1');
  const tokens =
    content.match(
      /\/[^\s/<>[\]()]+|<[0-9A-Fa-f]*>|\((?:\\[\s\S]|[^\\)])*\)|\[|\]|-?\d*\.?\d+|[A-Za-z*'"]+/g,
    ) ?? [];
  const glyphs: DrawnGlyph[] = [];
  const stack: (string | number)[] = [];
  let font: PdfFont | undefined;
  let size = 0;
  let x = 0;
  let y = 0;
  let rise = 0;
  // A string operand's two-byte codes: a hex string or a literal one (its escapes undone).
  const codes = (token: string): number[] => {
    const body = token.slice(1, -1);
    const bytes = token.startsWith('<')
      ? [...Buffer.from(body, 'hex')]
      : [...body.replace(/\\([\s\S])/g, (_, c: string) => (c === 'r' ? '\r' : c))].map((c) =>
          c.charCodeAt(0),
        );
    return bytes.flatMap((b, i) => (i % 2 === 0 ? [(b << 8) | bytes[i + 1]!] : []));
  };
  const show = (token: string): void => {
    for (const cid of codes(token)) {
      const width = ((font!.widths[cid] ?? 0) / 1000) * size;
      glyphs.push({ baseFont: font!.baseFont, outline: font!.outline(cid), x, y: y + rise, size, width });
      x += width;
    }
  };
  let array: (string | number)[] | undefined;
  for (const token of tokens) {
    if (token === '[') array = [];
    else if (token === ']') {
      stack.push(JSON.stringify(array));
      array = undefined;
    } else if (array) array.push(/^[<(]/.test(token) ? token : Number(token));
    else if (/^-?\d*\.?\d+$/.test(token) || /^[/<(]/.test(token)) stack.push(token);
    else {
      const args = stack.splice(0);
      switch (token) {
        case 'Tf':
          font = fonts.get(String(args[0]).slice(1));
          size = Number(args[1]);
          break;
        case 'Tm':
          x = Number(args[4]);
          y = Number(args[5]);
          break;
        case 'Ts':
          rise = Number(args[0]);
          break;
        case 'Tj':
          show(String(args[0]));
          break;
        case 'TJ':
          for (const item of JSON.parse(String(args[0])) as (string | number)[]) {
            if (typeof item === 'number') x -= (item / 1000) * size;
            else show(item);
          }
          break;
      }
    }
  }
  return glyphs;
}
