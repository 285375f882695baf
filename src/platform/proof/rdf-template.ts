import { createHash } from 'node:crypto';
import jsonld, { type Quad } from 'jsonld';
import canonize from 'rdf-canonize';
import { staticDocumentLoader } from './contexts.js';

// Speed-first: JSON-LD expansion costs 2-15 ms per document, so a document shape is expanded once,
// with slot tokens in place of its values, and each document of that shape is its RDF dataset with
// the values put back; only RDFC-1.0 runs per document. Checked against jsonld.canonize in tests.

const SLOT = /urn:certsvc-slot:(\d+)!/g;

// A token that is an absolute IRI (JSON-LD's safe mode refuses relative ones) and a plain literal.
export function slot(index: number): string {
  return `urn:certsvc-slot:${index}!`;
}

type Part = string | number;
export interface TermTemplate {
  termType: string;
  parts: Part[];
  datatype?: { termType: string; value: string };
  language?: string;
}
export interface RdfTemplate {
  quads: { subject: TermTemplate; predicate: TermTemplate; object: TermTemplate; graph: TermTemplate }[];
}

function termTemplate(term: Quad['object']): TermTemplate {
  const parts: Part[] = [];
  let last = 0;
  for (const m of term.value.matchAll(SLOT)) {
    if (m.index > last) parts.push(term.value.slice(last, m.index));
    parts.push(Number(m[1]));
    last = m.index + m[0].length;
  }
  if (last < term.value.length || parts.length === 0) parts.push(term.value.slice(last));
  const out: TermTemplate = { termType: term.termType, parts };
  if (term.datatype) out.datatype = term.datatype;
  if (term.language) out.language = term.language;
  return out;
}

export async function compileRdfTemplate(documentWithSlots: unknown): Promise<RdfTemplate> {
  const quads = await jsonld.toRDF(documentWithSlots, { documentLoader: staticDocumentLoader, safe: true });
  return {
    quads: quads.map((q) => ({
      subject: termTemplate(q.subject),
      predicate: termTemplate(q.predicate),
      object: termTemplate(q.object),
      graph: termTemplate(q.graph),
    })),
  };
}

function fillTerm(t: TermTemplate, values: readonly string[]): Quad['object'] {
  const value =
    t.parts.length === 1 && typeof t.parts[0] === 'string'
      ? t.parts[0]
      : t.parts.map((p) => (typeof p === 'number' ? values[p]! : p)).join('');
  const term: Quad['object'] = { termType: t.termType, value };
  if (t.datatype) term.datatype = t.datatype;
  if (t.language) term.language = t.language;
  return term;
}

export function fillRdfTemplate(template: RdfTemplate, values: readonly string[]): Quad[] {
  return template.quads.map((q) => ({
    subject: fillTerm(q.subject, values),
    predicate: fillTerm(q.predicate, values),
    object: fillTerm(q.object, values),
    graph: fillTerm(q.graph, values),
  }));
}

export function canonicalNQuads(dataset: Quad[]): string {
  return canonize._canonizeSync(dataset, { algorithm: 'RDFC-1.0', format: 'application/n-quads' });
}

// The general path, for documents of no fixed shape (status lists): the reference expansion.
export async function canonicalDocument(document: unknown): Promise<string> {
  return jsonld.canonize(document, {
    algorithm: 'RDFC-1.0',
    format: 'application/n-quads',
    documentLoader: staticDocumentLoader,
    safe: true,
  });
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
