import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { createTenant, issueCertificate, type Tenant, type TestApp } from '../helpers/app.js';
import type { TestSmtpServer } from '../emails/smtp-test-server.js';
import { parseMail, settled, waitFor, startMailingApp, type MailingApp } from '../emails/support.js';

// "Add to your wallet" by email (issue 31): the certificate email carries the claim page's link and
// its QR code, a token minted for each send and only when it goes to the stored address; "Email me
// the wallet link" on the verification page writes to the stored address only, and answers the same
// whatever happens. Delivered by the real worker over SMTP, the messages parsed back.

let mailing: MailingApp;
let smtp: TestSmtpServer;
let t: TestApp;
let tenant: Tenant;

before(async () => {
  mailing = await startMailingApp();
  ({ smtp, t } = mailing);
  tenant = await createTenant(t.deps, { name: 'Wallet Mail Academy' });
});

after(async () => {
  await mailing?.close();
});

const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ??
  jsQRModule) as typeof jsQRModule.default;

const CLAIM_URL = /http:\/\/certs\.test\/claim\/([A-Za-z0-9_-]{43})/;
const claimTokens = (text: unknown) =>
  [...String(text).matchAll(new RegExp(CLAIM_URL, 'g'))].map((m) => m[1]!);

async function sendAndRead(id: string, payload?: object) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/certificates/${id}/send`,
    headers: tenant.auth,
    ...(payload ? { payload } : {}),
  });
  assert.equal(res.statusCode, 202, res.body);
  const row = await settled(t.deps.db, res.json().data.id);
  assert.equal(row.status, 'sent', row.last_error ?? '');
  return mailTo(row.id);
}

async function mailTo(sendId: string) {
  const mail = await waitFor(`message ${sendId}`, () =>
    smtp.received.find((m) => m.raw.toString('latin1').includes(sendId)),
  );
  return { mail, parsed: await parseMail(mail.raw) };
}

function qrText(png: Buffer): string | undefined {
  const image = PNG.sync.read(png);
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

function walletLinkPost(
  code: string,
  headers: Record<string, string> = { origin: 'http://certs.test' },
  ip = '10.7.0.1',
) {
  return t.app.inject({ method: 'POST', url: `/verify/${code}/wallet-link`, headers, remoteAddress: ip });
}

async function walletLinkSends(certificateId: string) {
  const { rows } = await t.deps.db.query<{ id: string; recipient_email: string }>(
    `SELECT id, recipient_email FROM email_sends WHERE certificate_id = $1 AND kind = 'wallet_link' ORDER BY created_at`,
    [certificateId],
  );
  return rows;
}

describe('the wallet link by email', () => {
  it('puts "Add to your wallet" and its QR code in the certificate email; each send mints its own token', async () => {
    const c = await issueCertificate(t.app, tenant, {
      name: 'Mary Somerville',
      email: 'mary@example.com',
      data: { course: 'Astronomy' },
    });
    const { parsed } = await sendAndRead(c.id);
    const html = String(parsed.html);
    const links = claimTokens(html);
    assert.equal(new Set(links).size, 1, 'one claim link');
    assert.match(html, />Add to your wallet</);
    assert.match(String(parsed.text), CLAIM_URL);
    const qr = parsed.attachments.find((a) => a.contentType === 'image/png');
    assert.ok(qr?.cid, 'an inline picture');
    // mailparser puts the picture the HTML names by its cid in place: it is the QR code.
    assert.ok(html.includes(`src="data:image/png;base64,${qr!.content.toString('base64')}"`));
    assert.equal(qrText(qr!.content), `http://certs.test/claim/${links[0]}`);
    const page = await t.app.inject({ url: `/claim/${links[0]}` });
    assert.equal(page.statusCode, 200);
    const { rows } = await t.deps.db.query(
      'SELECT token_sha256 FROM claim_tokens WHERE certificate_id = $1',
      [c.id],
    );
    assert.equal(rows.length, 1);
    assert.ok(!JSON.stringify(rows).includes(links[0]!), 'only the hash is stored');

    const again = await sendAndRead(c.id);
    const second = claimTokens(again.parsed.html)[0];
    assert.ok(second && second !== links[0], 'a resend mints a new token');
    assert.equal((await t.app.inject({ url: `/claim/${second}` })).statusCode, 200);

    // To another address than the stored one: no wallet link (it is the recipient's alone).
    const other = await sendAndRead(c.id, { recipientEmail: 'someone-else@example.com' });
    assert.doesNotMatch(String(other.parsed.html), /\/claim\//);
    assert.equal(other.parsed.attachments.filter((a) => a.contentType === 'image/png').length, 0);
  });

  it('"Email me the wallet link" writes to the stored address only and answers the same for any code', async () => {
    const c = await issueCertificate(t.app, tenant, {
      name: 'Caroline Herschel',
      email: 'caroline@example.com',
      data: { course: 'Comets' },
    });
    const page = await t.app.inject({ url: `/verify/${c.uniqueCode}`, remoteAddress: '10.7.0.9' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<button[^>]*>Email me the wallet link<\/button>/);
    assert.doesNotMatch(page.body, /\/claim\//, 'the verification page never shows a token');
    assert.match(String(page.headers['content-security-policy']), /form-action 'self'/);

    const res = await walletLinkPost(c.uniqueCode);
    assert.equal(res.statusCode, 200, res.body);
    const [send] = await walletLinkSends(c.id);
    assert.equal(send?.recipient_email, 'caroline@example.com');
    const row = await settled(t.deps.db, send!.id);
    assert.equal(row.status, 'sent', row.last_error ?? '');
    const { mail, parsed } = await mailTo(send!.id);
    assert.deepEqual(mail.rcptTo, ['caroline@example.com']);
    const token = claimTokens(parsed.html)[0];
    assert.ok(token, String(parsed.html));
    assert.equal((await t.app.inject({ url: `/claim/${token}` })).statusCode, 200);
    assert.equal(parsed.attachments.filter((a) => a.contentType === 'application/pdf').length, 0);

    const normal = (body: string, code: string) => body.replaceAll(code, 'CODE');
    const known = normal(res.body, c.uniqueCode);
    // An unknown code, a malformed one, a revoked certificate: the same page, no email.
    const revoked = await issueCertificate(t.app, tenant, {
      name: 'Revoked Person',
      email: 'revoked@example.com',
      data: { course: 'Comets' },
    });
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${revoked.id}/revoke`,
      headers: tenant.auth,
      payload: {},
    });
    const revokedPage = await t.app.inject({
      url: `/verify/${revoked.uniqueCode}`,
      remoteAddress: '10.7.0.9',
    });
    assert.doesNotMatch(revokedPage.body, /Email me the wallet link/);
    for (const code of ['0000000000000000', revoked.uniqueCode, 'not-a-code']) {
      const other = await walletLinkPost(code);
      assert.equal(other.statusCode, 200, code);
      assert.equal(normal(other.body, code), known, code);
    }
    assert.equal((await walletLinkSends(revoked.id)).length, 0);

    // Per certificate: 3 an hour; the fourth gets the same answer and sends nothing.
    for (let i = 0; i < 3; i++)
      assert.equal((await walletLinkPost(c.uniqueCode, undefined, `10.7.1.${i}`)).statusCode, 200);
    assert.equal((await walletLinkSends(c.id)).length, 3);
    // From another site (a forged form): refused, nothing queued.
    const forged = await walletLinkPost(c.uniqueCode, { origin: 'https://evil.example' }, '10.7.2.1');
    assert.equal(forged.statusCode, 403);
    const crossSite = await walletLinkPost(c.uniqueCode, { 'sec-fetch-site': 'cross-site' }, '10.7.2.2');
    assert.equal(crossSite.statusCode, 403);
    assert.equal((await walletLinkSends(c.id)).length, 3);
  });
});
