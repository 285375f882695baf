import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createPreviewImages, PNG_SIGNATURE } from '../../src/modules/verify/preview-image.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// Issue 33 part 6: a shared verification link previews with an image: og:image and twitter:image
// name the certificate's first page as a PNG, made once (pdftoppm, off the event loop) and cached.

let t: TestApp;
let tenant: Tenant;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  tenant = await createTenant(t.deps, { name: 'Northwind Academy' });
});
after(() => t.close());

const metaOf = (html: string, attr: 'property' | 'name', key: string) =>
  new RegExp(`<meta ${attr}="${key.replace(/[.:]/g, '\\$&')}" content="([^"]*)">`).exec(html)?.[1];

function pngSize(png: Buffer): { width: number; height: number } {
  // IHDR is the first chunk: length (4), "IHDR" (4), width (4), height (4).
  assert.equal(png.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('the link preview image of a verification page', () => {
  it('og:image answers 200 with a PNG of the first page, 1200 px on its longer side, the same bytes from the cache', async () => {
    const cert = await issueCertificate(t.app, tenant);
    const page = await t.app.inject({ url: `/verify/${cert.uniqueCode}?lang=fr` });
    assert.equal(page.statusCode, 200);
    const image = metaOf(page.body, 'property', 'og:image');
    assert.equal(image, `${cert.verificationUrl}/preview.png`);
    assert.equal(metaOf(page.body, 'name', 'twitter:image'), image);
    assert.equal(metaOf(page.body, 'name', 'twitter:card'), 'summary_large_image');
    assert.equal(metaOf(page.body, 'property', 'og:image:type'), 'image/png');

    const path = new URL(image!).pathname;
    const started = Date.now();
    const first = await t.app.inject({ url: path });
    const firstMs = Date.now() - started;
    assert.equal(first.statusCode, 200, first.body);
    assert.equal(first.headers['content-type'], 'image/png');
    assert.equal(first.headers['x-content-type-options'], 'nosniff');
    assert.ok(first.headers['x-ratelimit-limit'], 'under the per-IP verify limit, like the page');
    const png = first.rawPayload;
    assert.ok(png.subarray(0, 8).equals(PNG_SIGNATURE), 'PNG signature');
    assert.ok(png.length > 5_000, `a real picture, not a stub (${png.length} bytes)`);
    assert.ok(png.length < 8 * 1024 * 1024);
    const { width, height } = pngSize(png);
    assert.equal(Math.max(width, height), 1200, `${width}x${height}`);
    assert.ok(Math.min(width, height) > 500, `${width}x${height}`);

    const again = await t.app.inject({ url: path });
    assert.equal(again.statusCode, 200);
    assert.ok(again.rawPayload.equals(png), 'the same image, from the cache');
    assert.equal(again.headers.etag, first.headers.etag);
    console.log(`# first ${firstMs} ms, ${png.length} bytes, ${width}x${height}`);

    const head = await t.app.inject({ method: 'HEAD', url: path });
    assert.equal(head.statusCode, 200);
  });

  it('none for a revoked certificate or an unknown code (the 404 page), and no og:image on its page', async () => {
    const cert = await issueCertificate(t.app, tenant, {
      name: 'Grace Hopper',
      email: 'grace@example.com',
      data: { course: 'Compilers' },
    });
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${cert.id}/revoke`,
      headers: tenant.auth,
      payload: { reason: 'Issued by mistake' },
    });
    assert.equal(revoke.statusCode, 200, revoke.body);
    const page = await t.app.inject({ url: `/verify/${cert.uniqueCode}` });
    assert.equal(metaOf(page.body, 'property', 'og:image'), undefined);
    assert.equal(metaOf(page.body, 'name', 'twitter:card'), 'summary');
    const image = await t.app.inject({ url: `/verify/${cert.uniqueCode}/preview.png` });
    assert.equal(image.statusCode, 404);
    assert.match(String(image.headers['content-type']), /text\/html/);
    const unknown = await t.app.inject({ url: '/verify/7K3M9Q2XRB4D8F1Z/preview.png' });
    assert.equal(unknown.statusCode, 404);
  });

  it('renders each PDF once: concurrent requests share one render; a failing renderer is an error, not a hang', async () => {
    const cert = await issueCertificate(t.app, tenant, {
      name: 'Alan Turing',
      email: 'alan@example.com',
      data: { course: 'Computable Numbers' },
    });
    const pdf = await t.app.inject({ url: `/verify/${cert.uniqueCode}/pdf` });
    assert.equal(pdf.statusCode, 200);
    const shared = createPreviewImages();
    const all = await Promise.all(
      Array.from({ length: 6 }, () => shared.pngOf('z'.repeat(64), pdf.rawPayload)),
    );
    assert.ok(
      all.every((png) => png === all[0]),
      'one render, one buffer',
    );
    assert.equal(shared.cached('z'.repeat(64)), all[0]);

    const images = createPreviewImages({ command: '/bin/false' });
    await assert.rejects(images.pngOf('x'.repeat(64), Buffer.from('%PDF-1.7')), /pdftoppm failed/);
    const missing = createPreviewImages({ command: '/nonexistent/pdftoppm' });
    await assert.rejects(missing.pngOf('y'.repeat(64), Buffer.from('%PDF-1.7')), /could not run/);
  });
});
