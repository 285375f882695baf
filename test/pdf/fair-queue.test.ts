import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskQueue } from 'piscina';
import { FairTaskQueue, laneOption } from '../../src/pdf/fair-queue.js';
import { createPdfRenderer, type RenderTemplate } from '../../src/pdf/pdf-renderer.js';
import { loadDesign, values } from './pdf-helpers.js';

// The PDF threads' queue takes render calls in turn, so that a single issue is not held behind a
// whole batch (or an import's chunk) queued before it.

type Task = Parameters<TaskQueue['push']>[0];
const task = (name: string, lane: object) => ({ name, ...laneOption(lane) }) as unknown as Task;
const names = (q: FairTaskQueue) => {
  const out: string[] = [];
  for (let t = q.shift(); t; t = q.shift()) out.push((t as unknown as { name: string }).name);
  return out;
};

describe('fair PDF task queue', () => {
  it('serves lanes in turn, each lane in order, and counts what it holds', () => {
    const q = new FairTaskQueue();
    const batch = {};
    const single = {};
    const other = {};
    for (let i = 1; i <= 4; i++) q.push(task(`b${i}`, batch));
    q.push(task('s1', single));
    q.push(task('o1', other));
    q.push(task('o2', other));
    assert.equal(q.size, 7);
    assert.deepEqual(names(q), ['b1', 's1', 'o1', 'b2', 'o2', 'b3', 'b4']);
    assert.equal(q.size, 0);
    assert.equal(q.shift(), null);
  });

  it('gives a task taken and put back (no thread was free) the next turn', () => {
    const q = new FairTaskQueue();
    const batch = {};
    const single = {};
    q.push(task('b1', batch));
    q.push(task('b2', batch));
    q.push(task('s1', single));
    assert.equal((q.shift() as unknown as { name: string }).name, 'b1');
    const s1 = q.shift()!;
    q.unshift(s1);
    assert.equal(q.size, 2);
    assert.deepEqual(names(q), ['s1', 'b2']);
  });

  it('removes a task (an aborted one) from its lane, and its lane once empty', () => {
    const q = new FairTaskQueue();
    const a = {};
    const b = {};
    const a1 = task('a1', a);
    const b1 = task('b1', b);
    q.push(a1);
    q.push(task('a2', a));
    q.push(b1);
    q.remove(b1);
    q.remove(a1);
    q.remove(a1); // already gone: nothing changes
    assert.equal(q.size, 1);
    assert.deepEqual(names(q), ['a2']);
  });

  it('lets one render that arrives behind a batch of 400 finish before it, on a single thread', async () => {
    // One thread, so that the order is certain: first in, first out, the single would wait for the
    // batch's 32 tasks of 12-13 documents; in turn, it runs second.
    const renderer = createPdfRenderer({ threads: 1 });
    try {
      const course: RenderTemplate = { id: 'course', version: '1', design: loadDesign('course-completion') };
      await renderer.render(course, [values()]); // the thread warm
      const order: string[] = [];
      const batch = renderer
        .render(
          course,
          Array.from({ length: 400 }, (_, i) => values({ recipientName: `Batch ${i}` })),
        )
        .then(() => order.push('batch'));
      const single = renderer
        .render(course, [values({ recipientName: 'Single' })])
        .then(() => order.push('single'));
      await Promise.all([batch, single]);
      assert.deepEqual(order, ['single', 'batch']);
    } finally {
      await renderer.close();
    }
  });
});
