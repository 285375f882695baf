import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Design, TextElement } from '../../src/pdf/design.schema.js';
import { applyBox, boxOf, resizeRules, snapMove, studioResize } from '../../src/browser/studio/geometry.js';
import { BURST_IDLE, StudioState } from '../../src/browser/studio/state.js';

// The studio's state (src/browser/studio/state.ts) and its design geometry, in Node without a
// browser: undo steps, typing bursts, redo, snapping and resizing with guides.

function design(): Design {
  return {
    name: 'Test',
    page: { width: 842, height: 595 },
    fields: [],
    elements: [
      { type: 'text', text: 'Hello', x: 100, y: 100, width: 300, size: 20 },
      { type: 'rect', x: 500, y: 300, width: 200, height: 100 },
      { type: 'qr', x: 40, y: 400, size: 72 },
    ],
  } as Design;
}

// A clock the test moves by hand: bursts end after BURST_IDLE ms idle.
function stateWithClock() {
  let now = 0;
  const changes: boolean[] = [];
  const state = new StudioState(
    design(),
    (live) => changes.push(live),
    () => now,
  );
  return { state, changes, tick: (ms: number) => (now += ms) };
}

const text = (s: StudioState) => s.design.elements[0] as TextElement;

describe('studio state', () => {
  it('every commit is one undo step; undo and redo travel between them; a new change clears redo', () => {
    const { state, changes } = stateWithClock();
    state.commit(() => (text(state).x = 110));
    state.commit(() => (text(state).x = 120));
    assert.equal(state.undoStack.length, 2);
    assert.deepEqual(changes, [false, false]);
    state.undo();
    assert.equal(text(state).x, 110);
    state.undo();
    assert.equal(text(state).x, 100);
    state.undo(); // nothing left: no change
    assert.equal(text(state).x, 100);
    state.redo();
    assert.equal(text(state).x, 110);
    assert.equal(state.redoStack.length, 1);
    state.commit(() => (text(state).y = 50));
    assert.equal(state.redoStack.length, 0);
  });

  it('a change to the same value is no step', () => {
    const { state, changes } = stateWithClock();
    state.commit(() => (text(state).x = 100));
    assert.equal(state.undoStack.length, 0);
    assert.deepEqual(changes, []);
  });

  it('typing in one input is one undo step until blur or 2 s idle', () => {
    const { state, changes, tick } = stateWithClock();
    for (const t of ['Hello!', 'Hello!!', 'Hello!!!']) {
      state.typing('0:prop-text', () => state.commit(() => (text(state).text = t)));
      tick(500);
    }
    assert.equal(state.undoStack.length, 1, 'one burst, one step');
    assert.deepEqual(changes, [true, true, true], 'typed changes leave the panel as it is');
    // Another input starts its own step.
    state.typing('0:prop-x-pt-', () => state.commit(() => (text(state).x = 101)));
    assert.equal(state.undoStack.length, 2);
    // Idle for BURST_IDLE: the same input starts a new step.
    state.typing('0:prop-text', () => state.commit(() => (text(state).text = 'A')));
    tick(BURST_IDLE);
    state.typing('0:prop-text', () => state.commit(() => (text(state).text = 'AB')));
    assert.equal(state.undoStack.length, 4);
    // Blur ends the burst.
    state.endBurst();
    state.typing('0:prop-text', () => state.commit(() => (text(state).text = 'ABC')));
    assert.equal(state.undoStack.length, 5);
    state.undo();
    assert.equal(text(state).text, 'AB');
    state.undo();
    state.undo();
    assert.equal(text(state).text, 'Hello!!!');
    state.undo();
    state.undo();
    assert.equal(text(state).text, 'Hello', 'the whole first burst undone at once');
  });

  it('a change outside typing() never joins a burst', () => {
    const { state } = stateWithClock();
    state.typing('0:prop-text', () => state.commit(() => (text(state).text = 'X')));
    state.commit(() => (text(state).text = 'XY'));
    assert.equal(state.undoStack.length, 2);
  });

  it('the selection stays within the elements after a delete or an undo', () => {
    const { state } = stateWithClock();
    state.selected = 2;
    state.commit(() => state.design.elements.splice(2, 1));
    assert.equal(state.selected, 1);
    state.replace({ ...state.design, elements: [] });
    assert.equal(state.selected, -1);
    state.undo();
    assert.equal(state.design.elements.length, 2);
  });
});

describe('studio design geometry', () => {
  it('a moved box snaps to the page centre and to other elements edges within 2 pt', () => {
    const d = design();
    // The text (300 wide) near the horizontal centre: 842/2 - 150 = 271.
    assert.deepEqual(snapMove(d, 0, 272.5, 10, 300, 23.28), { x: 271, y: 10 });
    // Its left edge near the rectangle's left edge (500).
    assert.deepEqual(snapMove(d, 0, 501, 10, 300, 23.28), { x: 500, y: 10 });
    // Too far from any guide: where it was put, rounded, never off the page.
    assert.deepEqual(snapMove(d, 0, 123.456, -5, 300, 23.28), { x: 123.5, y: 0 });
  });

  it('resize with guides snaps the moved edge; without (the keyboard) it does not', () => {
    const d = design();
    const start = boxOf(d.elements[0]!);
    // The right edge (400) dragged to 499: snaps to the rectangle's left edge, 500.
    assert.deepEqual(studioResize(start, 'e', 99, 0, resizeRules(d, 0, true)).w, 400);
    assert.deepEqual(studioResize(start, 'e', 99, 0, resizeRules(d, 0, false)).w, 399);
  });

  it('keep-ratio on a corner keeps the proportions; a QR code stays square and at least 36 pt', () => {
    const d = design();
    const rect = boxOf(d.elements[1]!);
    const b = studioResize(rect, 'se', 100, 0, resizeRules(d, 1, false, true));
    assert.deepEqual(b, { x: 500, y: 300, w: 300, h: 150 });
    applyBox(d.elements[1]!, b);
    assert.deepEqual(d.elements[1], { type: 'rect', x: 500, y: 300, width: 300, height: 150 });
    const qr = studioResize(boxOf(d.elements[2]!), 'se', -100, -5, resizeRules(d, 2, false));
    assert.deepEqual(qr, { x: 40, y: 400, w: 36, h: 36 });
    applyBox(d.elements[2]!, qr);
    assert.deepEqual(d.elements[2], { type: 'qr', x: 40, y: 400, size: 36 });
  });
});
