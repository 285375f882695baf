import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  createTenant,
  issueCertificate,
  startTestApp,
  testDatabaseUrl,
  type TestApp,
} from '../helpers/app.js';
import { referenceVerify } from '../credentials/reference.js';
import { cmsOf, opensslVerify, pdfsig, signedContent } from '../credentials/pdf-tools.js';
import { cliEnv, runCli } from './run-cli.js';

// certsvc signing-key: list shows public keys only; rotate switches every instance at once.

let dataDir: string;
let apps: TestApp[];

before(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-signing-key-'));
  apps = await Promise.all([startTestApp(), startTestApp(), startTestApp()]);
});
after(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await rm(dataDir, { recursive: true, force: true });
});

const env = () =>
  cliEnv({ DATABASE_URL: testDatabaseUrl(), DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://certs.test' });

async function methodOf(t: TestApp, auth: { authorization: string }, id: string): Promise<string> {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/v1/certificates/${id}/credential`,
    headers: auth,
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().proof.verificationMethod;
}

describe('certsvc signing-key', () => {
  it('rotate makes three running instances sign with the new key at once; list shows both', async () => {
    const tenant = await createTenant(apps[0]!.deps);
    const before = await Promise.all(
      apps.map(async (t) => methodOf(t, tenant.auth, (await issueCertificate(t.app, tenant)).id)),
    );
    assert.equal(new Set(before).size, 1, 'one key before');

    const rotated = await runCli(['signing-key', 'rotate', tenant.accountId, '--json'], env());
    assert.equal(rotated.code, 0, rotated.stderr);
    const key = JSON.parse(rotated.stdout) as { id: string; verificationMethod: string; current: boolean };
    assert.equal(key.current, true);
    assert.doesNotMatch(rotated.stdout, /private/i);

    const after = await Promise.all(
      apps.map(async (t) => methodOf(t, tenant.auth, (await issueCertificate(t.app, tenant)).id)),
    );
    assert.deepEqual(after, [key.verificationMethod, key.verificationMethod, key.verificationMethod]);
    // The PDF signing certificate (self-signed) was rotated with it: every instance seals with the new one.
    const pdfCertificate = (
      JSON.parse(rotated.stdout) as { pdfCertificate: { id: string; rotated: boolean } }
    ).pdfCertificate;
    assert.equal(pdfCertificate.rotated, true);
    const { rows } = await apps[0]!.deps.db.query<{ signed_by: string }>(
      `SELECT p.signed_by FROM certificate_pdfs p JOIN certificates c ON c.id = p.certificate_id
        WHERE c.account_id = $1 ORDER BY c.created_at DESC, c.id DESC LIMIT 3`,
      [tenant.accountId],
    );
    assert.deepEqual(
      rows.map((r) => r.signed_by),
      [pdfCertificate.id, pdfCertificate.id, pdfCertificate.id],
    );

    const list = await runCli(['signing-key', 'list', tenant.accountId, '--json'], env());
    assert.equal(list.code, 0, list.stderr);
    const listed = JSON.parse(list.stdout) as {
      did: string;
      data: { current: boolean; publicKeyMultibase: string }[];
    };
    assert.equal(listed.did, `did:web:certs.test:issuers:${tenant.accountId}`);
    assert.deepEqual(
      listed.data.map((k) => k.current),
      [false, true],
    );
    for (const k of listed.data) assert.match(k.publicKeyMultibase, /^z6Mk/);
    const text = await runCli(['signing-key', 'list', tenant.accountId], env());
    assert.match(text.stdout, /retired/);
  });

  it('rotate without SIGNING_KEYS_SECRET says so; serve with DATABASE_URL and no secret refuses to start', async () => {
    const tenant = await createTenant(apps[0]!.deps);
    const noSecret = cliEnv({
      DATABASE_URL: testDatabaseUrl(),
      DATA_DIR: dataDir,
      SIGNING_KEYS_SECRET: undefined,
    });
    const rotate = await runCli(['signing-key', 'rotate', tenant.accountId], noSecret);
    assert.notEqual(rotate.code, 0);
    assert.match(rotate.stderr, /SIGNING_KEYS_SECRET is not set/);
    const serve = await runCli(['serve'], noSecret);
    assert.notEqual(serve.code, 0);
    assert.match(serve.stderr, /DATABASE_URL is set but SIGNING_KEYS_SECRET is not/);
    const bad = await runCli(['serve'], { ...noSecret, SIGNING_KEYS_SECRET: 'short' });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /SIGNING_KEYS_SECRET must be 32 random bytes/);
  });

  it('credentials backfill gives older certificates their credential once, revoked ones their bit', async () => {
    const t = apps[0]!;
    const tenant = await createTenant(t.deps);
    const kept = await issueCertificate(t.app, tenant);
    const revoked = await issueCertificate(t.app, tenant);
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${revoked.id}/revoke`,
      headers: tenant.auth,
      payload: {},
    });
    assert.equal(revoke.statusCode, 200);
    // As if issued before credentials existed.
    await t.deps.db.query('DELETE FROM credentials WHERE certificate_id = ANY($1)', [[kept.id, revoked.id]]);
    const none = await t.app.inject({
      method: 'GET',
      url: `/api/v1/certificates/${kept.id}/credential`,
      headers: tenant.auth,
    });
    assert.equal(none.statusCode, 404);
    assert.equal(
      (await t.app.inject({ method: 'GET', url: `/api/v1/verify/${kept.uniqueCode}` })).json().data.signed,
      false,
    );

    const first = await runCli(['credentials', 'backfill', '--account', tenant.accountId, '--json'], env());
    assert.equal(first.code, 0, first.stderr);
    assert.equal((JSON.parse(first.stdout) as { made: number }).made, 2);
    const made = async () =>
      (
        await t.deps.db.query<{ body: Buffer }>(
          'SELECT body FROM credentials WHERE certificate_id = ANY($1) ORDER BY certificate_id',
          [[kept.id, revoked.id]],
        )
      ).rows.map((r) => r.body.toString());
    const once = await made();
    assert.equal(once.length, 2);
    const again = await runCli(['credentials', 'backfill', '--account', tenant.accountId, '--json'], env());
    assert.equal(again.code, 0, again.stderr);
    assert.equal(JSON.parse(again.stdout).made, 0, 'resumable: nothing twice');
    assert.deepEqual(await made(), once, 'ours are left exactly as they were');

    const resolve = async () => t.deps.services.proof.didDocument(tenant.accountId);
    const issued = (
      await t.app.inject({ method: 'GET', url: `/api/v1/certificates/${kept.id}`, headers: tenant.auth })
    ).json().data;
    const credential = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/certificates/${kept.id}/credential`,
        headers: tenant.auth,
      })
    ).json();
    assert.equal(credential.validFrom, issued.issuedAt, 'validFrom is the issue time');
    assert.equal((await referenceVerify(credential, resolve)).verified, true);
    const revokedCredential = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/certificates/${revoked.id}/credential`,
        headers: tenant.auth,
      })
    ).json();
    const { rows } = await t.deps.db.query<{ bit: number }>(
      `SELECT get_bit(bits, ($2::int / 8) * 8 + 7 - ($2::int % 8)) AS bit FROM status_lists WHERE account_id = $1 AND n = $3`,
      [tenant.accountId, Number(revokedCredential.credentialStatus.statusListIndex), 0],
    );
    assert.equal(rows[0]!.bit, 1, 'the revoked certificate is revoked in its status list');
  });

  it('import-pdf makes a PKCS#12 certificate sign the PDFs of every instance, its chain included', async () => {
    const tenant = await createTenant(apps[0]!.deps, { name: 'Chained Academy' });
    const work = await mkdtemp(path.join(os.tmpdir(), 'certsvc-p12-'));
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: work, stdio: 'pipe' });
    ssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '30',
      '-subj',
      '/CN=Test Root CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign',
    );
    ssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'leaf.key',
      '-out',
      'leaf.csr',
      '-subj',
      '/CN=Chained Academy Signer/O=Chained Academy',
    );
    writeFileSync(path.join(work, 'leaf.ext'), 'keyUsage=critical,digitalSignature,nonRepudiation\n');
    ssl(
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '30',
      '-extfile',
      'leaf.ext',
      '-out',
      'leaf.pem',
    );
    ssl(
      'pkcs12',
      '-export',
      '-inkey',
      'leaf.key',
      '-in',
      'leaf.pem',
      '-certfile',
      'ca.pem',
      '-out',
      'modern.p12',
      '-passout',
      'pass:correct horse',
    );
    ssl(
      'pkcs12',
      '-export',
      '-legacy',
      '-inkey',
      'leaf.key',
      '-in',
      'leaf.pem',
      '-out',
      'legacy.p12',
      '-passout',
      'pass:correct horse',
    );
    try {
      const current = async () =>
        (
          await apps[0]!.deps.db.query<{ id: string }>(
            'SELECT id FROM pdf_signing_certificates WHERE account_id = $1 AND retired_at IS NULL',
            [tenant.accountId],
          )
        ).rows[0]?.id;
      await issueCertificate(apps[0]!.app, tenant);
      const generated = await current();
      assert.ok(generated);

      const wrong = await runCli(
        ['signing-key', 'import-pdf', tenant.accountId, '--p12', path.join(work, 'modern.p12')],
        env(),
        'not it\n',
      );
      assert.equal(wrong.code, 2);
      assert.match(wrong.stderr, /passphrase does not open the file/);
      const legacy = await runCli(
        ['signing-key', 'import-pdf', tenant.accountId, '--p12', path.join(work, 'legacy.p12')],
        env(),
        'correct horse\n',
      );
      assert.equal(legacy.code, 2);
      assert.match(legacy.stderr, /legacy PKCS#12 encryption.*openssl pkcs12 -legacy/);
      assert.equal(await current(), generated, 'a refused import changes nothing');

      const imported = await runCli(
        ['signing-key', 'import-pdf', tenant.accountId, '--p12', path.join(work, 'modern.p12'), '--json'],
        env(),
        'correct horse\n',
      );
      assert.equal(imported.code, 0, imported.stderr);
      const cert = JSON.parse(imported.stdout) as {
        id: string;
        subject: string;
        source: string;
        chainLength: number;
      };
      assert.match(cert.subject, /CN=Chained Academy Signer/);
      assert.equal(cert.source, 'imported');
      assert.equal(cert.chainLength, 1);
      assert.doesNotMatch(imported.stdout + imported.stderr, /correct horse|PRIVATE KEY/);

      for (const t of apps) {
        const c = await issueCertificate(t.app, tenant);
        const pdf = (
          await t.app.inject({ method: 'GET', url: `/api/v1/certificates/${c.id}/pdf`, headers: tenant.auth })
        ).rawPayload;
        const out = pdfsig(pdf);
        assert.match(out, /Signer Certificate Common Name: Chained Academy Signer/, out);
        assert.match(out, /Signature is Valid/, out);
        // The chain travels in the signature: OpenSSL validates it up to the root it is given.
        const verified = opensslVerify(cmsOf(pdf), signedContent(pdf), [
          '-CAfile',
          path.join(work, 'ca.pem'),
          '-purpose',
          'any',
        ]);
        assert.match(verified.stderr, /Verification successful/, verified.stderr);
      }

      const rotated = await runCli(['signing-key', 'rotate', tenant.accountId, '--json'], env());
      assert.equal(rotated.code, 0, rotated.stderr);
      assert.equal(
        JSON.parse(rotated.stdout).pdfCertificate.rotated,
        false,
        'an imported certificate is kept',
      );
      assert.equal(await current(), cert.id);
      const list = JSON.parse(
        (await runCli(['signing-key', 'list', tenant.accountId, '--json'], env())).stdout,
      ) as {
        pdfCertificates: { source: string; current: boolean }[];
      };
      assert.deepEqual(
        list.pdfCertificates.map((c) => [c.source, c.current]),
        [
          ['generated', false],
          ['imported', true],
        ],
      );
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
