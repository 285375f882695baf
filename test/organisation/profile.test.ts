import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { png } from '../helpers/hostile-files.js';
import { cleanPdfTools, pdfsig } from '../credentials/pdf-tools.js';
import { signedMember, logoForm, type Member } from './support.js';

// Issue 29 item 1: the organisation's profile (Settings > Organisation). A new name applies to what
// is issued from then on; each certificate keeps the name it was issued under.

const LOGO = png({ width: 40, height: 20 });

async function accountRow(t: TestApp, id: string) {
  const { rows } = await t.deps.db.query<Record<string, unknown>>(
    `SELECT name, website, contact_email, default_language, logo_sha256, encode(logo, 'hex') AS logo
       FROM accounts WHERE id = $1`,
    [id],
  );
  return rows[0]!;
}

async function auditEvents(t: TestApp, accountId: string) {
  const { rows } = await t.deps.db.query<{
    action: string;
    actor_type: string;
    actor_id: string | null;
    actor_label: string | null;
    target_id: string;
    changes: Record<string, { from: unknown; to: unknown }>;
  }>(
    `SELECT action, actor_type, actor_id, actor_label, target_id, changes FROM audit_events
      WHERE account_id = $1 AND action = 'account.updated' ORDER BY seq`,
    [accountId],
  );
  return rows;
}

async function pdfOf(t: TestApp, tenant: Tenant, id: string): Promise<Buffer> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/certificates/${id}/pdf`,
    headers: tenant.auth,
  });
  assert.equal(res.statusCode, 200);
  return res.rawPayload;
}

async function credentialOf(t: TestApp, tenant: Tenant, id: string) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/certificates/${id}/credential`,
    headers: tenant.auth,
  });
  assert.equal(res.statusCode, 200);
  return res.json() as { issuer: { name: string } };
}

function assertSignedBy(pdf: Buffer, name: string) {
  const out = pdfsig(pdf);
  assert.match(out, /Signature Validation: Signature is Valid\./, out);
  assert.ok(out.includes(`Signer Certificate Common Name: ${name}\n`), out);
}

