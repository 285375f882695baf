import { createHash } from 'node:crypto';
import { canonicalNQuads, fillRdfTemplate, type RdfTemplate, type TermTemplate } from './rdf-template.js';

// Speed-first: RDFC-1.0 (W3C RDF Dataset Canonicalization) of a template's dataset without building
// its quads: each quad's N-Quads line is made once per template as constant text with the places of
// the values and of the blank nodes' labels. When every blank node's first-degree hash is unique (the
// credentials' shapes: their blank nodes differ in type or properties), the canonical labels follow
// from the sorted hashes (the algorithm's steps 5.3-5.4, as rdf-canonize runs them); otherwise
// rdf-canonize runs on the filled dataset. Checked against rdf-canonize and jsonld.canonize in tests.

const RDF_LANGSTRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

// A line's pieces: constant text, a value (escaped as an IRI or a literal), or a blank node's label.
type Piece = string | { slot: number; literal: boolean } | { blank: number };
interface CanonicalTemplate {
  lines: Piece[][];
  /** Each blank node's lines (by index in `lines`): the quads that mention it. */
  linesOf: number[][];
}

// The escapes of N-Quads as rdf-canonize writes them (its NQuads.js): one character at a time, so a
// value escaped alone is the same text as when escaped within its term.
// eslint-disable-next-line no-control-regex -- matching controls is the point
const IRI_ESCAPE = /[\u0000-\u0020<>"{}|^`\\]/g;
// eslint-disable-next-line no-control-regex -- matching controls is the point
const LITERAL_ESCAPE = /[\u0000-\u001F\u007F"\\]/g;
const SHORT_ESCAPES: Record<string, string> = {
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
  '"': '\\"',
  '\\': '\\\\',
};
const uchar = (c: string) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
const escapeIri = (s: string) => s.replace(IRI_ESCAPE, uchar);
const escapeLiteral = (s: string) => s.replace(LITERAL_ESCAPE, (c) => SHORT_ESCAPES[c] ?? uchar(c));

function compile(template: RdfTemplate): CanonicalTemplate {
  const blanks = new Map<string, number>();
  const linesOf: number[][] = [];
  const lines = template.quads.map((quad, at): Piece[] => {
    const line: Piece[] = [];
    const term = (t: TermTemplate, labelled: boolean) => {
      const label = t.parts.join('');
      if (t.termType === 'BlankNode' && labelled) {
        if (!blanks.has(label)) {
          blanks.set(label, blanks.size);
          linesOf.push([]);
        }
        const blank = blanks.get(label)!;
        if (linesOf[blank]!.at(-1) !== at) linesOf[blank]!.push(at);
        line.push('_:', { blank });
      } else if (t.termType === 'BlankNode') {
        line.push(`_:${label}`); // a predicate's blank node keeps its label (as in rdf-canonize)
      } else {
        const literal = t.termType === 'Literal';
        line.push(literal ? '"' : '<');
        for (const p of t.parts)
          line.push(typeof p === 'number' ? { slot: p, literal } : literal ? escapeLiteral(p) : escapeIri(p));
        line.push(literal ? '"' : '>');
        const datatype = t.datatype?.value ?? XSD_STRING;
        if (literal && datatype === RDF_LANGSTRING && t.language) line.push(`@${t.language}`);
        if (literal && datatype !== RDF_LANGSTRING && datatype !== XSD_STRING)
          line.push(`^^<${escapeIri(datatype)}>`);
      }
    };
    term(quad.subject, true);
    line.push(' ');
    term(quad.predicate, false);
    line.push(' ');
    term(quad.object, true);
    if (quad.graph.termType !== 'DefaultGraph') {
      line.push(' ');
      term(quad.graph, true);
    }
    line.push(' .\n');
    return line;
  });
  return { lines, linesOf };
}

const compiled = new WeakMap<RdfTemplate, CanonicalTemplate>();

/** The canonical N-Quads of `template` filled with `values`: canonicalNQuads(fillRdfTemplate(...)). */
export function canonicalFromTemplate(template: RdfTemplate, values: readonly string[]): string {
  let c = compiled.get(template);
  if (!c) {
    c = compile(template);
    compiled.set(template, c);
  }
  // Each value escaped once, as the kind of term it is in (most are in one kind only).
  const iris: string[] = [];
  const literals: string[] = [];
  const value = (slot: number, literal: boolean) =>
    literal ? (literals[slot] ??= escapeLiteral(values[slot]!)) : (iris[slot] ??= escapeIri(values[slot]!));
  const write = (line: Piece[], label: (blank: number) => string) => {
    let text = '';
    for (const p of line) {
      text += typeof p === 'string' ? p : 'slot' in p ? value(p.slot, p.literal) : label(p.blank);
    }
    return text;
  };
  // First-degree hashes: a blank node's own lines, itself labelled a and the others z, sorted.
  const hashes = c.linesOf.map((own, blank) => {
    const lines = own.map((at) => write(c.lines[at]!, (b) => (b === blank ? 'a' : 'z')));
    return createHash('sha256').update(lines.sort().join(''), 'utf8').digest('hex');
  });
  const order = hashes.map((_, blank) => blank).sort((a, b) => (hashes[a]! < hashes[b]! ? -1 : 1));
  if (order.some((blank, i) => i > 0 && hashes[blank] === hashes[order[i - 1]!])) {
    return canonicalNQuads(fillRdfTemplate(template, values)); // shared hashes: the N-degree steps
  }
  const labels: string[] = [];
  order.forEach((blank, i) => (labels[blank] = `c14n${i}`));
  return c.lines
    .map((line) => write(line, (b) => labels[b]!))
    .sort()
    .join('');
}
