import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Design } from '../../src/pdf/design.schema.js';
import { designIssues } from '../../src/pdf/pdf-renderer.js';
import { compileTemplate } from '../../src/pdf/template-compiler.js';
import { renderDocument } from '../../src/pdf/document-writer.js';
import { png } from '../helpers/hostile-files.js';
import { pdfOf, pdfText, pdfWords, values, withPdfFile } from './pdf-helpers.js';

// Issue 30 items 2-4: the line and signatory elements drawn, the signatories' placeholders, a text
// whose placeholders are all empty left out, and the checks of the new elements.

// A 40 × 20 px PNG: a signature twice as wide as it is tall.
const signature = `data:image/png;base64,${png({ width: 40, height: 20 }).toString('base64')}`;

function design(over: Partial<Design>): Design {
  return {
    name: 'Elements',
    fields: [{ key: 'course', label: 'Course', required: true }],
    page: { width: 600, height: 400 },
    elements: [],
    ...over,
  };
}

const render = (d: Design, over: Parameters<typeof values>[0] = {}) =>
  pdfOf(renderDocument(compileTemplate(d), values(over)));

/** The page's content stream, uncompressed by qpdf. */
function content(pdf: Buffer): string {
  return withPdfFile(pdf, (file, dir) => {
    const out = join(dir, 'qdf.pdf');
    execFileSync('qpdf', ['--qdf', '--object-streams=disable', file, out]);
    return readFileSync(out, 'latin1');
  });
}

describe('line element', () => {
  it('draws solid, dashed and dotted lines with dashes proportional to the weight', () => {
    const pdf = render(
      design({
        elements: [
          { type: 'line', x: 50, y: 100, length: 300, weight: 2, color: '#FF0000', dash: 'dashed' },
          { type: 'line', x: 500, y: 50, length: 200, direction: 'vertical', weight: 3, dash: 'dotted' },
          { type: 'line', x: 50, y: 300, length: 100 },
        ],
      }),
    );
    const ops = content(pdf);
    // Dashed: 4 × 2 on, 2.5 × 2 off; from (50, 400 - 101) to (350, 299).
    assert.match(ops, /1 0 0 RG 2 w \[8 5\] 0 d 0 J 50 299 m 350 299 l S/);
    // Dotted: round dots 3 wide every 6, inset by half a weight; x at its middle (501.5).
    assert.match(ops, /0 0 0 RG 3 w \[0 6\] 0 d 1 J 501\.5 348\.5 m 501\.5 151\.5 l S/);
    // Solid: no dash pattern.
    assert.match(ops, /0 0 0 RG 1 w 50 99\.5 m 150 99\.5 l S/);
  });

  it('is checked against the page: named as the list names it', async () => {
    const issues = await designIssues(
      design({
        elements: [
          { type: 'line', x: 500, y: 10, length: 150 },
          { type: 'line', x: 10, y: 300, length: 120, direction: 'vertical' },
        ],
      }),
    );
    assert.deepEqual(issues, [
      { path: ['elements', 0, 'x'], message: 'Line 1: reaches past the right edge by 50 pt' },
      { path: ['elements', 1, 'y'], message: 'Line 2: reaches past the bottom edge by 20 pt' },
    ]);
  });
});

