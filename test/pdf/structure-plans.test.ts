import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Design } from '../../src/pdf/design.schema.js';
import { renderDocument } from '../../src/pdf/document-writer.js';
import { compileTemplate, type CompiledTemplate } from '../../src/pdf/template-compiler.js';
import type { RenderValues } from '../../src/pdf/render-types.js';
import { worldNames } from '../helpers/world-names.js';
import { loadDesign, values } from './pdf-helpers.js';

// A template keeps the structure of the documents it wrote, by shape (structure-tree.ts), and later
// documents of the same shape write their structure from it, their own attributes in it. Each
// document must come out byte for byte as a template that never wrote another would write it, and
// a document of another shape (an element hidden, a name among other text, a sealable document)
// must not take a plan made for a different one.

const design = loadDesign('course-completion');
const course = design.elements.find((e) => e.type === 'text' && e.text === '{{data.course}}');
const note: Design = {
  ...design,
  fields: [...design.fields, { key: 'note', label: 'Note', required: false }],
  // A text of the note alone: not drawn when the note is empty, so the structure has one element less.
  elements: [...design.elements, { ...course!, text: '{{data.note}}', y: 350, size: 12 } as never],
};

function fresh(d: Design, v: RenderValues): Buffer {
  return rendered(compileTemplate(d), v);
}

function rendered(template: CompiledTemplate, v: RenderValues): Buffer {
  const result = renderDocument(template, v);
  if (!result.ok) throw new Error(JSON.stringify(result));
  return result.pdf;
}

describe('structure plans', () => {
  it('writes each document as a fresh template would, names and links of its own', () => {
    const template = compileTemplate(design);
    worldNames.forEach(({ name }, i) => {
      const code = `7K3M9Q2XRB4D8F${String(i).padStart(2, '0')}`;
      const v = values({
        recipientName: name,
        uniqueCode: code,
        verificationUrl: `https://certs.example.com/verify/${code}`,
        issuedAt: new Date(Date.UTC(2026, 10, 21, 9, 30, i)).toISOString(),
      });
      assert.ok(rendered(template, v).equals(fresh(design, v)), name);
    });
    assert.ok(template.structurePlans.size > 0, 'the template kept a plan');
  });

  it('does not take a plan made for another shape', () => {
    const template = compileTemplate(note);
    const shown = values({ data: { course: 'Analytical Engines 101', hours: 12, note: 'With honours' } });
    const hidden = values({ recipientName: 'Grace Hopper', data: { course: 'COBOL', hours: 3 } });
    const again = values({ recipientName: 'Alan Turing', data: { course: 'Logic', note: 'Cum laude' } });
    for (const v of [shown, hidden, again, hidden]) {
      assert.ok(rendered(template, v).equals(fresh(note, v)));
    }
  });

  it('keeps sealable documents apart from the others', () => {
    const template = compileTemplate(design);
    const v = values();
    rendered(template, v);
    const sealable = renderDocument(template, v, true);
    const alone = renderDocument(compileTemplate(design), v, true);
    assert.ok(sealable.ok && 'unsealed' in sealable && alone.ok && 'unsealed' in alone);
    assert.ok(sealable.unsealed.body.equals(alone.unsealed.body));
    assert.ok(rendered(template, v).equals(fresh(design, v)));
  });
});
