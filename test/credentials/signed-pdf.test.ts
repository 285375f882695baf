import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, randomUUID } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import * as pkijs from 'pkijs';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { worldNames } from '../helpers/world-names.js';
import { replaceCertificate } from '../../src/modules/proof/signing-keys.repository.js';
import { createKeyVault } from '../../src/platform/proof/key-vault.js';
import { selfSignedCertificate } from '../../src/platform/proof/x509.js';
import { startLocalTsa, type LocalTsa } from './tsa.js';
import { attachment, byteRange, cleanPdfTools, cmsOf, opensslVerify, pdfsig, tempFile } from './pdf-tools.js';

// docs/proof.md, Signed PDFs: every frozen PDF carries a PAdES signature over the whole file, made
// at issue, and its credential as the attached file credential.json. Checked with tools we did not
// write: poppler's pdfsig and pdfdetach, OpenSSL's cms and ts, pkijs.

function assertSigned(pdf: Buffer, signer: string, label = ''): void {
  const out = pdfsig(pdf);
  assert.match(out, /Signature Validation: Signature is Valid\./, `${label}\n${out}`);
  assert.match(out, /Total document signed/, `${label}\n${out}`);
  assert.match(out, /Signature Type: ETSI\.CAdES\.detached/, out);
  assert.ok(out.includes(`Signer Certificate Common Name: ${signer}`), `${label}\n${out}`);
}