describe('signatory element', () => {
  const signatories: Design['signatories'] = [
    {
      name: 'Dr. Ada Lee',
      title: 'Programme Director',
      organisation: 'Northfield Academy',
      signatureImage: signature,
    },
    { name: 'สมชาย ใจดี', title: 'ผู้อำนวยการ' },
  ];
  const block = { x: 100, y: 100, width: 200, height: 120 };

  it('draws the signature at its proportions above a line, the name, title and organisation inside the block', async () => {
    const d = design({
      signatories,
      elements: [{ type: 'signatory', index: 1, ...block, size: 12 }],
    });
    assert.deepEqual(await designIssues(d), []);
    const pdf = render(d);
    const words = pdfWords(pdf);
    const word = (text: string) => {
      const w = words.find((x) => x.text === text);
      assert.ok(w, `${text} in ${words.map((x) => x.text).join(' ')}`);
      return w;
    };
    for (const text of ['Ada', 'Lee', 'Director', 'Northfield', 'Academy']) {
      const w = word(text);
      assert.ok(w.xMin >= block.x && w.xMax <= block.x + block.width, `${text} across the block`);
      assert.ok(w.yMin >= block.y && w.yMax <= block.y + block.height + 0.5, `${text} down the block`);
    }
    // The name, then the title below it, then the organisation; centred in the block.
    assert.ok(word('Ada').yMax <= word('Director').yMin + 0.5);
    assert.ok(word('Director').yMax <= word('Northfield').yMin + 0.5);
    const mid = (word('Dr.').xMin + word('Lee').xMax) / 2;
    assert.ok(Math.abs(mid - (block.x + block.width / 2)) < 1, `name centred at ${mid}`);

    const ops = content(pdf);
    // The signature: drawn twice as wide as tall, standing above the line, within the block.
    const placed = /q ([\d.]+) 0 0 ([\d.]+) ([\d.]+) ([\d.]+) cm \/Im1 Do Q/.exec(ops);
    assert.ok(placed, 'the signature image is drawn');
    const [w, h, x, yBottom] = placed.slice(1).map(Number) as [number, number, number, number];
    assert.ok(Math.abs(w / h - 2) < 0.01, `proportions ${w} × ${h}`);
    assert.ok(x >= block.x && x + w <= block.x + block.width);
    const top = 400 - (yBottom + h);
    assert.ok(top >= block.y - 0.01, `image top ${top}`);
    assert.ok(400 - yBottom <= word('Ada').yMin, 'the image stands above the name');
    // The line between them: the block's width.
    assert.match(ops, / w 100 [\d.]+ m 300 [\d.]+ l S/);
    const list = withPdfFile(pdf, (file) => execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }));
    assert.match(list.trim().split('\n')[2] ?? '', /^\s*1\s+0\s+image\s+40\s+20\s/);
  });

  it('draws a name in any script through the fallback fonts, aligned per align', () => {
    const pdf = render(
      design({ signatories, elements: [{ type: 'signatory', index: 2, ...block, align: 'left' }] }),
    );
    assert.match(pdfText(pdf), /สมชาย/);
    assert.match(pdfText(pdf), /ผู้อำนวยการ/);
    const first = pdfWords(pdf).find((w) => w.text.startsWith('สมชาย'));
    assert.ok(first && Math.abs(first.xMin - block.x) < 1, `left-aligned at ${first?.xMin}`);
  });

  it('is checked: a signatory that does not exist, a block too short, a placeholder of a missing signatory', async () => {
    const issues = await designIssues(
      design({
        signatories: signatories.slice(0, 1),
        pages: 1,
        elements: [
          { type: 'signatory', index: 2, ...block },
          { type: 'signatory', index: 1, x: 100, y: 300, width: 200, height: 20 },
          {
            type: 'text',
            text: 'Signed by {{signatory.1.name}} and {{signatory.3.title}}',
            x: 10,
            y: 10,
            width: 300,
          },
          { type: 'line', page: 2, x: 10, y: 50, length: 10 },
        ],
        title: '{{data.course}} with {{signatory.1.name}}',
      }),
    );
    assert.deepEqual(issues, [
      {
        path: ['title'],
        message:
          '{{signatory.1.name}} is printed on the PDF only: the title goes into the credential, which names no signatories',
      },
      {
        path: ['elements', 0, 'index'],
        message: 'Signatory 1: shows signatory 2, but the template has 1 signatory',
      },
      {
        path: ['elements', 1, 'height'],
        message:
          'Signatory 2: is 20 pt tall, too short for its line, name, title and organisation: make it at least 43 pt',
      },
      {
        path: ['elements', 2, 'text'],
        message: 'Text 3: {{signatory.3.title}} names signatory 3, but the template has 1 signatory',
      },
      {
        path: ['elements', 3, 'page'],
        message: 'Line 4: is on page 2, but the design has one page (set pages to 2)',
      },
    ]);
  });
});

describe('placeholders of signatories and empty values', () => {
  it('prints {{signatory.N.name}}, .title and .organisation from the template', () => {
    const pdf = render(
      design({
        signatories: [
          { name: 'Dr. Ada Lee', title: 'Programme Director', organisation: 'Northfield Academy' },
        ],
        elements: [
          {
            type: 'text',
            text: '{{signatory.1.name}}, {{signatory.1.title}}, {{signatory.1.organisation}}',
            x: 10,
            y: 10,
            width: 500,
          },
          {
            type: 'text',
            text: 'For {{recipient.name}}, signed {{ signatory.1.name }}',
            x: 10,
            y: 40,
            width: 500,
          },
        ],
      }),
    );
    const text = pdfText(pdf);
    assert.match(text, /Dr\. Ada Lee, Programme Director, Northfield Academy/);
    assert.match(text, /For Ada Lovelace, signed Dr\. Ada Lee/);
  });

  it('leaves out a text whose placeholders are all empty: no "Valid until " without an expiry', () => {
    const d = design({
      signatories: [{ name: 'Dr. Ada Lee' }],
      elements: [
        { type: 'text', text: 'Valid until {{certificate.expiresAt}}', x: 10, y: 10, width: 300 },
        { type: 'text', text: 'Title: {{signatory.1.title}}', x: 10, y: 40, width: 300 },
        { type: 'text', text: 'Course {{data.course}}', x: 10, y: 70, width: 300 },
      ],
    });
    const without = pdfText(render(d));
    assert.doesNotMatch(without, /Valid until/);
    assert.doesNotMatch(without, /Title:/);
    assert.match(without, /Course Analytical Engines 101/);
    assert.match(pdfText(render(d, { expiresAt: '2028-03-31T23:59:59.000Z' })), /Valid until 31 March 2028/);
  });
});
