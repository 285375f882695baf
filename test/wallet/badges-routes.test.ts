import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { PNG } from 'pngjs';
import { mintClaimToken } from '../../src/modules/shared/claim-tokens.js';
import { OPENBADGES_NAMESPACE } from '../../src/modules/wallet/badge-baking.js';
import { badgeFor, badgeFormat } from '../../src/modules/wallet/badges.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { png } from '../helpers/hostile-files.js';
import { signedInMember, type FormClient } from '../dashboard/form-client.js';
import { bakedCredentials } from './badge-support.js';

// Baked badges end to end (issue 31): a template's badge image uploaded through the studio's route
// (multipart, as the studio's script sends it), a certificate really issued, a real claim token;
// GET /claim/{token}/badge.png and .svg read back (PNG chunks; the SVG by Chromium's XML parser)
// give the frozen credential byte for byte. Hostile uploads are refused and change nothing.

const SVG_BADGE =
  '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">' +
  '<circle cx="32" cy="32" r="30" fill="#2A9D8F"/><text x="32" y="36">OK</text></svg>';

describe('baked badges over HTTP', () => {
  let t: TestApp;
  let tenant: Tenant;
  let client: FormClient;
  let browser: Browser | undefined;
  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
    tenant = await createTenant(t.deps);
    client = await signedInMember(t, tenant.accountId);
    await client.get(`/dashboard/templates/${tenant.templateId}/edit`);
    if (!browserSkipReason()) browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await t.close();
  });

  const uploadBadge = (content: Buffer | string, name = 'badge.bin', templateId = tenant.templateId) =>
    client.upload(`/dashboard/templates/${templateId}/badge`, {}, { name, content });
  const get = (url: string) => t.app.inject({ method: 'GET', url });

  async function issued() {
    const c = await issueCertificate(t.app, tenant);
    const frozen = await t.app.inject({
      method: 'GET',
      url: `/api/v1/certificates/${c.id}/credential`,
      headers: tenant.auth,
    });
    assert.equal(frozen.statusCode, 200);
    const token = await mintClaimToken(t.deps.db, c.id, new Date());
    return { ...c, credential: frozen.rawPayload, token };
  }

  // The credential in a baked SVG, as an XML parser reads it (Chromium's, strict: a parse error fails).
  async function svgCredential(svg: string): Promise<string> {
    if (!browser) {
      const m = /<openbadges:credential>([\s\S]*)<\/openbadges:credential>/.exec(svg);
      return m![1]!.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1');
    }
    const page = await browser.newPage();
    try {
      return await page.evaluate(
        ({ text, ns }) => {
          const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
          if (doc.getElementsByTagName('parsererror').length) throw new Error('not well-formed XML');
          const first = doc.documentElement.firstElementChild!;
          if (first.namespaceURI !== ns || first.localName !== 'credential')
            throw new Error('not the first child');
          return first.textContent ?? '';
        },
        { text: svg, ns: OPENBADGES_NAMESPACE },
      );
    } finally {
      await page.close();
    }
  }

  it('a PNG badge: .png carries the frozen credential in its iTXt chunk, .svg wraps it, byte for byte', async () => {
    const up = await uploadBadge(png({ width: 8, height: 8, colorType: 6 }), 'badge.png');
    assert.equal(up.statusCode, 200, up.body);
    assert.deepEqual(up.json(), { mediaType: 'image/png' });
    const c = await issued();

    const res = await get(`/claim/${c.token}/badge.png`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'image/png');
    assert.equal(res.headers['content-disposition'], `attachment; filename="badge-${c.uniqueCode}.png"`);
    const found = bakedCredentials(res.rawPayload);
    assert.equal(found.length, 1);
    // Still an image to a PNG decoder we did not write.
    const decoded = PNG.sync.read(res.rawPayload);
    assert.deepEqual([decoded.width, decoded.height], [8, 8]);
    assert.ok(found[0]!.equals(c.credential), 'the frozen credential, byte for byte');

    const svg = await get(`/claim/${c.token}/badge.svg`);
    assert.equal(svg.statusCode, 200);
    assert.match(String(svg.headers['content-type']), /^image\/svg\+xml/);
    assert.match(svg.body, /<image width="8" height="8" href="data:image\/png;base64,/);
    assert.ok(Buffer.from(await svgCredential(svg.body), 'utf8').equals(c.credential));

    // The same for "My certificates" and the claim page: badgeFor and badgeFormat.
    assert.equal(await badgeFormat(t.deps.db, c.id), 'png');
    assert.ok((await badgeFor(t.deps.db, c.id, 'png')).body.equals(res.rawPayload));
  });

  it('an SVG badge is stored made safe; .svg bakes it; .png is a 404 naming svg', async () => {
    const up = await uploadBadge(
      SVG_BADGE.replace('<text', '<!-- hi --><metadata>x</metadata><text'),
      'b.svg',
    );
    assert.equal(up.statusCode, 200, up.body);
    assert.deepEqual(up.json(), { mediaType: 'image/svg+xml' });
    const c = await issued();
    const res = await get(`/claim/${c.token}/badge.svg`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-disposition'], `attachment; filename="badge-${c.uniqueCode}.svg"`);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(String(res.headers['content-security-policy']), /default-src 'none'/);
    assert.ok(!res.body.includes('metadata') && !res.body.includes('<?xml'));
    assert.match(res.body, /<circle cx="32" cy="32" r="30" fill="#2A9D8F"\/>/);
    assert.ok(Buffer.from(await svgCredential(res.body), 'utf8').equals(c.credential));

    const asPng = await get(`/claim/${c.token}/badge.png`);
    assert.equal(asPng.statusCode, 404);
    assert.equal(asPng.json().error.code, 'not_found');
    assert.match(asPng.json().error.message, /badge\.svg/);
    assert.equal(await badgeFormat(t.deps.db, c.id), 'svg');
  });

  it('hostile uploads are refused with a 422 naming why, and the badge stays as it was', async () => {
    const before = await t.deps.services.badgeImages.read(tenant.accountId, tenant.templateId);
    const hostile: [string | Buffer, RegExp][] = [
      [SVG_BADGE.replace('<circle', '<script>alert(document.cookie)</script><circle'), /script/],
      [SVG_BADGE.replace('viewBox', 'onload="alert(1)" viewBox'), /event attribute \(onload/],
      [SVG_BADGE.replace('<circle', '<image href="https://tracker.test/p.png"/><circle'), /outside the file/],
      [SVG_BADGE.replace('<circle', '<foreignObject><p>x</p></foreignObject><circle'), /foreignObject/],
      [
        '<!DOCTYPE svg [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>' +
          '<svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>',
        /DOCTYPE/,
      ],
      [SVG_BADGE.replace('<circle', `<desc>${'x'.repeat(600 * 1024)}</desc><circle`), /at most 512 KB/],
      // A PNG bomb: 100 million pixels declared in a few bytes, refused by its header.
      [png({ width: 10_000, height: 10_000, colorType: 0, bitDepth: 1 }), /megapixels/],
      [Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0]), /PNG or SVG/],
      [Buffer.from('GIF89a....'), /not a PNG or SVG/],
      // An SVG embedding a PNG bomb: the embedded image is checked too.
      [
        SVG_BADGE.replace(
          '<circle',
          `<image href="data:image/png;base64,${png({ width: 1, height: 100_000_000, colorType: 0, bitDepth: 1 }).toString('base64')}"/><circle`,
        ),
        /embeds an image that .*pixels/,
      ],
    ];
    for (const [content, why] of hostile) {
      const res = await uploadBadge(content);
      assert.equal(res.statusCode, 422, `${String(content).slice(0, 60)}: ${res.body.slice(0, 300)}`);
      assert.match(res.body, why);
    }
    const now = await t.deps.services.badgeImages.read(tenant.accountId, tenant.templateId);
    assert.ok(now && before && now.body.equals(before.body) && now.mediaType === before.mediaType);
  });

  it('without a badge image: the default seal with the template name; Remove badge image gets back to it', async () => {
    await client.get(`/dashboard/templates/${tenant.templateId}/edit`);
    const removed = await client.post(`/dashboard/templates/${tenant.templateId}/badge/remove`, {});
    assert.equal(removed.statusCode, 200, removed.body);
    assert.equal(await t.deps.services.badgeImages.read(tenant.accountId, tenant.templateId), undefined);
    const c = await issued();
    const name = (await t.deps.services.templates.get(tenant.accountId, tenant.templateId)).name;
    const res = await get(`/claim/${c.token}/badge.svg`);
    assert.equal(res.statusCode, 200);
    assert.ok(res.body.includes(`<title>${name}</title>`), res.body.slice(0, 400));
    assert.ok(Buffer.from(await svgCredential(res.body), 'utf8').equals(c.credential));
    assert.equal((await get(`/claim/${c.token}/badge.png`)).statusCode, 404);
  });

  it('tokens: unknown 404, expired and revoked 410, with the claim-token messages', async () => {
    assert.equal((await get(`/claim/${'A'.repeat(43)}/badge.svg`)).statusCode, 404);
    assert.equal((await get('/claim/not-a-token/badge.png')).statusCode, 404);
    const c = await issueCertificate(t.app, tenant);
    const old = await mintClaimToken(t.deps.db, c.id, new Date(Date.now() - 31 * 86_400_000));
    const expired = await get(`/claim/${old}/badge.svg`);
    assert.equal(expired.statusCode, 410);
    assert.equal(expired.json().error.details.reason, 'expired');
    const token = await mintClaimToken(t.deps.db, c.id, new Date());
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${c.id}/revoke`,
      headers: tenant.auth,
      payload: { reason: 'Issued by mistake' },
    });
    assert.equal(revoke.statusCode, 200, revoke.body);
    const gone = await get(`/claim/${token}/badge.png`);
    assert.equal(gone.statusCode, 410);
    assert.equal(gone.json().error.details.reason, 'revoked');
  });

  it("the dashboard: another account's template is not found; the certificate page offers Download badge", async () => {
    const other = await createTenant(t.deps);
    const res = await uploadBadge(SVG_BADGE, 'b.svg', other.templateId);
    assert.equal(res.statusCode, 404);
    assert.equal(await t.deps.services.badgeImages.read(other.accountId, other.templateId), undefined);

    await uploadBadge(png({ width: 4, height: 4 }), 'badge.png');
    const c = await issued();
    const page = await client.get(`/dashboard/certificates/${c.id}`);
    assert.match(
      page.body,
      /href="\/dashboard\/certificates\/[0-9a-f-]{36}\/badge"\s+download\s*>Download badge</,
    );
    const download = await client.get(`/dashboard/certificates/${c.id}/badge`);
    assert.equal(download.statusCode, 200);
    assert.equal(download.headers['content-type'], 'image/png');
    assert.ok(bakedCredentials(download.rawPayload)[0]!.equals(c.credential));
    // Another account's certificate is not found.
    const theirs = await issueCertificate(t.app, other);
    assert.equal((await client.get(`/dashboard/certificates/${theirs.id}/badge`)).statusCode, 404);
  });
});
