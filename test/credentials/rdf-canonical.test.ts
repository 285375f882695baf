import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import jsonld from 'jsonld';
import { CREDENTIAL_SHAPE, EXPIRING_CREDENTIAL_SHAPE } from '../../src/modules/proof/open-badge.js';
import { staticDocumentLoader } from '../../src/platform/proof/contexts.js';
import { canonicalFromTemplate } from '../../src/platform/proof/rdf-canonical.js';
import {
  canonicalNQuads,
  compileRdfTemplate,
  fillRdfTemplate,
  slot,
} from '../../src/platform/proof/rdf-template.js';
import { worldNames } from '../helpers/world-names.js';

// The canonical N-Quads of a filled template, our way (rdf-canonical.ts), against rdf-canonize on the
// filled dataset and jsonld.canonize on the document: every value in every place, the characters
// N-Quads escapes, and blank nodes whose first-degree hashes tie (rdf-canonize's N-degree steps).

const ODD = [
  'Zoë "Zed" Ångström',
  'back\\slash',
  'line\nbreak\r\tand tab\b\f',
  'controls \u0001\u001f\u007f',
  'emoji 🎓👩🏽‍🎓',
  'مريم الحسيني',
  'e\u0301 combining',
  '<script>{a|b^c`d}</script>',
  'urn:certsvc-slot:3! in a value',
  ' spaces around ',
  '',
];
const VALUES = [...ODD, ...worldNames.map((w) => w.name)];

// n values, the i-th set: each place gets a different one of VALUES in turn.
const valuesFor = (i: number, n: number) =>
  Array.from({ length: n }, (_, k) => `${VALUES[(i + k * 7) % VALUES.length]!}${i % 3 ? '' : i}`);

describe('RDFC-1.0 from a template (rdf-canonical.ts)', () => {
  it('gives the N-Quads rdf-canonize gives, for both credential shapes and any values', async () => {
    for (const shape of [CREDENTIAL_SHAPE, EXPIRING_CREDENTIAL_SHAPE]) {
      const template = await compileRdfTemplate(shape);
      for (let i = 0; i < 400; i++) {
        const values = valuesFor(i, 16);
        assert.equal(
          canonicalFromTemplate(template, values),
          canonicalNQuads(fillRdfTemplate(template, values)),
          JSON.stringify(values),
        );
      }
    }
  });

  it('agrees with jsonld.canonize where blank nodes tie, in named and blank graphs, with typed literals', async () => {
    const context = { ex: 'http://example.org/' };
    const shape = (values: string[] | null) => {
      const v = (i: number) => (values ? values[i]! : slot(i));
      return {
        '@context': context,
        '@id': 'http://example.org/graph',
        '@graph': [
          {
            '@id': v(0),
            // Two blank nodes alike: the same first-degree hash, told apart by the N-degree steps.
            'ex:same': [{ 'ex:q': 'alike' }, { 'ex:q': 'alike' }],
            'ex:named': { 'ex:q': v(1) },
            'ex:lang': { '@value': v(2), '@language': 'fr' },
            'ex:typed': { '@value': v(3), '@type': 'http://www.w3.org/2001/XMLSchema#gYear' },
            'ex:in': { '@graph': { 'ex:q': v(4) } },
          },
        ],
      };
    };
    const template = await compileRdfTemplate(shape(null));
    for (let i = 0; i < 40; i++) {
      const values = valuesFor(i, 5).map((value, k) => (k === 0 ? `http://example.org/${i}` : value));
      const reference = await jsonld.canonize(shape(values), {
        algorithm: 'RDFC-1.0',
        format: 'application/n-quads',
        documentLoader: staticDocumentLoader,
        safe: true,
      });
      assert.equal(canonicalFromTemplate(template, values), reference, JSON.stringify(values));
    }
  });
});
