import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { en } from '../../src/platform/i18n/messages/en.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// Issue 33 part 5: the verification page speaks the reader's language (a superseded certificate's
// page in French has no English left), says who signed in words, tells superseded from revoked,
// and shows an expiry on the issuer's calendar day.

let t: TestApp;
let tenant: Tenant;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  tenant = await createTenant(t.deps, { name: 'Northwind Academy' });
});
after(() => t.close());

type Issued = { id: string; uniqueCode: string; verificationUrl: string; expiresAt: string | null };

async function issue(recipient: object): Promise<Issued> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/certificates',
    headers: tenant.auth,
    payload: { templateId: tenant.templateId, recipient },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data;
}

async function reissue(id: string, recipient: object): Promise<Issued> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/certificates/${id}/reissue`,
    headers: tenant.auth,
    payload: { recipient },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data;
}

// The text a reader sees: no style, no script, no tags; attribute values that are read aloud or
// shown (aria-label, title, content of meta description) are kept too.
function visibleText(html: string): string {
  const shownAttributes = [...html.matchAll(/\b(?:aria-label|content)="([^"]*)"/g)].map((m) => m[1]);
  const body = html
    .replace(/<style>[\s\S]*?<\/style>/g, ' ')
    .replace(/<script>[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ');
  return [body, ...shownAttributes]
    .join(' ')
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ');
}

// Every English message of the page, cut at its placeholders into pieces long enough to be words
// of ours (not a brand like "LinkedIn" or "PDF").
const ENGLISH_PIECES = Object.entries(en)
  .filter(([key]) => !key.startsWith('email.') && !key.startsWith('reminder.') && !key.startsWith('door.'))
  .flatMap(([, text]) => text.split(/\{\w+\}/))
  .map((piece) => piece.trim().replace(/^[.,:;]\s*/, ''))
  .filter((piece) => piece.length >= 8);

const recipient = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  data: { course: 'Moteurs analytiques' },
};

describe('the verification page in the reader’s language', () => {
  let old: Issued;
  let fresh: Issued;

  before(async () => {
    old = await issue({ ...recipient, expiresAt: '2028-11-26T00:00:00+01:00' });
    fresh = await reissue(old.id, { ...recipient, name: 'Ada King Lovelace' });
  });

  it('a superseded certificate in French: no English, the corrected certificate first, "Remplacé par <code>"', async () => {
    const page = await t.app.inject({ url: `/verify/${old.uniqueCode}?lang=fr` });
    assert.equal(page.statusCode, 200);
    const text = visibleText(page.body);
    const leftInEnglish = ENGLISH_PIECES.filter((piece) => text.includes(piece));
    assert.deepEqual(leftInEnglish, [], text);
    assert.doesNotMatch(text, /Superseded|Revoked|Reason|Technical details|Signed by/, text);
    assert.match(text, new RegExp(`Remplacé par ${fresh.uniqueCode}`));
    assert.match(text, /Remplacé par un certificat corrigé/);
    assert.match(page.body, /data-state="superseded"/);
    assert.match(page.body, /class="banner superseded"/);
    // The link to the corrected certificate comes before anything else after the banner.
    const link = page.body.indexOf(`<a id="superseded-by" href="${fresh.verificationUrl}">`);
    assert.ok(link > 0, page.body);
    assert.ok(link < page.body.indexOf('id="recipient-name"'));
    assert.ok(link < page.body.indexOf('id="revocation-reason"'));
    assert.match(page.body, /<title>Certificat remplacé · /);

    // In English it still says what it says ("Superseded by <code>"), and looks unlike a revocation.
    const english = await t.app.inject({ url: `/verify/${old.uniqueCode}?lang=en` });
    assert.match(english.body, new RegExp(`Superseded by ${fresh.uniqueCode}`));
    assert.doesNotMatch(english.body, /class="banner revoked"/);
  });

  it('every language has the superseded page in its own words', async () => {
    const englishPage = visibleText((await t.app.inject({ url: `/verify/${old.uniqueCode}?lang=en` })).body);
    for (const lang of ['fr', 'de', 'es', 'pt', 'ar', 'hi', 'zh', 'ja']) {
      const text = visibleText((await t.app.inject({ url: `/verify/${old.uniqueCode}?lang=${lang}` })).body);
      assert.ok(!text.includes('Superseded by'), `${lang}: ${text}`);
      assert.ok(!text.includes('Replaced by a corrected certificate'), `${lang}: ${text}`);
      assert.ok(!text.includes('Technical details'), `${lang}: ${text}`);
      assert.notEqual(text, englishPage);
      assert.ok(text.includes(fresh.uniqueCode), `${lang}: ${text}`);
    }
  });

  it('a revoked (not superseded) certificate keeps the red revoked banner and its reason', async () => {
    const c = await issue({ ...recipient, email: 'other@example.com' });
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${c.id}/revoke`,
      headers: tenant.auth,
      payload: { reason: 'Issued by mistake' },
    });
    assert.equal(res.statusCode, 200, res.body);
    const page = await t.app.inject({ url: `/verify/${c.uniqueCode}?lang=fr` });
    assert.match(page.body, /class="banner revoked" id="verify-state" data-state="revoked"/);
    assert.match(page.body, /Issued by mistake/);
    assert.doesNotMatch(page.body, /id="superseded-by"/);
  });

  it('"Digital signature" says who signed in words; the DID only under "Technical details"', async () => {
    const page = await t.app.inject({ url: `/verify/${fresh.uniqueCode}?lang=fr` });
    const signature = /<dd id="signature"[^>]*>([\s\S]*?)<\/dd>/.exec(page.body)?.[1] ?? '';
    assert.match(signature, /Signé par <bdi>Northwind Academy<\/bdi>/);
    const [beforeDetails, details] = signature.split('<details');
    assert.doesNotMatch(beforeDetails!, /did:web:/);
    assert.match(details!, /<summary>Détails techniques<\/summary>/);
    assert.match(details!, /did:web:/);
  });

  it("shows an expiry given with an offset on the issuer's calendar day, in every place, and keeps the instant", async () => {
    assert.equal(old.expiresAt, '2028-11-25T23:00:00.000Z');
    const en = await t.app.inject({ url: `/verify/${fresh.uniqueCode}?lang=en` });
    const expiry = /<dd id="expires-at"[^>]*>([\s\S]*?)<\/dd>/.exec(en.body)?.[1] ?? '';
    assert.match(expiry, /<time datetime="2028-11-25T23:00:00.000Z">26 November 2028<\/time>/, expiry);
    assert.doesNotMatch(en.body, /25 November 2028/);
    const fr = await t.app.inject({ url: `/verify/${fresh.uniqueCode}?lang=fr` });
    assert.match(fr.body, /26 novembre 2028/);

    // A negative offset that crosses the day the other way: 2030-01-31T23:30:00-05:00 is
    // 2030-02-01T04:30Z, shown as 31 January 2030.
    const west = await issue({
      ...recipient,
      email: 'west@example.com',
      expiresAt: '2030-01-31T23:30:00-05:00',
    });
    assert.equal(west.expiresAt, '2030-02-01T04:30:00.000Z');
    const westPage = await t.app.inject({ url: `/verify/${west.uniqueCode}?lang=de` });
    assert.match(westPage.body, /<time datetime="2030-02-01T04:30:00.000Z">31\. Januar 2030<\/time>/);

    // The JSON verification keeps the instant.
    const json = (await t.app.inject({ url: `/api/v1/verify/${old.uniqueCode}` })).json().data;
    assert.equal(json.expiresAt, '2028-11-25T23:00:00.000Z');
  });

  it('the expiry error message says what is accepted (an offset), never "UTC timestamp"', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: { templateId: tenant.templateId, recipient: { ...recipient, expiresAt: '26/11/2028' } },
    });
    assert.equal(res.statusCode, 422, res.body);
    assert.doesNotMatch(res.body, /UTC timestamp/);
    assert.match(res.body, /Z or an offset/);
  });
});
