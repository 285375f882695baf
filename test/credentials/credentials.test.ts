import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { createPrivateKey } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { createApp } from '../../src/app.js';
import { createDeps, createLogger } from '../../src/deps.js';
import { createKeyVault } from '../../src/platform/proof/key-vault.js';
import { createTenant, issueCertificate, testConfig, type Tenant, type TestApp } from '../helpers/app.js';
import { worldNames } from '../helpers/world-names.js';
import { referenceLoader, referenceVerify } from './reference.js';

// Every certificate is a signed Open Badges 3.0 credential, checked by implementations we did not
// write, resolving the issuer's did:web over HTTP from the running service (no other network).

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('signed credentials', () => {
  let t: TestApp;
  let base: string;
  let logs = '';
  let tenant: Tenant;

  // did:web:certs.test:issuers:<id> and http://certs.test/... live at this test's server.
  const local = (url: string) => url.replace('http://certs.test', base);
  const resolveDid = async (did: string) => {
    const id = did.split(':').pop()!;
    const res = await fetch(`${base}/issuers/${id}/did.json`);
    assert.equal(res.status, 200);
    return (await res.json()) as Json;
  };
  const loader = referenceLoader(resolveDid);
  const documentLoader = async (url: string) => {
    if (url.startsWith('http://certs.test/issuers/')) {
      const res = await fetch(local(url));
      return { contextUrl: null, document: await res.json(), documentUrl: url };
    }
    return loader(url);
  };
  const statusOf = (credential: unknown) =>
    checkStatus({
      credential,
      documentLoader,
      suite: new DataIntegrityProof({ cryptosuite }),
      verifyBitstringStatusListCredential: true,
      verifyMatchingIssuers: true,
    });

  const credentialOf = async (id: string, auth = tenant.auth) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/certificates/${id}/credential`,
      headers: auth,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^application\/vc/);
    return { bytes: res.rawPayload, json: res.json() as Json };
  };

  before(async () => {
    const config = testConfig({ LOG_LEVEL: 'debug', RATE_LIMIT_MAX: '100000' });
    const sink = new Writable({
      write(chunk, _enc, done) {
        logs += chunk.toString();
        done();
      },
    });
    const deps = await createDeps(config, { logger: createLogger(config, sink) });
    const app = await createApp(deps);
    t = {
      app,
      deps,
      close: async () => {
        await app.close();
        await deps.close();
      },
    };
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    tenant = await createTenant(t.deps, { name: 'Babbage “Engines” Academy' });
  });
  after(async () => {
    await t?.close();
  });

  it('issues a credential per certificate that the reference verifier accepts; a changed field fails', async () => {
    const c = await issueCertificate(t.app, tenant, {
      name: 'Zoë Ångström',
      email: 'zoe@example.com',
      data: { course: 'Safe Lifting' },
    });
    const { bytes, json } = await credentialOf(c.id);
    assert.deepEqual(json['@context'], [
      'https://www.w3.org/ns/credentials/v2',
      'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json',
    ]);
    assert.deepEqual(json.type, ['VerifiableCredential', 'OpenBadgeCredential']);
    assert.equal(json.issuer.id, `did:web:certs.test:issuers:${tenant.accountId}`);
    assert.equal(json.issuer.name, 'Babbage “Engines” Academy');
    assert.equal(json.credentialSubject.identifier[0].identityHash, 'Zoë Ångström');
    assert.equal(json.credentialSubject.achievement.name, 'Safe Lifting');
    assert.equal(json.proof.cryptosuite, 'eddsa-rdfc-2022');
    assert.doesNotMatch(bytes.toString(), /zoe@example\.com/);
    const issued = (
      await t.app.inject({ method: 'GET', url: `/api/v1/certificates/${c.id}`, headers: tenant.auth })
    ).json().data;
    assert.equal(json.validFrom, issued.issuedAt);
    assert.equal((await referenceVerify(json, resolveDid)).verified, true);
    for (const change of [
      (x: Json) => (x.credentialSubject.identifier[0].identityHash = 'Zoe Angstrom'),
      (x: Json) => (x.validFrom = '2020-01-01T00:00:00.000Z'),
      (x: Json) => (x.credentialSubject.achievement.name = 'Heavy Lifting'),
    ]) {
      const copy = structuredClone(json);
      change(copy);
      assert.equal((await referenceVerify(copy, resolveDid)).verified, false);
    }
    // The public route serves the same bytes, without a key, and counts no verification.
    const pub = await t.app.inject({
      method: 'GET',
      url: `/api/v1/verify/${c.uniqueCode.toLowerCase()}/credential`,
      remoteAddress: '10.9.0.1',
    });
    assert.equal(pub.statusCode, 200);
    assert.deepEqual(pub.rawPayload, bytes);
    const verification = (
      await t.app.inject({ method: 'GET', url: `/api/v1/verify/${c.uniqueCode}`, remoteAddress: '10.9.0.2' })
    ).json().data;
    assert.equal(verification.signed, true);
    assert.equal(verification.issuerDid, json.issuer.id);
    assert.equal(verification.credentialUrl, `http://certs.test/api/v1/verify/${c.uniqueCode}/credential`);
    const again = await credentialOf(c.id);
    assert.deepEqual(again.bytes, bytes, 'frozen');
  });

  it('signs every certificate of a batch of world names, each at its own random status entry', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: {
        templateId: tenant.templateId,
        recipients: worldNames.map((w, i) => ({
          name: w.name,
          email: `w${i}@example.com`,
          data: { course: `Course ${w.script}` },
        })),
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const created = (res.json().data.results as Json[]).filter((r) => r.status === 'created');
    assert.equal(created.length, worldNames.length);
    const indexes = new Set<string>();
    for (const r of created) {
      const { json } = await credentialOf(r.certificate.id);
      assert.equal((await referenceVerify(json, resolveDid)).verified, true, r.certificate.recipientName);
      indexes.add(json.credentialStatus.statusListIndex);
    }
    assert.equal(indexes.size, created.length, 'distinct entries');
    const sorted = [...indexes].map(Number);
    assert.notDeepEqual(
      sorted,
      [...sorted].sort((a, b) => a - b),
      'not handed out in order',
    );
  });

  it('moves to the next status list once one is half full, within a batch, and the next issue follows it', async () => {
    const other = await createTenant(t.deps, { name: 'Half Full Institute' });
    await issueCertificate(t.app, other); // list 0 exists
    // List 0 one entry short of its fill limit (half of 131,072).
    await t.deps.db.query('UPDATE status_lists SET used = 65535 WHERE account_id = $1 AND n = 0', [
      other.accountId,
    ]);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: other.auth,
      payload: {
        templateId: other.templateId,
        recipients: [0, 1, 2].map((i) => ({
          name: `Roll ${i}`,
          email: `roll${i}@example.com`,
          data: { course: 'Rollover' },
        })),
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const lists = [];
    for (const r of res.json().data.results as Json[]) {
      const { json } = await credentialOf(r.certificate.id, other.auth);
      lists.push(json.credentialStatus.statusListCredential.split('/').pop());
    }
    assert.deepEqual(lists.sort(), ['0', '1', '1']);
    const next = await issueCertificate(t.app, other);
    const { json } = await credentialOf(next.id, other.auth);
    assert.match(json.credentialStatus.statusListCredential, /\/status\/1$/);
    const { rows } = await t.deps.db.query(
      'SELECT n, used FROM status_lists WHERE account_id = $1 ORDER BY n',
      [other.accountId],
    );
    assert.deepEqual(rows, [
      { n: 0, used: 65536 },
      { n: 1, used: 3 },
    ]);
  });

  it('revocation sets exactly its bit in the signed status list, which an independent checker reads', async () => {
    const c = await issueCertificate(t.app, tenant);
    const { json } = await credentialOf(c.id);
    const listUrl = json.credentialStatus.statusListCredential as string;
    assert.equal(listUrl, `http://certs.test/issuers/${tenant.accountId}/status/0`);
    const bitsOf = async () => {
      const list = (await (await fetch(local(listUrl))).json()) as Json;
      assert.equal((await referenceVerify(list, resolveDid)).verified, true, 'the list is signed');
      const encoded = list.credentialSubject.encodedList as string;
      assert.equal(encoded[0], 'u');
      return gunzipSync(Buffer.from(encoded.slice(1), 'base64url'));
    };
    const before = await bitsOf();
    assert.ok(before.length * 8 >= 131_072);
    const status = (await statusOf(json)) as Json;
    assert.equal(status.verified, true, JSON.stringify(status).slice(0, 300));
    assert.equal(status.results[0].status, false, 'not revoked yet');

    const revoked = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${c.id}/revoke`,
      headers: tenant.auth,
      payload: {},
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
    const afterBits = await bitsOf();
    const index = Number(json.credentialStatus.statusListIndex);
    const bit = (b: Buffer, i: number) => (b[i >> 3]! >> (7 - (i & 7))) & 1;
    assert.equal(bit(before, index), 0);
    assert.equal(bit(afterBits, index), 1);
    let changed = 0;
    for (let i = 0; i < afterBits.length; i++) if (afterBits[i] !== before[i]) changed += 1;
    assert.equal(changed, 1, 'one byte changed');
    const checked = (await statusOf(json)) as Json;
    assert.equal(checked.verified, true);
    assert.equal(checked.results[0].status, true, 'revoked, says the independent checker');
  });

  it('keeps credentials signed before a rotation verifying; new ones use the new key at once', async () => {
    const owner = await createTenant(t.deps);
    const first = await issueCertificate(t.app, owner);
    const firstCredential = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/certificates/${first.id}/credential`,
        headers: owner.auth,
      })
    ).json();
    const rotated = await t.deps.services.signingKeys.rotateCredentialKey(SYSTEM, owner.accountId);
    const second = await issueCertificate(t.app, owner);
    const secondCredential = (
      await t.app.inject({
        method: 'GET',
        url: `/api/v1/certificates/${second.id}/credential`,
        headers: owner.auth,
      })
    ).json();
    assert.equal(secondCredential.proof.verificationMethod, rotated.verificationMethod);
    assert.notEqual(firstCredential.proof.verificationMethod, rotated.verificationMethod);
    const did = await resolveDid(`did:web:certs.test:issuers:${owner.accountId}`);
    assert.equal(did.assertionMethod.length, 2);
    assert.equal((await referenceVerify(firstCredential, resolveDid)).verified, true);
    assert.equal((await referenceVerify(secondCredential, resolveDid)).verified, true);
  });

  it('never shows a private key or the master key; a wrong master key refuses to start', async () => {
    const { rows } = await t.deps.db.query<{ id: string; private_key: Buffer }>(
      'SELECT id, private_key FROM signing_keys WHERE account_id = $1',
      [tenant.accountId],
    );
    const vault = createKeyVault(t.deps.config.signingKeysSecret!);
    const pkcs8 = vault.open(rows[0]!.private_key, rows[0]!.id);
    const seed = pkcs8.subarray(-32);
    const did = JSON.stringify(await resolveDid(`did:web:certs.test:issuers:${tenant.accountId}`));
    for (const form of [
      seed.toString('hex'),
      seed.toString('base64'),
      seed.toString('base64url'),
      t.deps.config.signingKeysSecret!.toString('hex'),
    ]) {
      assert.ok(!did.includes(form));
      assert.ok(!logs.includes(form));
    }
    assert.ok(!rows[0]!.private_key.includes(seed), 'stored sealed');
    // The PDF signing key (ECDSA P-256, its 32-byte private scalar) is nowhere either, nor in the PDFs.
    const pdfKey = await t.deps.db.query<{ id: string; private_key: Buffer }>(
      'SELECT id, private_key FROM pdf_signing_certificates WHERE account_id = $1',
      [tenant.accountId],
    );
    const ecKey = createPrivateKey({
      key: vault.open(pdfKey.rows[0]!.private_key, pdfKey.rows[0]!.id),
      format: 'der',
      type: 'pkcs8',
    });
    const scalar = Buffer.from(ecKey.export({ format: 'jwk' }).d!, 'base64url');
    const c = await issueCertificate(t.app, tenant);
    const pdf = (
      await t.app.inject({ method: 'GET', url: `/api/v1/certificates/${c.id}/pdf`, headers: tenant.auth })
    ).rawPayload;
    for (const form of [scalar.toString('hex'), scalar.toString('base64'), scalar.toString('base64url')]) {
      assert.ok(!logs.includes(form));
      assert.ok(!pdf.toString('latin1').includes(form));
    }
    assert.ok(!pdf.includes(scalar));
    assert.ok(!pdfKey.rows[0]!.private_key.includes(scalar), 'stored sealed');
    const wrong = testConfig({ SIGNING_KEYS_SECRET: 'ab'.repeat(32) });
    await assert.rejects(
      createDeps(wrong, { logger: createLogger(wrong) }),
      /SIGNING_KEYS_SECRET does not open the stored signing keys/,
    );
  });
});