describe('signed PDFs', () => {
  let t: TestApp;
  let tenant: Tenant;
  const accountName = 'Academia Ωmega “Signed”';

  const pdfOf = async (app: TestApp, owner: Tenant, id: string) => {
    const res = await app.app.inject({
      method: 'GET',
      url: `/api/v1/certificates/${id}/pdf`,
      headers: owner.auth,
    });
    assert.equal(res.statusCode, 200);
    return res.rawPayload;
  };
  const credentialOf = async (app: TestApp, owner: Tenant, id: string) => {
    const res = await app.app.inject({
      method: 'GET',
      url: `/api/v1/certificates/${id}/credential`,
      headers: owner.auth,
    });
    assert.equal(res.statusCode, 200);
    return res.rawPayload;
  };

  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
    tenant = await createTenant(t.deps, { name: accountName, monthlyLimit: 100_000 });
  });
  after(async () => {
    await t?.close();
    cleanPdfTools();
  });

  it('signs every PDF of single and batch issues over the whole file, with the credential attached', async () => {
    const single = await issueCertificate(t.app, tenant, {
      name: 'Zoë Ångström',
      email: 'zoe@example.com',
      data: { course: 'Safe Lifting' },
    });
    const names = worldNames.map((w) => w.name);
    const batch = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: {
        templateId: tenant.templateId,
        recipients: names.map((name, i) => ({
          name,
          email: `w${i}@example.com`,
          data: { course: `Course ${i}` },
        })),
      },
    });
    assert.equal(batch.statusCode, 201, batch.body);
    const ids = [
      single.id,
      ...batch.json().data.results.map((r: { certificate: { id: string } }) => r.certificate.id),
    ];
    assert.equal(ids.length, 1 + names.length);
    for (const id of ids) {
      const pdf = await pdfOf(t, tenant, id);
      assertSigned(pdf, accountName, id);
      assert.deepEqual(
        attachment(pdf),
        await credentialOf(t, tenant, id),
        'the attached credential is the served one',
      );
      const view = (
        await t.app.inject({ method: 'GET', url: `/api/v1/certificates/${id}`, headers: tenant.auth })
      ).json().data;
      const verify = (await t.app.inject({ method: 'GET', url: `/api/v1/verify/${view.uniqueCode}` })).json()
        .data;
      assert.equal(
        verify.pdfSha256,
        createHash('sha256').update(pdf).digest('hex'),
        'pdfSha256 is the signed file',
      );
      assert.equal(verify.pdfSigned, true);
      assert.equal(verify.signed, true);
      const [start, , , tailLength] = byteRange(pdf);
      assert.equal(start, 0);
      assert.equal(byteRange(pdf)[2] + tailLength, pdf.length, 'the ranges reach the end of the file');
    }
  });

  it('fails the signature for one changed byte anywhere in the signed ranges', async () => {
    const c = await issueCertificate(t.app, tenant);
    const pdf = await pdfOf(t, tenant, c.id);
    const [, contentsAt, after] = byteRange(pdf);
    const credentialAt = pdf.indexOf('"OpenBadgeCredential"');
    assert.ok(credentialAt > 0 && credentialAt < contentsAt, 'the credential is inside the signed range');
    const positions = [
      0,
      9,
      Math.floor(contentsAt / 2),
      credentialAt + 3,
      contentsAt - 2,
      after + 1,
      pdf.length - 3,
    ];
    for (const at of positions) {
      const copy = Buffer.from(pdf);
      copy[at] = copy[at]! ^ 0x01;
      const out = pdfsig(copy);
      assert.doesNotMatch(out, /Signature is Valid/, `byte ${at} of ${pdf.length} changed:\n${out}`);
    }
  });

  it('is a CAdES signature OpenSSL verifies: signing-certificate-v2, no signing-time attribute', async () => {
    const c = await issueCertificate(t.app, tenant);
    const pdf = await pdfOf(t, tenant, c.id);
    const [, contentsAt, after, tailLength] = byteRange(pdf);
    const signed = Buffer.concat([pdf.subarray(0, contentsAt), pdf.subarray(after, after + tailLength)]);
    const cms = cmsOf(pdf);
    const cmsFile = tempFile(cms, 'der');
    const verified = opensslVerify(cms, signed);
    assert.equal(verified.status, 0, verified.stderr);
    assert.match(verified.stderr, /Verification successful/);
    const printed = execFileSync('openssl', ['cms', '-cmsout', '-print', '-inform', 'DER', '-in', cmsFile], {
      encoding: 'utf8',
    });
    assert.match(printed, /signingCertificateV2/);
    assert.match(printed, /messageDigest/);
    assert.doesNotMatch(printed, /signingTime/);
    assert.doesNotMatch(printed, /unsignedAttrs:\s*\n\s*object/, 'no time stamp without TSA_URL');
    // One changed byte of the signed content: OpenSSL refuses it too.
    signed[100] = signed[100]! ^ 1;
    const refused = opensslVerify(cms, signed);
    assert.notEqual(refused.status, 0);
  });

  it('keeps private keys out of the database in clear: the PDF key is sealed', async () => {
    const { rows } = await t.deps.db.query<{ private_key: Buffer; certificate: Buffer; source: string }>(
      'SELECT private_key, certificate, source FROM pdf_signing_certificates WHERE account_id = $1',
      [tenant.accountId],
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.source, 'generated');
    // Sealed (AES-256-GCM): OpenSSL cannot read it as a key.
    assert.throws(() =>
      execFileSync('openssl', ['pkey', '-inform', 'DER', '-in', tempFile(rows[0]!.private_key, 'der')], {
        stdio: 'pipe',
      }),
    );
    const text = execFileSync(
      'openssl',
      [
        'x509',
        '-inform',
        'DER',
        '-noout',
        '-subject',
        '-ext',
        'keyUsage,basicConstraints',
        '-in',
        tempFile(rows[0]!.certificate, 'der'),
      ],
      { encoding: 'utf8' },
    );
    assert.match(text, /Digital Signature, Non Repudiation/);
    assert.match(text, /CA:FALSE/);
  });

  it('replaces an expired signing certificate with a new self-signed one, and says so', async () => {
    const owner = await createTenant(t.deps, { name: 'Lapsed Academy' });
    await issueCertificate(t.app, owner);
    // As an imported certificate whose term has ended.
    const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const certificate = selfSignedCertificate({
      commonName: 'Lapsed Signer',
      publicKey,
      privateKey,
      notBefore: new Date('2020-01-01T00:00:00Z'),
      notAfter: new Date('2021-01-01T00:00:00Z'),
    });
    const id = randomUUID();
    const vault = createKeyVault(t.deps.config.signingKeysSecret!);
    const sealedKey = vault.seal(privateKey.export({ format: 'der', type: 'pkcs8' }), id);
    await t.deps.db.transaction((tx) =>
      replaceCertificate(
        tx,
        { id, accountId: owner.accountId, certificate, chain: [], privateKey: sealedKey, source: 'imported' },
        new Date(),
      ),
    );
    const c = await issueCertificate(t.app, owner);
    assertSigned(await pdfOf(t, owner, c.id), 'Lapsed Academy');
    const list = await t.deps.services.signingKeys.listPdfCertificates(owner.accountId);
    assert.deepEqual(
      list.map((x) => [x.source, x.current]),
      [
        ['generated', false],
        ['imported', false],
        ['generated', true],
      ],
    );
    assert.equal(list[1]!.validTo, '2021-01-01T00:00:00.000Z');
  });

  describe('with TSA_URL (PAdES B-T)', () => {
    let tsa: LocalTsa;
    let stamped: TestApp;
    let owner: Tenant;

    before(async () => {
      tsa = await startLocalTsa();
      stamped = await startTestApp({ RATE_LIMIT_MAX: '100000', TSA_URL: tsa.url });
      owner = await createTenant(stamped.deps, { name: 'Stamped Academy', monthlyLimit: 100_000 });
    });
    after(async () => {
      await stamped?.close();
      await tsa?.close();
    });

    it('carries a time stamp over the signature that OpenSSL verifies against the TSA', async () => {
      const before = tsa.requests;
      const batch = await stamped.app.inject({
        method: 'POST',
        url: '/api/v1/certificates',
        headers: owner.auth,
        payload: {
          templateId: owner.templateId,
          recipients: worldNames
            .map((w) => w.name)
            .slice(0, 12)
            .map((name, i) => ({
              name,
              email: `t${i}@example.com`,
              data: { course: 'Stamped' },
            })),
        },
      });
      assert.equal(batch.statusCode, 201, batch.body);
      assert.equal(tsa.requests - before, 12, 'one time stamp per certificate');
      for (const r of batch.json().data.results as { certificate: { id: string } }[]) {
        const pdf = await pdfOf(stamped, owner, r.certificate.id);
        assertSigned(pdf, 'Stamped Academy');
        const cms = cmsOf(pdf);
        const signedData = new pkijs.SignedData({
          schema: pkijs.ContentInfo.fromBER(new Uint8Array(cms).buffer).content,
        });
        const signerInfo = signedData.signerInfos[0]!;
        const attribute = signerInfo.unsignedAttrs?.attributes.find(
          (a) => a.type === '1.2.840.113549.1.9.16.2.14',
        );
        assert.ok(attribute, 'a signature time-stamp token');
        const token = Buffer.from(attribute.values[0]!.toBER());
        const signature = Buffer.from(signerInfo.signature.valueBlock.valueHexView);
        const digest = createHash('sha256').update(signature).digest('hex');
        const verified = spawnSync(
          'openssl',
          [
            'ts',
            '-verify',
            '-token_in',
            '-in',
            tempFile(token, 'der'),
            '-digest',
            digest,
            '-CAfile',
            tsa.certificateFile,
          ],
          { encoding: 'utf8' },
        );
        assert.match(verified.stdout + verified.stderr, /Verification: OK/);
      }
    });

    it('refuses the issue with 503 and changes nothing when the TSA is down', async () => {
      const count = async () =>
        (
          await stamped.deps.db.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM certificates WHERE account_id = $1',
            [owner.accountId],
          )
        ).rows[0]!.n;
      const used = async () =>
        (
          await stamped.deps.db.query<{ n: number }>(
            'SELECT coalesce(sum(used), 0)::int AS n FROM usage_periods WHERE account_id = $1',
            [owner.accountId],
          )
        ).rows[0]!.n;
      const [n0, u0] = [await count(), await used()];
      tsa.stopped = true;
      try {
        const res = await stamped.app.inject({
          method: 'POST',
          url: '/api/v1/certificates',
          headers: owner.auth,
          payload: {
            templateId: owner.templateId,
            recipient: { name: 'Ada', email: 'a@example.com', data: { course: 'X' } },
          },
        });
        assert.equal(res.statusCode, 503, res.body);
        assert.equal(res.json().error.code, 'service_unavailable');
        assert.match(res.json().error.message, /time-stamp authority/);
        assert.ok(res.headers['retry-after']);
      } finally {
        tsa.stopped = false;
      }
      assert.equal(await count(), n0);
      assert.equal(await used(), u0);
    });
  });
});
