import { crc32 } from 'node:zlib';
import { escapeXml, xmlTokens } from '../../platform/svg/xml-tokens.js';

// Open Badges 3.0 baking (1EdTech OB 3.0, "Badge baking"): the credential travels inside the badge
// image, so a backpack that imports baked badges reads it back. Pure functions over bytes.
// - PNG: one iTXt chunk with the keyword `openbadgecredential`, uncompressed, empty language tag
//   and translated keyword, the credential's JSON as its text; put before IEND, replacing any
//   chunk of that keyword already there (the rules allow it once).
// - SVG: the root carries xmlns:openbadges="https://purl.imsglobal.org/ob/v3p0" and its first child
//   is <openbadges:credential> with the JSON in a CDATA section (any "]]>" in the JSON split across
//   two sections, so an XML parser reads back exactly the JSON).

export const PNG_KEYWORD = 'openbadgecredential';
export const OPENBADGES_NAMESPACE = 'https://purl.imsglobal.org/ob/v3p0';
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body, crc32(Buffer.from(type, 'latin1'))));
  return Buffer.concat([head, body, crc]);
}

function isBakedChunk(type: string, body: Buffer): boolean {
  return type === 'iTXt' && body.subarray(0, PNG_KEYWORD.length + 1).equals(Buffer.from(`${PNG_KEYWORD}\0`));
}

/** The PNG with the credential baked in; throws an Error when the PNG's chunks are not whole. */
export function bakePng(png: Buffer, credential: Buffer): Buffer {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG image');
  const kept: Buffer[] = [png.subarray(0, 8)];
  let at = 8;
  for (;;) {
    if (at + 12 > png.length) throw new Error('a PNG image without its IEND chunk');
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const end = at + 12 + length;
    if (end > png.length) throw new Error(`a PNG image cut short in its ${type} chunk`);
    if (type === 'IEND') break;
    if (!isBakedChunk(type, png.subarray(at + 8, at + 8 + length))) kept.push(png.subarray(at, end));
    at = end;
  }
  // keyword, NUL, compression flag 0, compression method 0, language tag "", NUL, translated keyword "", NUL, text
  const text = Buffer.concat([Buffer.from(`${PNG_KEYWORD}\0\0\0\0\0`, 'latin1'), credential]);
  return Buffer.concat([...kept, pngChunk('iTXt', text), pngChunk('IEND', Buffer.alloc(0))]);
}

/** The credential's JSON as CDATA sections: a "]]>" inside it ends one section and opens the next. */
function cdata(text: string): string {
  return `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
}

/**
 * The SVG with the credential baked in, its root start tag rewritten with the openbadges namespace
 * and any <openbadges:credential> already among the root's children removed. The SVG is one this
 * service made (the safe-SVG check's output, the default seal), read with the strict tokenizer.
 */
export function bakeSvg(svg: string, credential: string): string {
  let root: { start: number; end: number; selfClosing: boolean; text: string } | undefined;
  let depth = 0;
  // Old credential elements (children of the root) to cut out: [start, end) ranges.
  const cut: [number, number][] = [];
  let cutStart: number | undefined;
  for (const token of xmlTokens(svg)) {
    if (token.kind === 'open') {
      if (!root) {
        const attrs = token.attributes
          .filter((a) => a.name !== 'xmlns:openbadges')
          .map((a) => ` ${a.name}="${escapeXml(a.value)}"`)
          .join('');
        root = {
          start: token.start,
          end: token.end,
          selfClosing: token.selfClosing,
          text: `<${token.name}${attrs} xmlns:openbadges="${OPENBADGES_NAMESPACE}">`,
        };
        if (token.selfClosing) break;
      } else if (depth === 1 && token.name === 'openbadges:credential') {
        if (token.selfClosing) cut.push([token.start, token.end]);
        else cutStart = token.start;
      }
      if (!token.selfClosing) depth++;
    } else if (token.kind === 'close') {
      depth--;
      if (depth === 1 && cutStart !== undefined && token.name === 'openbadges:credential') {
        cut.push([cutStart, token.end]);
        cutStart = undefined;
      }
      if (depth === 0) break;
    }
  }
  if (!root) throw new Error('not an SVG drawing');
  const element = `<openbadges:credential>${cdata(credential)}</openbadges:credential>`;
  if (root.selfClosing) {
    const name = /^<([^\s>]+)/.exec(root.text)![1];
    return `${svg.slice(0, root.start)}${root.text}${element}</${name}>${svg.slice(root.end)}`;
  }
  let rest = '';
  let from = root.end;
  for (const [start, end] of cut) {
    rest += svg.slice(from, start);
    from = end;
  }
  rest += svg.slice(from);
  return `${svg.slice(0, root.start)}${root.text}${element}${rest}`;
}
