import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Value } from 'typebox/value';
import { Design } from '../../src/pdf/design.schema.js';
import { designIssues, sampleValues } from '../../src/pdf/pdf-renderer.js';
import { sampleFieldValue } from '../../src/pdf/sample-values.js';
import { compileTemplate } from '../../src/pdf/template-compiler.js';
import { renderDocument } from '../../src/pdf/document-writer.js';
import { loadDesign, pdfOf, pdfText } from './pdf-helpers.js';

const onePixelPng =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

function minimal(elements: Design['elements']): Design {
  return {
    name: 'Test',
    fields: [{ key: 'course', label: 'Course', required: true }],
    page: { width: 400, height: 300 },
    elements,
  };
}

describe('sample designs', () => {
  // The gallery of the design studio (src/modules/templates/gallery.ts) is these four.
  for (const name of ['course-completion', 'event-attendance', 'diploma-portrait', 'minimal-modern']) {
    it(`${name} is a valid design without issues, and renders its sample values`, async () => {
      const design = loadDesign(name);
      assert.ok(Value.Check(Design, design), JSON.stringify([...Value.Errors(Design, design)].slice(0, 3)));
      assert.deepEqual(await designIssues(design), []);
      const sample = sampleValues(design);
      assert.match(sample.issuedAt, /^\d{4}-\d\d-\d\dT/);
      for (const field of design.fields) assert.equal(typeof sample.data[field.key], 'string');
      const text = pdfText(pdfOf(renderDocument(compileTemplate(design), sample)));
      assert.ok(text.includes(sample.recipientName), text);
      // Realistic sample values, never a field's label standing in for its value.
      for (const field of design.fields) {
        assert.notEqual(sample.data[field.key], field.label);
        assert.ok(text.includes(String(sample.data[field.key])), `${sample.data[field.key]} in ${text}`);
      }
    });
  }
});

describe('sample values', () => {
  it('read like a real certificate: a course, hours, a date, a place; a label never stands in', () => {
    const value = (key: string, label: string) => sampleFieldValue({ key, label });
    assert.equal(value('course', 'Course title'), 'Safe Lifting Techniques');
    assert.equal(value('hours', 'Hours of instruction'), '12');
    assert.equal(value('eventDate', 'Event date'), '14 March 2026');
    assert.equal(value('location', 'Location'), 'Lisbon, Portugal');
    assert.equal(value('provider', 'Training provider'), 'Safe Lifting Techniques');
    assert.equal(value('xyz', 'Favourite colour'), 'Sample favourite colour');
  });
});

