import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DesignElement } from '../../src/pdf/design.schema.js';
import { elementKind, issueElement, issueText } from '../../src/browser/studio/errors.js';

// How the studio names a refused design's issues (issue 30, item 6), alone: numbered as the Elements
// list numbers (from 1) from the issue's 0-based path, whatever the service's own wording.

const text = { type: 'text', text: '{{recipient.name}}', x: 320, y: 212, width: 600 } as DesignElement;
const qr = { type: 'qr', x: 10, y: 10, size: 96 } as DesignElement;

describe('studio: the issues of a refused preview', () => {
  it('points at the element of a path ["elements", i, ...] only', () => {
    assert.equal(issueElement({ path: ['elements', 5, 'x'], message: 'm' }), 5);
    assert.equal(issueElement({ path: ['elements', 0], message: 'm' }), 0);
    assert.equal(issueElement({ path: ['fields', 1, 'key'], message: 'm' }), undefined);
    assert.equal(issueElement({ path: [], message: 'm' }), undefined);
  });

  it('names the element by kind and list number, once, whatever the service says first', () => {
    const bare = 'extends past the right edge of the page (920 > 842)';
    assert.equal(issueText(text, 5, bare), `Text 6: ${bare}`);
    assert.equal(
      issueText(text, 5, 'Text 6: reaches past the right edge by 78 pt'),
      'Text 6: reaches past the right edge by 78 pt',
    );
    assert.equal(issueText(text, 5, `elements.5.x ${bare}`), `Text 6: ${bare}`);
    assert.equal(issueText(qr, 0, 'QR code 1: is too small'), 'QR code 1: is too small');
    assert.equal(
      elementKind({ type: 'rect', x: 0, y: 0, width: 1, height: 1 } as DesignElement),
      'Rectangle',
    );
  });
});
