import { hash } from 'node:crypto';
import { canonicalNQuads, fillRdfTemplate, type RdfTemplate, type TermTemplate } from './rdf-template.js';

// Speed-first: RDFC-1.0 (W3C RDF Dataset Canonicalization) of a template's dataset without building
// its quads: each quad's N-Quads line is made once per template as constant text with the places of
// the values and of the blank nodes' labels. When every blank node's first-degree hash is unique (the
// credentials' shapes: their blank nodes differ in type or properties), the canonical labels follow
// from the sorted hashes (the algorithm's steps 5.3-5.4, as rdf-canonize runs them); otherwise
// rdf-canonize runs on the filled dataset. Checked against rdf-canonize and jsonld.canonize in tests.

const RDF_LANGSTRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';
const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';

// A line's pieces, all of one shape (the hot loop sees one kind of object): constant text, a value
// (`slot`, escaped as an IRI or a literal), or a blank node's label (`blank`); -1 where not that.
interface Piece {
  text: string;
  slot: number;
  literal: boolean;
  blank: number;
}
interface CanonicalTemplate {
  lines: Piece[][];
  /** Each blank node's lines (by index in `lines`): the quads that mention it. */
  linesOf: number[][];
  /** Each slot's kinds of term: 1 in an IRI, 2 in a literal, 3 both, 0 unused. */
  kinds: number[];
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
  const kinds: number[] = [];
  const text = (t: string): Piece => ({ text: t, slot: -1, literal: false, blank: -1 });
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
        line.push(text('_:'), { text: '', slot: -1, literal: false, blank });
      } else if (t.termType === 'BlankNode') {
        line.push(text(`_:${label}`)); // a predicate's blank node keeps its label (as in rdf-canonize)
      } else {
        const literal = t.termType === 'Literal';
        line.push(text(literal ? '"' : '<'));
        for (const p of t.parts) {
          if (typeof p !== 'number') line.push(text(literal ? escapeLiteral(p) : escapeIri(p)));
          else {
            kinds[p] = (kinds[p] ?? 0) | (literal ? 2 : 1);
            line.push({ text: '', slot: p, literal, blank: -1 });
          }
        }
        line.push(text(literal ? '"' : '>'));
        const datatype = t.datatype?.value ?? XSD_STRING;
        if (literal && datatype === RDF_LANGSTRING && t.language) line.push(text(`@${t.language}`));
        if (literal && datatype !== RDF_LANGSTRING && datatype !== XSD_STRING)
          line.push(text(`^^<${escapeIri(datatype)}>`));
      }
    };
    term(quad.subject, true);
    line.push(text(' '));
    term(quad.predicate, false);
    line.push(text(' '));
    term(quad.object, true);
    if (quad.graph.termType !== 'DefaultGraph') {
      line.push(text(' '));
      term(quad.graph, true);
    }
    line.push(text(' .\n'));
    // Consecutive constant texts as one.
    return line.reduce<Piece[]>((merged, p) => {
      const last = merged.at(-1);
      if (last && last.slot < 0 && last.blank < 0 && p.slot < 0 && p.blank < 0) last.text += p.text;
      else merged.push(p);
      return merged;
    }, []);
  });
  return { lines, linesOf, kinds: Array.from({ length: kinds.length }, (_, i) => kinds[i] ?? 0) };
}

const compiled = new WeakMap<RdfTemplate, CanonicalTemplate>();

// A line's text: its values escaped as their terms (`iris`, `literals` by slot), blank nodes by `labels`.
function lineText(line: Piece[], iris: string[], literals: string[], labels: string[]): string {
  let text = '';
  for (let i = 0; i < line.length; i++) {
    const p = line[i]!;
    if (p.slot >= 0) text += p.literal ? literals[p.slot]! : iris[p.slot]!;
    else if (p.blank >= 0) text += labels[p.blank]!;
    else text += p.text;
  }
  return text;
}

// Written as plain loops over arrays made the same way on every call, with no closures: the
// compiled code sees one shape everywhere, whichever template (a credential's, the proof options')
// and whatever names come (before: deoptimised, "wrong map", on every issue's proof options).
/** The canonical N-Quads of `template` filled with `values`: canonicalNQuads(fillRdfTemplate(...)). */
export function canonicalFromTemplate(template: RdfTemplate, values: readonly string[]): string {
  let c = compiled.get(template);
  if (!c) {
    c = compile(template);
    compiled.set(template, c);
  }
  // Each value escaped once per kind of term it is in.
  const iris: string[] = [];
  const literals: string[] = [];
  for (let slot = 0; slot < c.kinds.length; slot++) {
    const kind = c.kinds[slot]!;
    iris.push(kind & 1 ? escapeIri(values[slot]!) : '');
    literals.push(kind & 2 ? escapeLiteral(values[slot]!) : '');
  }
  // First-degree hashes: a blank node's own lines, itself labelled a and the others z, sorted.
  const blanks = c.linesOf.length;
  const labels: string[] = [];
  for (let b = 0; b < blanks; b++) labels.push('z');
  const hashes: string[] = [];
  for (let b = 0; b < blanks; b++) {
    const own = c.linesOf[b]!;
    const lines: string[] = [];
    labels[b] = 'a';
    for (let i = 0; i < own.length; i++) lines.push(lineText(c.lines[own[i]!]!, iris, literals, labels));
    labels[b] = 'z';
    hashes.push(hash('sha256', lines.sort().join(''), 'hex'));
  }
  // The blank nodes in order of their hashes (insertion sort: a handful of them).
  const order: number[] = [];
  for (let b = 0; b < blanks; b++) {
    let at = order.length;
    while (at > 0 && hashes[order[at - 1]!]! > hashes[b]!) at--;
    order.splice(at, 0, b);
  }
  for (let i = 1; i < blanks; i++) {
    if (hashes[order[i]!] === hashes[order[i - 1]!]) {
      return canonicalNQuads(fillRdfTemplate(template, values)); // shared hashes: the N-degree steps
    }
  }
  for (let i = 0; i < blanks; i++) labels[order[i]!] = `c14n${i}`;
  const out: string[] = [];
  for (let i = 0; i < c.lines.length; i++) out.push(lineText(c.lines[i]!, iris, literals, labels));
  return out.sort().join('');
}