describe('designIssues', () => {
  it('finds unknown placeholders and undeclared data keys, with the element path', async () => {
    const issues = await designIssues(
      minimal([
        { type: 'text', text: 'Hello {{recipient.name}}', x: 10, y: 10, width: 200 },
        { type: 'text', text: 'Dear {{ recipient.email }}', x: 10, y: 40, width: 200 },
        { type: 'text', text: '{{data.course}} and {{data.grade}}', x: 10, y: 70, width: 200 },
        {
          type: 'text',
          text: '{{certificate.code}} {{ certificate.uniqueCode }}',
          x: 10,
          y: 100,
          width: 200,
        },
      ]),
    );
    assert.deepEqual(
      issues.map((i) => i.path),
      [
        ['elements', 1, 'text'],
        ['elements', 2, 'text'],
        ['elements', 3, 'text'],
      ],
    );
    assert.match(issues[0]?.message ?? '', /unknown placeholder \{\{ recipient\.email \}\}/);
    assert.match(issues[1]?.message ?? '', /\{\{data\.grade\}\} uses a key that is not declared in fields/);
    assert.match(issues[2]?.message ?? '', /unknown placeholder \{\{certificate\.code\}\}/);
  });

  it('finds static text no font can draw (emoji), and a stray brace', async () => {
    const issues = await designIssues(
      minimal([
        { type: 'text', text: 'Well done 🎓', x: 10, y: 10, width: 200 },
        { type: 'text', text: 'Hello {{recipient.name}', x: 10, y: 40, width: 200 },
      ]),
    );
    assert.deepEqual(
      issues.map((i) => [i.path, i.message.slice(0, 40)]),
      [
        [['elements', 0, 'text'], 'Text 1: contains characters that cannot '],
        [['elements', 1, 'text'], 'Text 2: has an unclosed {{ or a stray }}'],
      ],
    );
  });

  it('finds images that cannot be decoded', async () => {
    const design = minimal([
      { type: 'image', src: onePixelPng, x: 0, y: 0, width: 10, height: 10 },
      { type: 'image', src: 'data:image/png;base64,AAAA', x: 0, y: 0, width: 10, height: 10 },
      { type: 'image', src: 'data:image/jpeg;base64,/9j/AAAA', x: 0, y: 0, width: 10, height: 10 },
    ]);
    design.background = { image: 'data:image/png;base64,iVBORw0KGgo=' };
    assert.deepEqual(
      (await designIssues(design)).map((i) => i.path),
      [
        ['background', 'image'],
        ['elements', 1, 'src'],
        ['elements', 2, 'src'],
      ],
    );
  });

  it('finds elements that leave the page', async () => {
    const issues = await designIssues(
      minimal([
        { type: 'text', text: 'Fits', x: 100, y: 100, width: 300, size: 20 },
        { type: 'text', text: 'Too wide', x: 150, y: 100, width: 300 },
        { type: 'text', text: 'Too low', x: 10, y: 290, width: 100, size: 14 },
        { type: 'image', src: onePixelPng, x: 350, y: 10, width: 60, height: 20 },
        { type: 'qr', x: 10, y: 250, size: 60 },
        { type: 'rect', x: 0, y: 0, width: 400, height: 300, stroke: '#000000' },
      ]),
    );
    assert.deepEqual(
      issues.map((i) => i.path),
      [
        ['elements', 1, 'x'],
        ['elements', 2, 'y'],
        ['elements', 3, 'x'],
        ['elements', 4, 'y'],
      ],
    );
    // Named as the studio's list names them, from 1; the path stays the API's, from 0.
    assert.deepEqual(
      issues.map((i) => i.message),
      [
        'Text 2: reaches past the right edge by 50 pt',
        'Text 3: reaches past the bottom edge by 6.3 pt',
        'Image 4: reaches past the right edge by 10 pt',
        'QR code 5: reaches past the bottom edge by 10 pt',
      ],
    );
  });

  it('checks minSize against size and the static text', async () => {
    const issues = await designIssues(
      minimal([
        { type: 'text', text: '{{recipient.name}}', x: 10, y: 10, width: 200, size: 12, minSize: 20 },
        {
          type: 'text',
          text: 'A rather long static heading',
          x: 10,
          y: 40,
          width: 50,
          size: 20,
          minSize: 10,
        },
      ]),
    );
    assert.deepEqual(
      issues.map((i) => i.path),
      [
        ['elements', 0, 'minSize'],
        ['elements', 1, 'text'],
      ],
    );
  });
});

describe('minimum text size', () => {
  it('refuses a value too long to fit at minSize, with the path of the value', () => {
    const design = minimal([
      { type: 'text', text: '{{recipient.name}}', x: 10, y: 10, width: 100, size: 20, minSize: 12 },
      { type: 'text', text: '{{data.course}}', x: 10, y: 60, width: 100, size: 20 },
    ]);
    const compiled = compileTemplate(design);
    const base = {
      issuedAt: '2026-11-21T09:30:00.000Z',
      uniqueCode: 'X',
      verificationUrl: 'https://x.test/verify/X',
    };
    const long = 'Wolfeschlegelsteinhausenbergerdorff the Elder';
    const refused = renderDocument(compiled, { ...base, recipientName: long, data: { course: 'C' } });
    assert.equal(refused.ok, false);
    assert.ok(!refused.ok && refused.issues[0]?.path.join('.') === 'name');
    // Without minSize a value shrinks as far as needed.
    const shrunk = renderDocument(compiled, { ...base, recipientName: 'Ada', data: { course: long } });
    assert.ok(pdfText(pdfOf(shrunk)).includes(long));
  });
});
