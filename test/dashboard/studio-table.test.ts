import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Design } from '../../src/pdf/design.schema.js';
import { designIssues } from '../../src/pdf/design-issues.js';
import { withoutPage2 } from '../../src/browser/studio/pages.js';
import { newTable } from '../../src/browser/studio/table.js';

// The studio's new table and page 2 removal (src/browser/studio/table.ts, pages.ts) in Node: a
// table added on any page size passes the service's own checks; removing page 2 takes its elements.

function design(page: { width: number; height: number }): Design {
  return {
    name: 'Statement',
    pages: 2,
    page,
    fields: [{ key: 'units', label: 'Units', required: false, type: 'list' }],
    elements: [{ type: 'text', text: '{{recipient.name}}', x: 40, y: 40, width: 300, size: 18 }],
  };
}

describe('studio: the new table and removing page 2', () => {
  for (const page of [
    { width: 842, height: 595 },
    { width: 595, height: 842 },
    { width: 792, height: 612 },
    { width: 612, height: 792 },
  ]) {
    it(`a new table on ${page.width} x ${page.height} fits the page and passes the design checks`, async () => {
      const d = design(page);
      const table = newTable(d, 'units');
      d.elements.push(table);
      assert.deepEqual(await designIssues(d), []);
      assert.equal(table.page, 2);
      assert.ok(table.columns.reduce((s, c) => s + c.width, 0) <= table.width);
      assert.ok(table.x + table.width <= page.width && table.y + table.height <= page.height);
      assert.deepEqual(
        table.columns.map((c) => c.key),
        ['name', 'hours', 'grade'],
      );
    });
  }

  it('removing page 2 takes `pages` and the elements on page 2 away, and keeps the others', () => {
    const d = design({ width: 842, height: 595 });
    d.elements.push(newTable(d, 'units'), { type: 'qr', page: 2, x: 10, y: 10, size: 72 });
    d.elements.push({ type: 'qr', page: 1, x: 10, y: 10, size: 72 });
    withoutPage2(d);
    assert.equal(d.pages, undefined);
    assert.deepEqual(
      d.elements.map((e) => e.type),
      ['text', 'qr'],
    );
  });
});
