import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import type { Design } from '../../src/pdf/design.schema.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { pdfText, pdfWords } from '../pdf/pdf-helpers.js';

// Issue 30: a design's recipientDescription is the credential's achievement.description (never the
// internal description); the signatory block is printed; the expiry line prints only when there is
// an expiry, in the design's language.

let t: TestApp;
let tenant: Tenant;
let french: string;
let plain: string;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  tenant = await createTenant(t.deps, { name: 'Académie du Nord' });
  const demo = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
  const base: Design = {
    ...demo,
    description: 'Internal: the spring cohort template, do not show',
    elements: demo.elements.filter(
      (e) => e.type !== 'signatory' && !('text' in e && e.text.includes('expiresAt')),
    ),
  };
  delete base.recipientDescription;
  const withSettings: Design = {
    ...base,
    name: 'Attestation de formation',
    locale: 'fr',
    validity: 'P1Y',
    recipientDescription: 'A réussi la formation indiquée sur ce certificat.',
    signatories: [{ name: 'Dr Ada Lee', title: 'Directrice des études', organisation: 'Académie du Nord' }],
    elements: [
      ...base.elements,
      { type: 'signatory', index: 1, x: 321, y: 400, width: 200, height: 90, size: 11 },
      {
        type: 'text',
        text: 'Valable jusqu’au {{certificate.expiresAt}}',
        x: 60,
        y: 540,
        width: 400,
        size: 10,
      },
    ],
  };
  french = (await t.deps.services.templates.create(SYSTEM, tenant.accountId, withSettings)).id;
  plain = (
    await t.deps.services.templates.create(SYSTEM, tenant.accountId, {
      ...base,
      name: 'Plain course',
      elements: [
        ...base.elements,
        { type: 'text', text: 'Valid until {{certificate.expiresAt}}', x: 60, y: 540, width: 400, size: 10 },
      ],
    })
  ).id;
});
after(async () => {
  await t?.close();
});

async function issue(templateId: string, extra: Record<string, unknown> = {}) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/v1/certificates',
    headers: tenant.auth,
    payload: {
      templateId,
      recipient: { name: 'Zoé Martin', email: 'zoe@example.com', data: { course: 'Sécurité' }, ...extra },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const c = res.json().data as { id: string; expiresAt: string | null };
  const pdf = await t.app.inject({ url: `/api/v1/certificates/${c.id}/pdf`, headers: tenant.auth });
  const credential = await t.app.inject({
    url: `/api/v1/certificates/${c.id}/credential`,
    headers: tenant.auth,
  });
  assert.equal(credential.statusCode, 200);
  return {
    c,
    pdf: pdf.rawPayload,
    credential: credential.json() as {
      credentialSubject: { achievement: { description: string; name: string } };
    },
  };
}

describe('a design with recipientDescription, a signatory and an expiry line', () => {
  it('puts recipientDescription in the credential, prints the signatory and the expiry in French', async () => {
    const { c, pdf, credential } = await issue(french);
    assert.equal(
      credential.credentialSubject.achievement.description,
      'A réussi la formation indiquée sur ce certificat.',
    );
    assert.ok(c.expiresAt);
    const date = new Intl.DateTimeFormat('fr', {
      day: 'numeric',
      month: 'long',
      year: 'numeric',
      timeZone: 'UTC',
    }).format(new Date(c.expiresAt));
    const text = pdfText(pdf);
    assert.ok(text.includes(`Valable jusqu’au ${date}`), `${date} in ${text}`);
    // The signatory block: name and title inside it, the name above the title.
    const words = pdfWords(pdf);
    const find = (s: string) => words.find((w) => w.text === s);
    const name = find('Lee');
    const title = find('Directrice');
    assert.ok(name && title, words.map((w) => w.text).join(' '));
    for (const w of [name, title])
      assert.ok(w.xMin >= 321 && w.xMax <= 521 && w.yMin >= 400 && w.yMax <= 490.5);
    assert.ok(name.yMax <= title.yMin + 0.5);
    // Signatories are printed, not put in the credential (decisions 24).
    assert.doesNotMatch(JSON.stringify(credential), /Ada Lee/);
  });

  it('without an expiry prints no "Valid until"; without recipientDescription the achievement says the template name', async () => {
    const { c, pdf, credential } = await issue(plain);
    assert.equal(c.expiresAt, null);
    assert.doesNotMatch(pdfText(pdf), /Valid until/);
    assert.equal(credential.credentialSubject.achievement.description, 'Plain course');
    assert.doesNotMatch(JSON.stringify(credential), /Internal/);
    const dated = await issue(plain, { expiresAt: '2099-06-30T12:00:00Z' });
    assert.match(pdfText(dated.pdf), /Valid until 30 June 2099/);
  });
});
