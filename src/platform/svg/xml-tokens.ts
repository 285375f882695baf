// A small, strict XML tokenizer for the SVG files people upload (a template's badge image, issue 31)
// and for baking a credential into one. No package is installed for it, so it reads a safe subset
// of XML 1.0 and refuses the rest: no DOCTYPE (so no entity can expand: only the five predefined
// entities and character references exist), names in ASCII, attribute values quoted. Each token
// carries its offsets in the text, so a caller can copy or replace it. Linear in the text's length.

export type XmlToken =
  | { kind: 'declaration'; start: number; end: number }
  | { kind: 'instruction'; target: string; start: number; end: number }
  | { kind: 'doctype'; start: number; end: number }
  | { kind: 'comment'; start: number; end: number }
  | { kind: 'text'; text: string; start: number; end: number }
  | { kind: 'cdata'; text: string; start: number; end: number }
  | {
      kind: 'open';
      name: string;
      attributes: XmlAttribute[];
      selfClosing: boolean;
      start: number;
      end: number;
    }
  | { kind: 'close'; name: string; start: number; end: number };

export interface XmlAttribute {
  name: string;
  value: string;
}

/** Malformed XML, or XML outside the subset read here; the message says why ("... at line 3"). */
export class XmlError extends Error {}

const NAME = /[A-Za-z_][-A-Za-z0-9_.:]*/y;
const SPACE = /[ \t\r\n]*/y;
const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = 0; i < at && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function fail(text: string, at: number, what: string): never {
  throw new XmlError(`${what} (line ${lineAt(text, at)})`);
}

/** Text with its references replaced: the five predefined entities and &#N; / &#xH;. */
export function decodeReferences(text: string, source: string, at: number): string {
  if (!text.includes('&')) return text;
  return text.replace(/&([^;&\s]{0,32});?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) fail(source, at, 'has an "&" that starts no reference (write &amp;)');
    if (ref in PREDEFINED) return PREDEFINED[ref]!;
    const code = /^#x([0-9A-Fa-f]{1,6})$/.exec(ref)?.[1] ?? /^#([0-9]{1,7})$/.exec(ref)?.[1];
    if (code !== undefined) {
      const n = ref.startsWith('#x') ? parseInt(code, 16) : Number(code);
      if (n === 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) {
        fail(source, at, `has a character reference to no character (&${ref};)`);
      }
      return String.fromCodePoint(n);
    }
    return fail(
      source,
      at,
      `uses the entity &${ref}; that XML does not define (entities and DOCTYPE declarations are refused)`,
    );
  });
}

function readName(text: string, at: number): string {
  NAME.lastIndex = at;
  const match = NAME.exec(text);
  if (!match) fail(text, at, 'has a tag or attribute without a valid name');
  return match[0];
}

function skipSpace(text: string, at: number): number {
  SPACE.lastIndex = at;
  SPACE.exec(text);
  return SPACE.lastIndex;
}

function until(text: string, at: number, end: string, what: string): number {
  const found = text.indexOf(end, at);
  if (found < 0) fail(text, at, `has ${what} that never ends`);
  return found;
}

function openTag(text: string, start: number): XmlToken {
  const name = readName(text, start + 1);
  let at = start + 1 + name.length;
  const attributes: XmlAttribute[] = [];
  const seen = new Set<string>();
  for (;;) {
    const before = at;
    at = skipSpace(text, at);
    const c = text[at];
    if (c === '>') return { kind: 'open', name, attributes, selfClosing: false, start, end: at + 1 };
    if (c === '/' && text[at + 1] === '>') {
      return { kind: 'open', name, attributes, selfClosing: true, start, end: at + 2 };
    }
    if (c === undefined) fail(text, start, `has the tag <${name}> cut short`);
    if (at === before) fail(text, at, `has no space between the attributes of <${name}>`);
    const attr = readName(text, at);
    at = skipSpace(text, at + attr.length);
    if (text[at] !== '=') fail(text, at, `has the attribute ${attr} of <${name}> without a value`);
    at = skipSpace(text, at + 1);
    const quote = text[at];
    if (quote !== '"' && quote !== "'") fail(text, at, `has the attribute ${attr} of <${name}> unquoted`);
    const close = until(text, at + 1, quote, `the value of ${attr}`);
    const raw = text.slice(at + 1, close);
    if (raw.includes('<')) fail(text, at, `has a "<" in the value of ${attr} (write &lt;)`);
    if (seen.has(attr)) fail(text, at, `has the attribute ${attr} twice on <${name}>`);
    seen.add(attr);
    // XML's attribute-value normalisation: white space characters become spaces.
    attributes.push({ name: attr, value: decodeReferences(raw.replace(/[\t\n\r]/g, ' '), text, at) });
    at = close + 1;
  }
}

/** The tokens of `text`, in order; throws XmlError at the first thing outside the subset. */
export function* xmlTokens(text: string): Generator<XmlToken> {
  let at = 0;
  while (at < text.length) {
    const start = at;
    if (text[at] !== '<') {
      const next = text.indexOf('<', at);
      at = next < 0 ? text.length : next;
      const raw = text.slice(start, at);
      if (raw.includes(']]>')) fail(text, start, 'has "]]>" in its text');
      yield { kind: 'text', text: decodeReferences(raw, text, start), start, end: at };
    } else if (text.startsWith('<!--', at)) {
      at = until(text, at + 4, '-->', 'a comment') + 3;
      yield { kind: 'comment', start, end: at };
    } else if (text.startsWith('<![CDATA[', at)) {
      const close = until(text, at + 9, ']]>', 'a CDATA section');
      at = close + 3;
      yield { kind: 'cdata', text: text.slice(start + 9, close), start, end: at };
    } else if (text.startsWith('<!', at)) {
      if (!/^<!DOCTYPE[ \t\r\n]/.test(text.slice(at, at + 10))) fail(text, at, 'has a "<!" declaration');
      // Not read at all: refused by every caller, so its end is only looked for.
      at = until(text, at, '>', 'a DOCTYPE') + 1;
      yield { kind: 'doctype', start, end: at };
    } else if (text.startsWith('<?', at)) {
      const target = readName(text, at + 2);
      at = until(text, at + 2, '?>', 'a processing instruction') + 2;
      yield target.toLowerCase() === 'xml' && start === 0
        ? { kind: 'declaration', start, end: at }
        : { kind: 'instruction', target, start, end: at };
    } else if (text[at + 1] === '/') {
      const name = readName(text, at + 2);
      at = skipSpace(text, at + 2 + name.length);
      if (text[at] !== '>') fail(text, at, `has the end tag </${name}> cut short`);
      at += 1;
      yield { kind: 'close', name, start, end: at };
    } else {
      const token = openTag(text, at);
      at = token.end;
      yield token;
    }
  }
}

/** Text for an XML attribute value in double quotes, or element content. */
export function escapeXml(value: string): string {
  return value.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}
