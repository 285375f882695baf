import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';

// The Node versions package.json promises (`engines`) are the ones CI runs the suite on, and every
// package npm installs supports the Node running it: `npm ci` prints no EBADENGINE warning. CI runs
// this suite on Node 20 and on Node 24 (.ci/run).

const semver = createRequire(import.meta.url)('semver') as {
  satisfies(version: string, range: string): boolean;
};
const root = path.resolve(import.meta.dirname, '../../..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
};
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string }; optional?: boolean }>;
};

describe('Node versions', () => {
  it(`package.json engines (${pkg.engines.node}) admits this Node (${process.version}) and the other one CI runs`, () => {
    assert.ok(semver.satisfies(process.version, pkg.engines.node), process.version);
    for (const v of ['20.19.0', '24.0.0']) assert.ok(semver.satisfies(v, pkg.engines.node), v);
    for (const v of ['18.20.0', '22.12.0'])
      assert.ok(!semver.satisfies(v, pkg.engines.node), `${v}: untested`);
  });

  it('every package in package-lock.json supports this Node (no EBADENGINE)', () => {
    const unsupported = Object.entries(lock.packages)
      .filter(([where]) => where.startsWith('node_modules/'))
      .filter(([, p]) => p.engines?.node && !semver.satisfies(process.version, p.engines.node))
      .map(([where, p]) => `${where}@${p.version} wants node ${p.engines!.node}`);
    assert.deepEqual(unsupported, []);
  });
});
