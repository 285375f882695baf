import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, issueCertificate, startTestApp, type TestApp } from '../helpers/app.js';
import { signedInMember } from './form-client.js';

// The dashboard shows the account's issuer identity and each certificate's signature state.
describe('dashboard: portable proof', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t?.close();
  });

  it('shows the DID and key fingerprints, and offers the signed credential of a certificate', async () => {
    const tenant = await createTenant(t.deps);
    const client = await signedInMember(t, tenant.accountId);
    const fresh = await client.get('/dashboard');
    assert.match(fresh.body, new RegExp(`id="issuer-did">did:web:certs\\.test:issuers:${tenant.accountId}<`));

    const cert = await issueCertificate(t.app, tenant);
    const home = await client.get('/dashboard');
    const [key] = await t.deps.services.signingKeys.listKeys(tenant.accountId);
    assert.ok(home.body.includes(key!.publicKeyMultibase), 'the key fingerprint is listed');
    assert.doesNotMatch(home.body, /private/i);
    const [pdfCert] = await t.deps.services.signingKeys.listPdfCertificates(tenant.accountId);
    assert.ok(
      home.body.includes(`SHA-256 ${pdfCert!.fingerprintSha256}`),
      'the PDF certificate fingerprint is listed',
    );
    assert.match(home.body, /id="pdf-certificates"/);

    const page = await client.get(`/dashboard/certificates/${cert.id}`);
    assert.match(page.body, /id="signature" data-signed="true"/);
    assert.match(page.body, /id="pdf-signature" data-signed="true"/);
    assert.ok(page.body.includes(pdfCert!.fingerprintSha256), 'the PDF signer is named');
    const download = await client.get(`/dashboard/certificates/${cert.id}/credential`);
    assert.equal(download.statusCode, 200);
    assert.match(String(download.headers['content-disposition']), /credential-[0-9A-Z]{16}\.json/);
    const api = await t.app.inject({
      url: `/api/v1/certificates/${cert.id}/credential`,
      headers: tenant.auth,
    });
    assert.deepEqual(download.rawPayload, api.rawPayload, 'the same frozen bytes');

    await t.deps.db.query('DELETE FROM credentials WHERE certificate_id = $1', [cert.id]);
    const unsigned = await client.get(`/dashboard/certificates/${cert.id}`);
    assert.match(unsigned.body, /id="signature" data-signed="false"/);
    await t.deps.db.query('UPDATE certificate_pdfs SET signed_by = NULL WHERE certificate_id = $1', [
      cert.id,
    ]);
    const oldPdf = await client.get(`/dashboard/certificates/${cert.id}`);
    assert.match(oldPdf.body, /id="pdf-signature" data-signed="false"/);
    assert.match(oldPdf.body, /frozen before PDFs were signed/);
    assert.equal((await client.get(`/dashboard/certificates/${cert.id}/credential`)).statusCode, 404);
  });
});
