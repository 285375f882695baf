import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { allBundledFaces, bundledFacePath } from '../../src/pdf/font-catalog.js';
import { createPdfRenderer, type PdfRenderer, type RenderTemplate } from '../../src/pdf/pdf-renderer.js';
import type { Design } from '../../src/pdf/design.schema.js';
import { worldNames } from '../helpers/world-names.js';
import { pdfOf, values } from './pdf-helpers.js';
import {
  allNodes,
  archivalFacts,
  nodeText,
  qpdfJson,
  resolve,
  taggedPages,
  type StructNode,
} from './tagged-support.js';

// Our tags compared with another implementation's: Typst 0.14 (@myriaddreamin/typst-ts-node-compiler,
// a dev dependency) writes the same certificate (a title, a line, the recipient's name in its
// language, the QR code as an image with alternative text, the credential attached) as PDF/UA-1, and
// again as PDF/A-3a: its node compiler takes one standard per export (`pdfStandard`), so it cannot
// write one file that claims both, as ours does. For a name in each writing system, the same checks
// run on both files: the H1, the name's element and its /Lang, the QR's Figure and /Alt; the catalog's
// /MarkInfo, /Lang, /ViewerPreferences and the XMP identification; and, for Typst's PDF/A-3a file and
// ours, the sRGB output intent and the credential as an associated file (/AF, /AFRelationship /Data).

process.env.RAYON_NUM_THREADS = '1';
type Typst = typeof import('@myriaddreamin/typst-ts-node-compiler');

const design: Design = {
  name: 'Course completion',
  locale: 'en',
  fields: [],
  page: { width: 842, height: 595 },
  elements: [
    {
      type: 'text',
      text: 'Certificate of Completion',
      x: 71,
      y: 126,
      width: 700,
      size: 36,
      font: 'serif-bold',
    },
    { type: 'text', text: 'This certifies that', x: 71, y: 188, width: 700, size: 14 },
    { type: 'text', text: '{{recipient.name}}', x: 121, y: 212, width: 600, size: 40, font: 'serif-bold' },
    { type: 'qr', x: 692, y: 432, size: 96 },
  ],
};
const template: RenderTemplate = { id: 'typst-compare', version: '1', design };

const QR_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10" fill="#fff"/><path d="M2 2h3v3h-3z"/></svg>';
const SOURCE = `#set document(title: "Course completion")
#set text(lang: "en", font: ("DejaVu Serif", "Noto Serif", "Noto Naskh Arabic", "Noto Sans Arabic", "Noto Sans Hebrew",
  "Noto Sans Devanagari", "Noto Sans Bengali", "Noto Sans Tamil", "Noto Sans Thai", "Noto Sans Georgian",
  "Noto Sans Armenian", "Noto Sans JP", "Noto Sans KR", "Noto Sans SC", "Noto Sans TC", "Noto Nastaliq Urdu"))
#set page(width: 842pt, height: 595pt, margin: 0pt)
#pdf.attach("credential.json", bytes(sys.inputs.credential), relationship: "data", mime-type: "application/vc",
  description: "Open Badges 3.0 credential")
#place(top + left, dx: 71pt, dy: 126pt, heading(level: 1, outlined: false)[Certificate of Completion])
#place(top + left, dx: 71pt, dy: 188pt)[This certifies that]
#place(top + left, dx: 121pt, dy: 212pt, par(text(lang: sys.inputs.lang, sys.inputs.name)))
#place(top + left, dx: 692pt, dy: 432pt, image(bytes(sys.inputs.qr), format: "svg", width: 96pt, alt: sys.inputs.alt))
`;

interface Facts {
  h1: string;
  name: StructNode | undefined;
  /** The name's language: its /Lang, or the document's when it has none (Typst's for English). */
  nameLang: string | undefined;
  qrAlt: string[];
  marked: unknown;
  lang: unknown;
  displayTitle: unknown;
  xmp: string;
}

