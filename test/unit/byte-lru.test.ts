import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ByteLru } from '../../src/pdf/byte-lru.js';

describe('ByteLru (the render threads caches)', () => {
  it('drops the least recently used entries until the bytes held are within the bound', () => {
    const cache = new ByteLru<string>(10);
    cache.set('a', 'A', 4);
    cache.set('b', 'B', 4);
    assert.equal(cache.get('a'), 'A'); // a is now the newest
    cache.set('c', 'C', 4); // 12 > 10: b, the oldest, goes
    assert.equal(cache.get('b'), undefined);
    assert.equal(cache.get('a'), 'A');
    assert.equal(cache.get('c'), 'C');
    assert.deepEqual([cache.size, cache.bytes], [2, 8]);
  });

  it('keeps nothing larger than the bound, and counts a replaced entry once', () => {
    const cache = new ByteLru<string>(10);
    cache.set('big', 'X', 11);
    assert.deepEqual([cache.size, cache.bytes], [0, 0]);
    cache.set('a', 'A', 3);
    cache.set('a', 'A2', 5);
    assert.deepEqual([cache.size, cache.bytes, cache.get('a')], [1, 5, 'A2']);
    cache.limit = 0;
    cache.clear();
    cache.set('a', 'A', 1);
    assert.deepEqual([cache.size, cache.bytes], [0, 0]);
  });
});
