import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Design } from '../../src/pdf/design.schema.js';
import { createPdfRenderer, type PdfRenderer, type RenderTemplate } from '../../src/pdf/pdf-renderer.js';
import { worldNames } from '../helpers/world-names.js';
import { loadDesign, pdfOf, values } from './pdf-helpers.js';
import { readsBack } from './name-text.js';
import {
  allNodes,
  archivalFacts,
  nodeText,
  qpdfJson,
  streamData,
  taggedPages,
  type StructNode,
} from './tagged-support.js';

// Tagged PDF (PDF/UA-1, decisions 23): the structure tree of every certificate, read back with
// pdf.js, in each writing system the fonts cover; and the catalog's entries, read with qpdf.

const course = loadDesign('course-completion');
course.elements.forEach((e) => {
  if (e.type === 'image') e.alt = 'Academy logo';
});
const template: RenderTemplate = { id: 'tagged-course', version: '1', design: course };

// The language each name is tagged with (decisions 23): the script's, the document's for Latin.
const expectedLang: Record<string, string> = {
  Latin: 'en',
  Vietnamese: 'en',
  Greek: 'el',
  Cyrillic: 'ru',
  Arabic: 'ar',
  Persian: 'ar',
  Urdu: 'ar',
  Hebrew: 'he',
  Devanagari: 'hi',
  Bengali: 'bn',
  Tamil: 'ta',
  Thai: 'th',
  'Chinese (simplified)': 'zh',
  'Chinese (traditional)': 'zh',
  Japanese: 'ja',
  Korean: 'ko',
  Georgian: 'ka',
  Armenian: 'hy',
  'Latin and Arabic': 'en',
};

function named(tree: StructNode, role: string): StructNode[] {
  return allNodes(tree).filter((n) => n.role === role);
}