describe('organisation profile', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    cleanPdfTools();
    await t.close();
  });

  it('Settings > Organisation saves the profile and the logo, records account.updated, and shows it back', async () => {
    const tenant = await createTenant(t.deps, { name: 'Demo Academy' });
    const member: Member = await signedMember(t, tenant.accountId);
    const page = await member.client.get('/dashboard/settings/organisation');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<button type="submit">Save<\/button>/);
    assert.match(page.body, /value="Demo Academy"/);

    const res = await logoForm(t, member.client, {
      fields: {
        name: 'Northwind Academy',
        website: 'https://northwind.example/',
        contactEmail: 'office@northwind.example',
        defaultLanguage: 'fr',
      },
      logo: { name: 'logo.png', bytes: LOGO },
    });
    assert.equal(res.statusCode, 303, res.body);
    const row = await accountRow(t, tenant.accountId);
    assert.equal(row.name, 'Northwind Academy');
    assert.equal(row.website, 'https://northwind.example/');
    assert.equal(row.contact_email, 'office@northwind.example');
    assert.equal(row.default_language, 'fr');
    assert.equal(row.logo, LOGO.toString('hex'));

    const shown = await member.client.get('/dashboard/settings/organisation');
    assert.match(shown.body, /Organisation saved\./);
    assert.match(shown.body, /value="Northwind Academy"/);
    assert.match(shown.body, /value="office@northwind.example"/);
    assert.match(shown.body, /<option value="fr"\s+selected>/);
    assert.match(shown.body, /alt="Current logo"/);
    const logo = await member.client.get('/dashboard/settings/organisation/logo');
    assert.equal(logo.statusCode, 200);
    assert.equal(logo.headers['content-type'], 'image/png');
    assert.equal(logo.headers['x-content-type-options'], 'nosniff');
    assert.deepEqual(logo.rawPayload, LOGO);

    const events = await auditEvents(t, tenant.accountId);
    assert.equal(events.length, 1);
    const [event] = events;
    assert.equal(event!.action, 'account.updated');
    assert.equal(event!.actor_type, 'user');
    assert.equal(event!.actor_id, member.userId);
    assert.equal(event!.target_id, tenant.accountId);
    assert.deepEqual(event!.changes.name, { from: 'Demo Academy', to: 'Northwind Academy' });
    assert.deepEqual(event!.changes.website, { from: null, to: 'https://northwind.example/' });
    assert.deepEqual(event!.changes.defaultLanguage, { from: 'en', to: 'fr' });
    assert.deepEqual(event!.changes.logo, {
      from: null,
      to: { size: LOGO.length, sha256: String(row.logo_sha256) },
    });
    assert.ok(
      !JSON.stringify(event!.changes).includes(LOGO.toString('base64')),
      'no logo bytes in the event',
    );

    // Saving the same values again changes nothing and records nothing.
    const again = await logoForm(t, member.client, {
      fields: {
        name: 'Northwind Academy',
        website: 'https://northwind.example/',
        contactEmail: 'office@northwind.example',
        defaultLanguage: 'fr',
      },
    });
    assert.equal(again.statusCode, 303);
    assert.equal((await auditEvents(t, tenant.accountId)).length, 1);

    // "Remove the logo" removes it.
    const removed = await logoForm(t, member.client, {
      fields: { name: 'Northwind Academy', defaultLanguage: 'fr', removeLogo: 'on' },
    });
    assert.equal(removed.statusCode, 303);
    assert.equal((await accountRow(t, tenant.accountId)).logo, null);
    assert.equal((await member.client.get('/dashboard/settings/organisation/logo')).statusCode, 404);
  });

  it('refuses a bad value with a clear 422 and changes nothing', async () => {
    const tenant = await createTenant(t.deps, { name: 'Careful Academy' });
    const member = await signedMember(t, tenant.accountId);
    await member.client.get('/dashboard/settings/organisation');
    const good = { name: 'Renamed Academy', website: '', contactEmail: '', defaultLanguage: 'en' };
    const garbagePng = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.from('this is no PNG at all, only its signature'),
    ]);
    const cases: { label: string; fields?: Record<string, string>; logo?: Buffer; says: RegExp }[] = [
      { label: 'bad URL', fields: { website: 'not a web address' }, says: /is not a web address/ },
      {
        label: 'http website',
        fields: { website: 'http://careful.example' },
        says: /must be an https:\/\/ address/,
      },
      { label: 'bad email', fields: { contactEmail: 'office at careful' }, says: /is not an email address/ },
      {
        label: 'empty name',
        fields: { name: '   ' },
        says: /The name must be 1 to 200 characters after trimming/,
      },
      {
        label: 'unknown language',
        fields: { defaultLanguage: 'xx' },
        says: /default language must be one of/,
      },
      {
        label: 'not an image',
        logo: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
        says: /not a PNG or JPEG image: its content is an SVG drawing/,
      },
      {
        label: 'oversize',
        logo: Buffer.concat([LOGO, Buffer.alloc(600 * 1024)]),
        says: /may be at most 512 KiB/,
      },
      { label: 'PNG header with garbage', logo: garbagePng, says: /The PNG logo cannot be used/ },
    ];
    for (const c of cases) {
      const res = await logoForm(t, member.client, {
        fields: { ...good, ...c.fields },
        ...(c.logo ? { logo: { name: 'logo.png', bytes: c.logo } } : {}),
      });
      assert.equal(res.statusCode, 422, `${c.label}: ${res.statusCode}`);
      assert.match(res.body, c.says, c.label);
      assert.match(res.body, /Not saved:/, c.label);
      const row = await accountRow(t, tenant.accountId);
      assert.equal(row.name, 'Careful Academy', c.label);
      assert.equal(row.website, null, c.label);
      assert.equal(row.logo, null, c.label);
    }
    assert.equal((await auditEvents(t, tenant.accountId)).length, 0);
  });

  it('a role without the organisation permission gets 403 and changes nothing', async () => {
    const tenant = await createTenant(t.deps, { name: 'Guarded Academy' });
    const member = await signedMember(t, tenant.accountId);
    await t.deps.db.query(`UPDATE users SET role = 'issuer' WHERE id = $1`, [member.userId]);
    await member.client.get('/dashboard');
    assert.equal((await member.client.get('/dashboard/settings/organisation')).statusCode, 403);
    assert.equal((await member.client.get('/dashboard/settings/organisation/logo')).statusCode, 403);
    const res = await logoForm(t, member.client, {
      fields: { name: 'Taken Over', defaultLanguage: 'en' },
      logo: { name: 'logo.png', bytes: LOGO },
    });
    assert.equal(res.statusCode, 403);
    const row = await accountRow(t, tenant.accountId);
    assert.equal(row.name, 'Guarded Academy');
    assert.equal(row.logo, null);
    assert.equal((await auditEvents(t, tenant.accountId)).length, 0);
  });

  it('a rename applies from then on: new credential and PDF signer, old PDFs still valid, both names on verification', async () => {
    const tenant = await createTenant(t.deps, { name: 'Demo Academy' });
    const old = await issueCertificate(t.app, tenant);
    assertSignedBy(await pdfOf(t, tenant, old.id), 'Demo Academy');

    await t.deps.services.accounts.updateProfile(
      tenant.accountId,
      { name: 'Northwind Academy' },
      { actor: { type: 'cli', id: null, label: 'test' } },
    );

    const fresh = await issueCertificate(t.app, tenant);
    assert.equal((await credentialOf(t, tenant, fresh.id)).issuer.name, 'Northwind Academy');
    assert.equal((await credentialOf(t, tenant, old.id)).issuer.name, 'Demo Academy');
    assertSignedBy(await pdfOf(t, tenant, fresh.id), 'Northwind Academy');
    assertSignedBy(await pdfOf(t, tenant, old.id), 'Demo Academy');
    const certificates = await t.deps.services.signingKeys.listPdfCertificates(tenant.accountId);
    assert.equal(certificates.length, 2);
    assert.match(certificates.find((c) => c.current)!.subject, /CN=Northwind Academy/);

    // A batch, too, is issued under the new name (known once for the batch).
    const batch = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: {
        templateId: tenant.templateId,
        recipients: [
          { name: 'Grace Hopper', email: 'grace@example.com', data: { course: 'Compilers' } },
          { name: 'Alan Turing', email: 'alan@example.com', data: { course: 'Computability' } },
        ],
      },
    });
    assert.ok(batch.statusCode < 300, batch.body);
    const { rows } = await t.deps.db.query<{ issuer_name: string; n: number }>(
      'SELECT issuer_name, count(*)::int AS n FROM certificates WHERE account_id = $1 GROUP BY 1 ORDER BY 1',
      [tenant.accountId],
    );
    assert.deepEqual(rows, [
      { issuer_name: 'Demo Academy', n: 1 },
      { issuer_name: 'Northwind Academy', n: 3 },
    ]);

    const json = async (code: string) => {
      const res = await t.app.inject({ method: 'GET', url: `/api/v1/verify/${code}` });
      assert.equal(res.statusCode, 200);
      return res.json().data as { issuerName: string; issuerCurrentName: string };
    };
    const oldJson = await json(old.uniqueCode);
    assert.equal(oldJson.issuerName, 'Demo Academy');
    assert.equal(oldJson.issuerCurrentName, 'Northwind Academy');
    const freshJson = await json(fresh.uniqueCode);
    assert.equal(freshJson.issuerName, 'Northwind Academy');
    assert.equal(freshJson.issuerCurrentName, 'Northwind Academy');

    const pageText = async (code: string, lang = 'en') => {
      const res = await t.app.inject({ method: 'GET', url: `/verify/${code}?lang=${lang}` });
      assert.equal(res.statusCode, 200);
      return res.body.replace(/<[^>]+>/g, '');
    };
    assert.match(await pageText(old.uniqueCode), /Issued by Demo Academy, now Northwind Academy/);
    const freshPage = await pageText(fresh.uniqueCode);
    assert.match(freshPage, /Issued by Northwind Academy/);
    assert.doesNotMatch(freshPage, /, now /);
    assert.match(
      await pageText(old.uniqueCode, 'fr'),
      /Délivré par Demo Academy, désormais Northwind Academy/,
    );
  });
});