async function facts(pdf: Buffer, name: string): Promise<Facts> {
  const [page] = await taggedPages(pdf);
  const nodes = allNodes(page!.tree);
  const h1 = nodes.find((n) => n.role === 'H1');
  // Ours puts the name in /ActualText (pdf.js: alt); Typst's is the one paragraph of its document.
  const named = nodes.find((n) => n.alt === name) ?? nodes.filter((n) => n.role === 'P').pop();
  const { catalog, xmp } = archivalFacts(qpdfJson(pdf));
  return {
    h1: h1 ? nodeText(page!, h1) : '',
    name: named,
    nameLang: named ? (named.lang ?? 'en') : undefined,
    qrAlt: nodes.filter((n) => n.role === 'Figure').map((n) => n.alt ?? ''),
    marked: (catalog['/MarkInfo'] as Record<string, unknown> | undefined)?.['/Marked'],
    lang: catalog['/Lang'],
    displayTitle: (catalog['/ViewerPreferences'] as Record<string, unknown> | undefined)?.[
      '/DisplayDocTitle'
    ],
    xmp,
  };
}

function associatedFile(pdf: Buffer): Record<string, unknown> {
  const objects = qpdfJson(pdf);
  const { catalog, intents } = archivalFacts(objects);
  assert.equal(intents.length, 1);
  assert.equal(intents[0]!['/S'], '/GTS_PDFA1');
  const spec = resolve(objects, (catalog['/AF'] as string[] | undefined)?.[0]) as
    Record<string, unknown> | undefined;
  return spec ?? {};
}

describe('tags compared with Typst 0.14 (PDF/UA-1, PDF/A-3a)', () => {
  let renderer: PdfRenderer;
  let compiler: InstanceType<Typst['NodeCompiler']>;
  before(() => {
    renderer = createPdfRenderer({ threads: 1 });
    const { NodeCompiler } = createRequire(import.meta.url)('@myriaddreamin/typst-ts-node-compiler') as Typst;
    compiler = NodeCompiler.create({
      workspace: '/typst-compare',
      fontArgs: [{ fontBlobs: allBundledFaces.map((face) => readFileSync(bundledFacePath(face))) }],
    });
    compiler.addSource('/typst-compare/main.typ', SOURCE);
  });
  after(() => renderer.close());

  for (const { script, name } of worldNames) {
    it(`tags a ${script} name as Typst does`, async () => {
      const v = values({ recipientName: name, data: {} });
      const ours = pdfOf((await renderer.render(template, [v]))[0]);
      const our = await facts(ours, name.normalize('NFC'));
      assert.ok(our.name?.lang, 'our name element has a /Lang');
      const alt = `QR code: verification link ${v.verificationUrl}`;
      const inputs = { name, lang: our.name.lang, qr: QR_SVG, alt, credential: '{}' };
      const result = compiler.compile({ mainFilePath: '/typst-compare/main.typ', inputs });
      assert.ok(result.result && !result.hasError(), 'Typst compiled the certificate');
      const typstUa = compiler.pdf(result.result, { pdfStandard: 'ua-1', creationTimestamp: 1795000000 });
      const typstA = compiler.pdf(result.result, { pdfStandard: 'a-3a', creationTimestamp: 1795000000 });
      const theirs = await facts(typstUa, name.normalize('NFC'));

      for (const [who, f] of [
        ['ours', our],
        ['Typst', theirs],
      ] as const) {
        assert.equal(f.h1, 'Certificate of Completion', `${who}: the H1`);
        assert.ok(f.name, `${who}: the name's element`);
        assert.equal(f.nameLang, our.name.lang, `${who}: the name's /Lang`);
        assert.deepEqual(f.qrAlt, [alt], `${who}: the QR code's Figure`);
        assert.equal(f.marked, true, `${who}: /MarkInfo`);
        assert.equal(f.lang, 'u:en', `${who}: the catalog's /Lang`);
        assert.equal(f.displayTitle, true, `${who}: the title shown`);
        assert.match(f.xmp, /pdfuaid:part(>|=")1/, `${who}: PDF/UA-1 in the XMP`);
      }
      // PDF/A-3a: Typst's file of that standard and ours.
      const typstFacts = archivalFacts(qpdfJson(Buffer.from(typstA)));
      assert.match(typstFacts.xmp, /pdfaid:part(>|=")3/);
      assert.match(typstFacts.xmp, /pdfaid:conformance(>|=")A/);
      assert.match(our.xmp, /pdfaid:part>3/);
      assert.match(our.xmp, /pdfaid:conformance>A/);
      assert.equal(associatedFile(Buffer.from(typstA))['/AFRelationship'], '/Data');
      assert.equal(archivalFacts(qpdfJson(ours)).intents[0]?.['/S'], '/GTS_PDFA1');
    });
  }
});
