import { createHash } from 'node:crypto';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { browserAsset } from '../../src/platform/http/browser-assets.js';
import { VERIFY_SCRIPT_PATH } from '../../src/modules/verify/verify-page.layout.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

// The bundled browser code (scripts/build-browser.js, src/platform/http/browser-assets.ts): hashed
// names from the manifest, served for a year, unknown names refused; no manifest, no start.

describe('browser assets', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t?.close();
  });

  it('the manifest names each bundle by its content hash, and the bundle is that content', () => {
    const dir = path.resolve(import.meta.dirname, '../../browser');
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Record<
      string,
      string
    >;
    assert.deepEqual(Object.keys(manifest).sort(), [
      'dashboard.css',
      'dashboard.js',
      'studio.js',
      'verify.js',
    ]);
    for (const [name, file] of Object.entries(manifest)) {
      const [base, ext] = name.split('.');
      assert.match(file, new RegExp(`^${base}-[0-9A-F]{8,}\\.${ext}$`));
      assert.deepEqual(readFileSync(path.join(dir, file)), browserAsset(name as 'studio.js').body);
    }
    // Typed code, no server code: the studio's bundle holds no TypeBox schema.
    assert.doesNotMatch(browserAsset('studio.js').body.toString(), /typebox|\[Kind\]/i);
  });

  it("serves the dashboard's stylesheet under the hash of its whole text, for a year", async () => {
    const page = await t.app.inject({ method: 'GET', url: '/dashboard/' });
    const href = /<link rel="stylesheet" href="([^"]+)"/.exec(page.body)?.[1] ?? '';
    assert.match(href, /^\/dashboard\/assets\/dashboard-[0-9A-F]{10}\.css$/);
    const res = await t.app.inject({ method: 'GET', url: href });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/css/);
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    const hash = createHash('sha256').update(res.body).digest('hex').slice(0, 10).toUpperCase();
    assert.equal(href, `/dashboard/assets/dashboard-${hash}.css`);
    // The generated parts (the name fonts) and the file's rules are both in it.
    assert.match(res.body, /@font-face/);
    assert.ok(res.body.includes(browserAsset('dashboard.css').body.toString('utf8')));
    assert.equal(
      (await t.app.inject({ method: 'GET', url: '/dashboard/assets/dashboard.css' })).statusCode,
      404,
    );
  });

  it('serves the scripts under their hashed names for a year, and refuses other names', async () => {
    for (const [url, name] of [
      [`/dashboard/assets/${browserAsset('dashboard.js').file}`, 'dashboard.js'],
      [`/dashboard/assets/${browserAsset('studio.js').file}`, 'studio.js'],
      [`/verify/${VERIFY_SCRIPT_PATH}`, 'verify.js'],
    ] as const) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, url);
      assert.match(String(res.headers['content-type']), /^text\/javascript/);
      assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.deepEqual(res.rawPayload, browserAsset(name).body);
    }
    for (const url of [
      '/dashboard/assets/studio-00000000.js',
      `/dashboard/assets/${browserAsset('verify.js').file}`,
      `/verify/assets/${browserAsset('studio.js').file}`,
      '/verify/assets/..%2Fmanifest.json',
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 404, url);
    }
  });

  it('without a built manifest the server does not start: a clear message says to build', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-assets-'));
    try {
      const copy = path.join(dir, 'src/platform/http/browser-assets.js');
      mkdirSync(path.dirname(copy), { recursive: true });
      copyFileSync(path.resolve(import.meta.dirname, '../../src/platform/http/browser-assets.js'), copy);
      await assert.rejects(import(pathToFileURL(copy).href), /browser files are not built.*npm run build/s);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