describe('tagged PDF', () => {
  let renderer: PdfRenderer;
  before(() => {
    renderer = createPdfRenderer({ threads: 1 });
  });
  after(() => renderer.close());

  for (const { script, name } of worldNames) {
    it(`tags a certificate for a ${script} name: H1, the name with its language, figures with alternative text`, async () => {
      const v = values({ recipientName: name });
      const pdf = pdfOf((await renderer.render(template, [v]))[0]);
      const [page] = await taggedPages(pdf);
      assert.ok(page);
      assert.equal(page.tree.children.length, 1);
      const document = page.tree.children[0]!;
      assert.equal(document.role, 'Document');
      const [h1, ...otherH1] = named(page.tree, 'H1');
      assert.ok(h1 && otherH1.length === 0, 'one H1');
      assert.equal(nodeText(page, h1), 'Certificate of Completion');
      // The name: its own element, its language, its text as typed.
      const nameNode = allNodes(page.tree).find((n) => n.alt === name.normalize('NFC'));
      assert.ok(nameNode, 'an element whose /ActualText is the name as typed');
      assert.equal(nameNode.lang, expectedLang[script]);
      assert.ok(nameNode.content.length > 0 && nameNode.children.length === 0, 'the name alone');
      const figures = named(page.tree, 'Figure');
      assert.deepEqual(
        figures.map((f) => f.alt),
        ['Academy logo', `QR code: verification link ${v.verificationUrl}`],
      );
      // Every text shown is in a marked-content sequence the tree points to.
      assert.deepEqual(page.untagged, []);
      const referenced = new Set(allNodes(page.tree).flatMap((n) => n.content));
      for (const id of page.text.keys()) assert.ok(referenced.has(id), `${id} is in the tree`);
      // Reading order: top to bottom.
      const order = document.children.map((n) => nodeText(page, n));
      assert.ok(order.indexOf('Certificate of Completion') < order.indexOf('This certifies that'));
      assert.ok(
        order.indexOf('This certifies that') < order.indexOf('has successfully completed the course'),
      );
      // What a reader copies is the name as typed.
      assert.ok(readsBack(pdf, name), 'pdftotext gives the name');
    });
  }

  it('puts the catalog entries, page entries and artifacts of PDF/UA in the file', async () => {
    const pdf = pdfOf((await renderer.render(template, [values()]))[0]);
    const objects = qpdfJson(pdf);
    const { catalog, info } = archivalFacts(objects);
    assert.deepEqual(catalog['/MarkInfo'], { '/Marked': true });
    assert.equal(catalog['/Lang'], 'u:en');
    assert.deepEqual(catalog['/ViewerPreferences'], { '/DisplayDocTitle': true });
    assert.ok(catalog['/StructTreeRoot']);
    assert.equal(info['/Title'], 'u:Course completion');
    const page = Object.values(objects).find(
      (o) => (o.value as Record<string, unknown> | undefined)?.['/Type'] === '/Page',
    )?.value as Record<string, unknown>;
    assert.equal(page['/Tabs'], '/S');
    assert.equal(page['/StructParents'], 0);
    const content = streamData(objects, page['/Contents'] as string).toString('latin1');
    // The two borders, the rule under the name, the background and the signatory's rule.
    assert.equal(content.match(/\/Artifact BMC/g)?.length, 5);
  });

  it('writes the same bytes for the same certificate', async () => {
    const [a, b] = await renderer.render(template, [values(), values()]);
    assert.ok(pdfOf(a).equals(pdfOf(b)));
  });

  it('tags a name inside a sentence as a Span of its own, in logical order, with the language of its script', async () => {
    const design: Design = {
      name: 'Sentence',
      locale: 'en',
      fields: [{ key: 'course', label: 'Course', required: false }],
      page: { width: 842, height: 200 },
      elements: [
        { type: 'text', text: 'Awarded to {{recipient.name}} for {{data.course}}', x: 40, y: 40, width: 760 },
      ],
    };
    const pdf = pdfOf(
      (
        await renderer.render({ id: 'sentence', version: '1', design }, [
          values({ recipientName: 'محمد علي', data: { course: 'Algebra 2' } }),
        ])
      )[0],
    );
    const [page] = await taggedPages(pdf);
    const paragraph = named(page!.tree, 'P')[0]!;
    const span = paragraph.children.find((c) => c.role === 'Span');
    assert.ok(span);
    assert.equal(span.lang, 'ar');
    assert.equal(span.alt, 'محمد علي');
    assert.match(nodeText(page!, paragraph), /^Awarded to .* for Algebra 2$/);
  });

  it('tags a table on page 2 as Table, TR, TH and TD, on every page it runs onto', async () => {
    const design: Design = {
      name: 'Transcript',
      pages: 2,
      fields: [{ key: 'grades', label: 'Grades', required: false, type: 'list' } as never],
      page: { width: 595, height: 300 },
      elements: [
        { type: 'text', text: '{{recipient.name}}', x: 40, y: 40, width: 500 },
        {
          type: 'table',
          page: 2,
          field: 'grades',
          x: 40,
          y: 40,
          width: 400,
          height: 150,
          columns: [
            { key: 'module', label: 'Module', width: 300 },
            { key: 'grade', label: 'Grade', width: 100 },
          ],
        } as never,
      ],
    };
    const grades = Array.from({ length: 12 }, (_, i) => ({ module: `Module ${i + 1}`, grade: 'A' }));
    const pdf = pdfOf(
      (await renderer.render({ id: 'transcript', version: '1', design }, [values({ data: { grades } })]))[0],
    );
    const pages = await taggedPages(pdf);
    assert.ok(pages.length >= 3, `${pages.length} pages`);
    let rows = 0;
    for (const page of pages.slice(1)) {
      const [table] = named(page.tree, 'Table');
      assert.ok(table);
      const [header, ...body] = table.children;
      assert.deepEqual(
        header!.children.map((c) => [c.role, nodeText(page, c).trim()]),
        [
          ['TH', 'Module'],
          ['TH', 'Grade'],
        ],
      );
      for (const row of body)
        assert.deepEqual(
          row.children.map((c) => c.role),
          ['TD', 'TD'],
        );
      rows += body.length;
      assert.deepEqual(page.untagged, []);
    }
    assert.equal(rows, 12);
  });

  it('marks an image without alternative text as an artifact, not a figure', async () => {
    const plain = loadDesign('course-completion');
    const pdf = pdfOf((await renderer.render({ id: 'no-alt', version: '1', design: plain }, [values()]))[0]);
    const [page] = await taggedPages(pdf);
    assert.deepEqual(
      named(page!.tree, 'Figure').map((f) => f.alt),
      ['QR code: verification link https://certs.example.com/verify/7K3M9Q2XRB4D8F1H'],
    );
  });
});
