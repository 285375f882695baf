import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { parseDesign } from '../../src/modules/templates/template-design.js';
import { createFileChecker } from '../../src/pdf/file-checker.js';
import { ValidationError } from '../../src/platform/errors.js';
import { loadDesign } from '../pdf/pdf-helpers.js';

// Issue 27: design validation never throws anything but a ValidationError (a 422 at a path),
// whatever the input: null, wrong types, prototype keys, NaN, huge numbers, deep nesting, and
// starting designs with any of their values replaced. Bounded: a fixed number of runs.

const checker = createFileChecker({ threads: 1 });
after(() => checker.close());
const check = (design: Parameters<typeof checker.design>[0]) => checker.design(design);

const starting = ['course-completion', 'event-attendance', 'diploma-portrait', 'minimal-modern'].map(
  loadDesign,
);

const nasty = fc.oneof(
  fc.constantFrom(
    null,
    undefined,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    -0,
    1e308,
    -1e308,
    2 ** 53 + 1,
    '',
    '__proto__',
    'constructor',
    'data:image/png;base64,',
    'data:image/png;base64,iVBORw0KGgo=',
    'data:font/ttf;base64,AAEAAAA=',
    '{{recipient.name}}',
    '{{',
    '\u202e',
    [],
    {},
  ),
  fc.jsonValue({ maxDepth: 4 }),
  fc.object({
    key: fc.constantFrom('__proto__', 'constructor', 'toString', 'type', 'x', 'src'),
    maxDepth: 2,
  }),
);

// A value nested `depth` arrays deep.
const deep = (depth: number): unknown => {
  let value: unknown = 'x';
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};

// Sets `value` at a random place of a copy of `design` (a key of the root, of an element, of a field).
function mutate(design: unknown, where: number, key: string, value: unknown): unknown {
  const copy = structuredClone(design) as Record<string, unknown>;
  const elements = copy.elements as Record<string, unknown>[];
  const fields = copy.fields as Record<string, unknown>[];
  const targets: Record<string, unknown>[] = [
    copy,
    ...elements,
    ...fields,
    copy.page as Record<string, unknown>,
  ];
  const target = targets[where % targets.length]!;
  // Own property, even for __proto__ (as JSON.parse makes it).
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

async function judged(input: unknown): Promise<void> {
  try {
    await parseDesign(input, check);
  } catch (err) {
    if (!(err instanceof ValidationError)) {
      assert.fail(
        `not a ValidationError: ${(err as Error).stack} for ${String(JSON.stringify(input))?.slice(0, 300)}`,
      );
    }
    for (const issue of err.issues) assert.ok(Array.isArray(issue.path) && typeof issue.message === 'string');
  }
}

describe('design validation never throws anything but a ValidationError', () => {
  it('any JSON value, and the obvious hostile ones', async () => {
    for (const input of [null, undefined, 0, 'design', [], [null], deep(10_000), { elements: deep(5_000) }]) {
      await judged(input);
    }
    await fc.assert(fc.asyncProperty(fc.oneof(nasty, fc.jsonValue()), judged), { numRuns: 300 });
  });

  it('starting designs with one value anywhere replaced by anything', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 3 }),
        fc.nat(),
        fc.constantFrom(
          'type',
          'x',
          'y',
          'width',
          'height',
          'size',
          'text',
          'src',
          'font',
          '__proto__',
          'constructor',
          'name',
          'key',
          'label',
          'elements',
          'fields',
          'fonts',
          'page',
        ),
        nasty,
        async (which, where, key, value) => judged(mutate(starting[which], where, key, value)),
      ),
      { numRuns: 400 },
    );
  });
});
