import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { digest, ES256, generateSalt } from '@sd-jwt/crypto-nodejs';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// A certificate as an SD-JWT VC, checked by @sd-jwt/sd-jwt-vc's verifier with the issuer's key as
// the service publishes it (JWT VC Issuer Metadata, fetched through the app: no network), and its
// revocation read back from the served IETF Token Status List with @sd-jwt/jwt-status-list.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const BASE = 'http://certs.test';

const decodePart = (part: string): Json => JSON.parse(Buffer.from(part, 'base64url').toString());

describe('SD-JWT VC', () => {
  let t: TestApp;
  let tenant: Tenant;
  let holder: { publicKey: Json; privateKey: Json };

  const get = (url: string) => t.app.inject({ method: 'GET', url: url.replace(BASE, '') });

  const issuerKeys = async (iss: string): Promise<Json[]> => {
    const path = new URL(iss).pathname;
    const res = await get(`/.well-known/jwt-vc-issuer${path}`);
    assert.equal(res.statusCode, 200, res.body);
    const metadata = res.json() as Json;
    assert.equal(metadata.issuer, iss);
    return metadata.jwks.keys;
  };

  const statusListOf = async (uri: string) => {
    const res = await get(uri);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/statuslist+jwt');
    return res.body;
  };

  // A verifier that trusts only what the issuer metadata publishes: the key named by the JWT's kid.
  const verifierFor = async (sdJwt: string, opts: { checkStatus: boolean }) => {
    const header = decodePart(sdJwt.split('.')[0]!);
    const payload = decodePart(sdJwt.split('~')[0]!.split('.')[1]!);
    const jwk = (await issuerKeys(payload.iss)).find((k) => k.kid === header.kid);
    assert.ok(jwk, 'the signing key is in the issuer metadata');
    const verifier = await ES256.getVerifier(jwk);
    return new SDJwtVcInstance({
      hasher: digest,
      verifier,
      kbVerifier: async (data, signature, kbPayload) => {
        const cnf = (kbPayload as Json).cnf.jwk;
        return (await ES256.getVerifier(cnf))(data, signature);
      },
      statusListFetcher: statusListOf,
      statusValidator: opts.checkStatus ? undefined : async () => undefined,
    });
  };

  const issueSdJwt = (certificateId: string, owner = tenant) =>
    t.deps.services.proof.issueSdJwtVc({
      accountId: owner.accountId,
      certificateId,
      holderJwk: holder.publicKey,
      now: new Date(),
    });

  const revoke = (id: string, owner = tenant) =>
    t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${id}/revoke`,
      headers: owner.auth,
      payload: { reason: 'Issued in error' },
    });

  const statusBit = async (sdJwt: string) => {
    const { status } = decodePart(sdJwt.split('~')[0]!.split('.')[1]!);
    return getListFromStatusListJWT(await statusListOf(status.status_list.uri)).getStatus(
      status.status_list.idx,
    );
  };

  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
    tenant = await createTenant(t.deps, { name: 'Hopper Navy School' });
    holder = (await ES256.generateKeyPair()) as { publicKey: Json; privateKey: Json };
  });
  after(async () => {
    await t?.close();
  });

  it('issues a dc+sd-jwt the reference verifier accepts, each claim disclosable, bound to the holder', async () => {
    const expiresAt = new Date(Date.now() + 400 * 86_400_000);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: {
        templateId: tenant.templateId,
        recipient: {
          name: 'Grace Brewster Hopper',
          email: 'grace@example.com',
          data: { course: 'COBOL' },
          expiresAt,
        },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const certificate = res.json().data;
    const sdJwt = await issueSdJwt(certificate.id);

    const [jwt, ...disclosures] = sdJwt.split('~');
    assert.equal(disclosures.at(-1), '', 'ends with ~ (no key binding yet)');
    const header = decodePart(jwt!.split('.')[0]!);
    assert.equal(header.typ, 'dc+sd-jwt');
    assert.equal(header.alg, 'ES256');
    const signed = decodePart(jwt!.split('.')[1]!);
    assert.equal(signed._sd.length, 5, 'five disclosable claims');
    for (const claim of ['name', 'achievement_title', 'issuer_name', 'issuance_date', 'expiry_date'])
      assert.ok(!(claim in signed), `${claim} only in a disclosure`);
    assert.doesNotMatch(Buffer.from(jwt!.split('.')[1]!, 'base64url').toString(), /Grace/);

    const sdjwt = await verifierFor(sdJwt, { checkStatus: true });
    const { payload } = await sdjwt.verify(sdJwt);
    assert.equal(payload.iss, `${BASE}/issuers/${tenant.accountId}`);
    assert.equal(payload.vct, 'urn:eu.europa.ec.eudi:learning:credential:1');
    assert.deepEqual(payload.cnf, { jwk: holder.publicKey });
    assert.equal(payload.name, 'Grace Brewster Hopper');
    assert.equal(payload.achievement_title, certificate.title);
    assert.equal(payload.issuer_name, 'Hopper Navy School');
    assert.equal(payload.issuance_date, certificate.issuedAt.slice(0, 10));
    assert.equal(payload.expiry_date, certificate.expiresAt.slice(0, 10));
    assert.equal(payload.exp, Math.floor(new Date(certificate.expiresAt).getTime() / 1000));
    assert.equal(typeof payload.iat, 'number');
    assert.match(
      payload.status!.status_list.uri,
      new RegExp(`^${BASE}/issuers/${tenant.accountId}/token-status/\\d+$`),
    );

    // The holder presents it with a key-binding JWT signed by its key: the verifier checks it with cnf.jwk.
    const presented = await new SDJwtVcInstance({
      hasher: digest,
      saltGenerator: generateSalt,
      kbSigner: await ES256.getSigner(holder.privateKey),
      kbSignAlg: 'ES256',
    }).present(
      sdJwt,
      { name: true },
      {
        kb: {
          payload: {
            iat: Math.floor(Date.now() / 1000),
            aud: 'https://verifier.example',
            nonce: 'n-0S6_WzA2Mj',
          },
        },
      },
    );
    const bound = await sdjwt.verify(presented, { keyBindingNonce: 'n-0S6_WzA2Mj' });
    assert.ok(bound.kb, 'key binding verified');
    assert.equal(bound.payload.name, 'Grace Brewster Hopper');
    assert.ok(!('issuer_name' in bound.payload), 'undisclosed claims stay hidden');

    // Another holder's key cannot bind it.
    const stranger = await ES256.generateKeyPair();
    const forged = await new SDJwtVcInstance({
      hasher: digest,
      saltGenerator: generateSalt,
      kbSigner: await ES256.getSigner(stranger.privateKey),
      kbSignAlg: 'ES256',
    }).present(
      sdJwt,
      { name: true },
      {
        kb: { payload: { iat: Math.floor(Date.now() / 1000), aud: 'https://verifier.example', nonce: 'n' } },
      },
    );
    await assert.rejects(sdjwt.verify(forged, { keyBindingNonce: 'n' }));
  });

  it('publishes the key in the DID document, as a JsonWebKey in assertionMethod', async () => {
    const c = await issueCertificate(t.app, tenant);
    const sdJwt = await issueSdJwt(c.id);
    const kid = decodePart(sdJwt.split('.')[0]!).kid;
    const [jwk] = await issuerKeys(`${BASE}/issuers/${tenant.accountId}`);
    const res = await get(`/issuers/${tenant.accountId}/did.json`);
    assert.equal(res.statusCode, 200);
    const did = res.json() as Json;
    assert.ok(did['@context'].includes('https://w3id.org/security/jwk/v1'));
    const method = did.verificationMethod.find((m: Json) => m.type === 'JsonWebKey');
    assert.equal(method.id, `${did.id}#${kid}`);
    assert.equal(method.controller, did.id);
    assert.deepEqual(method.publicKeyJwk, jwk);
    assert.ok(did.assertionMethod.includes(method.id));
    assert.ok(!JSON.stringify(did).includes('"d"'), 'no private part');
  });

  it('a revocation through the API sets the bit of the served Token Status List', async () => {
    const c = await issueCertificate(t.app, tenant);
    const other = await issueCertificate(t.app, tenant);
    const sdJwt = await issueSdJwt(c.id);
    const otherSdJwt = await issueSdJwt(other.id);
    const again = await issueSdJwt(c.id);
    const statusOf = (s: string) => decodePart(s.split('~')[0]!.split('.')[1]!).status.status_list;
    assert.deepEqual(statusOf(again), statusOf(sdJwt), "a certificate's SD-JWT VCs share one entry");
    assert.equal(await statusBit(sdJwt), 0);
    await (await verifierFor(sdJwt, { checkStatus: true })).verify(sdJwt);

    const revoked = await revoke(c.id);
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal(await statusBit(sdJwt), 1, 'revoked');
    assert.equal(await statusBit(otherSdJwt), 0, 'the other certificate is not');
    await assert.rejects(
      (await verifierFor(sdJwt, { checkStatus: true })).verify(sdJwt),
      /Status is not valid/,
    );
    await (await verifierFor(otherSdJwt, { checkStatus: true })).verify(otherSdJwt);

    // The status list JWT itself: typ, the issuer's key, sub its own URI, iat and a short ttl.
    const uri = statusOf(sdJwt).uri;
    const list = await statusListOf(uri);
    const header = decodePart(list.split('.')[0]!);
    const payload = decodePart(list.split('.')[1]!);
    assert.equal(header.typ, 'statuslist+jwt');
    assert.equal(header.alg, 'ES256');
    assert.equal(payload.sub, uri);
    assert.equal(typeof payload.iat, 'number');
    assert.ok(payload.ttl > 0 && payload.ttl <= 300);
    assert.equal(payload.status_list.bits, 1);
    const [jwk] = await issuerKeys(`${BASE}/issuers/${tenant.accountId}`);
    const [input, signature] = [list.split('.').slice(0, 2).join('.'), list.split('.')[2]!];
    assert.equal(await (await ES256.getVerifier(jwk!))(input, signature), true);

    // A revoked certificate gets no new SD-JWT VC.
    await assert.rejects(issueSdJwt(c.id), { code: 'conflict' });
  });

  it('reissuing (the old certificate superseded) sets its bit too', async () => {
    const c = await issueCertificate(t.app, tenant);
    const sdJwt = await issueSdJwt(c.id);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${c.id}/reissue`,
      headers: tenant.auth,
      payload: { recipient: { name: 'Grace Hopper', email: 'grace@example.com', data: { course: 'COBOL' } } },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(await statusBit(sdJwt), 1);
  });

  it('a revocation that fails to commit leaves the bit unset', async () => {
    const c = await issueCertificate(t.app, tenant);
    const sdJwt = await issueSdJwt(c.id);
    // A deferred check that fails at COMMIT, on this one certificate: the revocation's transaction
    // does all its work (the bits included) and then does not commit.
    const fn = `refuse_commit_${c.id.replaceAll('-', '_')}`;
    await t.deps.db.query(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'commit refused by the test'; END $$`);
    await t.deps.db.query(`CREATE CONSTRAINT TRIGGER ${fn} AFTER UPDATE ON certificates
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.id = '${c.id}') EXECUTE FUNCTION ${fn}()`);
    try {
      const refused = await revoke(c.id);
      assert.notEqual(refused.statusCode, 200);
      assert.equal(await statusBit(sdJwt), 0, 'not revoked');
      const status = await t.app.inject({
        method: 'GET',
        url: `/api/v1/certificates/${c.id}`,
        headers: tenant.auth,
      });
      assert.equal(status.json().data.status, 'Issued');
    } finally {
      await t.deps.db.query(`DROP TRIGGER ${fn} ON certificates`);
      await t.deps.db.query(`DROP FUNCTION ${fn}()`);
    }
    assert.equal((await revoke(c.id)).statusCode, 200);
    assert.equal(await statusBit(sdJwt), 1);
  });

  it('refuses another account, a draft or unknown certificate, and a private holder key', async () => {
    const c = await issueCertificate(t.app, tenant);
    const stranger = await createTenant(t.deps, { name: 'Other School' });
    await assert.rejects(issueSdJwt(c.id, stranger), { code: 'not_found' });
    await assert.rejects(issueSdJwt('0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6d'), { code: 'not_found' });
    await assert.rejects(
      t.deps.services.proof.issueSdJwtVc({
        accountId: tenant.accountId,
        certificateId: c.id,
        holderJwk: holder.privateKey,
        now: new Date(),
      }),
      { code: 'validation_error' },
    );
    const { rows } = await t.deps.db.query('SELECT 1 FROM token_status_entries WHERE certificate_id = $1', [
      c.id,
    ]);
    assert.equal(rows.length, 0, 'nothing taken for refused requests');
    assert.equal((await get(`/issuers/${stranger.accountId}/token-status/0`)).statusCode, 404);
    assert.equal((await get(`/issuers/${tenant.accountId}/token-status/x`)).statusCode, 422);
    assert.equal(
      (await get('/.well-known/jwt-vc-issuer/issuers/0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6d')).statusCode,
      404,
    );
  });
});
