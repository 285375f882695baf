import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { mintClaimToken } from '../../src/modules/shared/claim-tokens.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// GET /claim/{token} (issue 31): the certificate's title, recipient and issuer, the QR code of the
// VCALM interaction URL (decoded back), "Add to your wallet", "Download badge", "Request a
// correction"; 404 for an unknown or malformed token, 410 with the reason once it is gone.

const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ??
  jsQRModule) as typeof jsQRModule.default;

describe('the claim page', () => {
  let t: TestApp;
  let tenant: Tenant;
  const open = (token: string, headers: Record<string, string> = {}) =>
    t.app.inject({ url: `/claim/${token}`, headers });

  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
    tenant = await createTenant(t.deps, { name: 'Claim <Page> Academy' });
  });
  after(async () => {
    await t?.close();
  });

  it('shows the certificate, the QR code of the interaction URL and the three actions', async () => {
    const c = await issueCertificate(t.app, tenant, {
      name: 'Émilie du Châtelet',
      email: 'emilie@example.com',
      data: { course: 'Principia <Translation>' },
    });
    const token = await mintClaimToken(t.deps.db, c.id, new Date());
    const res = await open(token);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    const csp = String(res.headers['content-security-policy']);
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(res.body, /<script(?![^>]*src=)/, 'no inline script');
    // The browser applies the inline style only when the CSP names the hash of its whole content.
    const style = /<style>([\s\S]*?)<\/style>/.exec(res.body)![1]!;
    const hash = createHash('sha256').update(style, 'utf8').digest('base64');
    assert.ok(csp.includes(`'sha256-${hash}'`), 'the CSP allows the page its style');
    assert.match(res.body, /<dd id="title" dir="auto">Principia &lt;Translation&gt;<\/dd>/);
    assert.match(res.body, /<dd id="recipient-name" dir="auto">Émilie du Châtelet<\/dd>/);
    assert.match(res.body, /<dd id="issuer-name" dir="auto">Claim &lt;Page&gt; Academy<\/dd>/);
    const interact = `http://certs.test/claim/${token}/interact?iuv=1`;
    assert.match(
      res.body,
      new RegExp(`<a [^>]*href="${interact.replace(/[?]/g, '\\?')}"[^>]*>Add to your wallet</a\\s*>`),
    );
    assert.match(res.body, new RegExp(`<a [^>]*href="${token}/badge.png"[^>]*>Download badge</a\\s*>`));
    assert.match(
      res.body,
      new RegExp(`<a [^>]*href="${token}/correction"[^>]*>Request a correction</a\\s*>`),
    );
    const png = /<img [^>]*id="wallet-qr" src="data:image\/png;base64,([^"]+)"/.exec(res.body)?.[1];
    assert.ok(png, 'a QR image');
    const image = PNG.sync.read(Buffer.from(png, 'base64'));
    assert.equal(jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data, interact);

    // In the reader's language; the switcher keeps the address.
    const fr = await open(token, { 'accept-language': 'fr' });
    assert.match(fr.body, /<html lang="fr"/);
    assert.match(fr.body, />Ajouter à votre portefeuille</);
    assert.match((await t.app.inject({ url: `/claim/${token}?lang=ja` })).body, /<html lang="ja"/);
  });

  it('answers 404 for an unknown or malformed token and 410 for a revoked, reissued or expired one', async () => {
    for (const token of ['A'.repeat(43), 'short', '%3Cscript%3E']) {
      const res = await open(token);
      assert.equal(res.statusCode, 404, token);
      assert.match(res.body, /Wallet link not found/);
    }

    const revoked = await issueCertificate(t.app, tenant);
    const revokedToken = await mintClaimToken(t.deps.db, revoked.id, new Date());
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${revoked.id}/revoke`,
      headers: tenant.auth,
      payload: {},
    });
    const r = await open(revokedToken);
    assert.equal(r.statusCode, 410);
    assert.match(r.body, /data-reason="revoked"/);
    assert.match(r.body, /has been revoked/);

    const old = await issueCertificate(t.app, tenant);
    const oldToken = await mintClaimToken(t.deps.db, old.id, new Date());
    const reissue = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${old.id}/reissue`,
      headers: tenant.auth,
      payload: {
        recipient: { name: 'Ada King', email: 'ada@example.com', data: { course: 'Analytical Engines' } },
      },
    });
    assert.equal(reissue.statusCode, 201, reissue.body);
    const s = await open(oldToken);
    assert.equal(s.statusCode, 410);
    assert.match(s.body, /data-reason="superseded"/);

    const dated = await issueCertificate(t.app, tenant);
    const datedToken = await mintClaimToken(t.deps.db, dated.id, new Date(Date.now() - 31 * 86_400_000));
    const e = await open(datedToken);
    assert.equal(e.statusCode, 410);
    assert.match(e.body, /data-reason="expired"/);
  });
});
