import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { digest, ES256, generateSalt } from '@sd-jwt/crypto-nodejs';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { subjectWithEntry } from '../../src/modules/proof/sd-jwt-status.repository.js';
import { checkVault } from '../../src/modules/proof/vault-check.js';
import { createKeyVault, WrongMasterKeyError } from '../../src/platform/proof/key-vault.js';
import { cliEnv, runCli } from '../cli/run-cli.js';
import {
  createTenant,
  issueCertificate,
  startTestApp,
  testDatabaseUrl,
  type Tenant,
  type TestApp,
} from '../helpers/app.js';

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

  it('a master key that does not open the SD-JWT keys refuses to start, with no credential key stored', async () => {
    await issueSdJwt((await issueCertificate(t.app, tenant)).id);
    const client = await t.deps.db.pool.connect();
    try {
      await client.query('BEGIN');
      // In this session only, an empty signing_keys (a temporary table comes first in the search
      // path): as on a service whose only keys are SD-JWT keys.
      await client.query('CREATE TEMP TABLE signing_keys (LIKE public.signing_keys) ON COMMIT DROP');
      await checkVault(client, createKeyVault(t.deps.config.signingKeysSecret!));
      await assert.rejects(checkVault(client, createKeyVault(Buffer.alloc(32, 7))), WrongMasterKeyError);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('SD-JWT VCs asked for at once: one entry per certificate, distinct between certificates', async () => {
    const [a, b] = [await issueCertificate(t.app, tenant), await issueCertificate(t.app, tenant)];
    const fresh = await createTenant(t.deps, { name: 'Fresh Academy' });
    const c = await issueCertificate(t.app, fresh);
    const made = await Promise.all(
      [a, a, a, b, b].map((x) => issueSdJwt(x.id)).concat([issueSdJwt(c.id, fresh), issueSdJwt(c.id, fresh)]),
    );
    const entryOf = (s: string) =>
      JSON.stringify(decodePart(s.split('~')[0]!.split('.')[1]!).status.status_list);
    assert.equal(new Set(made.slice(0, 3).map(entryOf)).size, 1);
    assert.equal(new Set(made.slice(3, 5).map(entryOf)).size, 1);
    assert.notEqual(entryOf(made[0]!), entryOf(made[3]!));
    assert.equal(new Set(made.slice(5).map(entryOf)).size, 1);
    const kids = new Set(made.slice(5).map((s) => decodePart(s.split('.')[0]!).kid));
    assert.equal(kids.size, 1, 'one first key for the fresh account');
    const { rows } = await t.deps.db.query(
      'SELECT count(*)::int AS n FROM token_status_entries WHERE certificate_id = ANY($1)',
      [[a.id, b.id, c.id]],
    );
    assert.equal(rows[0].n, 3);
  });

  it("a claim's entry commits without waiting for the disk (the claim's record flushes it); others wait", async () => {
    await issueSdJwt((await issueCertificate(t.app, tenant)).id); // the account's list exists
    const c = await issueCertificate(t.app, tenant);
    const syncCommitAfter = (flush: 'now' | 'later') =>
      t.deps.db.transaction(async (tx) => {
        const read = await subjectWithEntry(tx, {
          accountId: tenant.accountId,
          certificateId: c.id,
          now: new Date(),
          flush,
        });
        assert.ok(read?.entry, 'the entry is taken (or read) in the one statement');
        return (await tx.query('SHOW synchronous_commit')).rows[0].synchronous_commit;
      });
    assert.equal(await syncCommitAfter('later'), 'off');
    assert.equal(await syncCommitAfter('now'), 'on');
  });

  it('moves to the next Token Status List once one is half full; an expired certificate gets none', async () => {
    const owner = await createTenant(t.deps, { name: 'Full List Academy' });
    await issueSdJwt((await issueCertificate(t.app, owner)).id, owner);
    await t.deps.db.query('UPDATE token_status_lists SET used = 65536 WHERE account_id = $1 AND n = 0', [
      owner.accountId,
    ]);
    const c = await issueCertificate(t.app, owner);
    const sdJwt = await issueSdJwt(c.id, owner);
    const { uri } = decodePart(sdJwt.split('~')[0]!.split('.')[1]!).status.status_list;
    assert.equal(uri, `${BASE}/issuers/${owner.accountId}/token-status/1`);
    assert.equal((await revoke(c.id, owner)).statusCode, 200);
    assert.equal(await statusBit(sdJwt), 1);

    const later = await issueCertificate(t.app, owner);
    const { rows } = await t.deps.db.query<{ expires_at: Date }>(
      "UPDATE certificates SET expires_at = issued_at + interval '1 day' WHERE id = $1 RETURNING expires_at",
      [later.id],
    );
    await assert.rejects(
      t.deps.services.proof.issueSdJwtVc({
        accountId: owner.accountId,
        certificateId: later.id,
        holderJwk: holder.publicKey,
        now: new Date(rows[0]!.expires_at.getTime() + 1000),
      }),
      { code: 'conflict' },
    );
  });

  it('certsvc signing-key list shows the SD-JWT key, public parts only', async () => {
    const owner = await createTenant(t.deps, { name: 'Listed Academy' });
    const env = cliEnv({
      DATABASE_URL: testDatabaseUrl(),
      DATA_DIR: t.deps.config.dataDir,
      PUBLIC_BASE_URL: BASE,
    });
    const before = await runCli(['signing-key', 'list', owner.accountId, '--json'], env);
    assert.equal(before.code, 0, before.stderr);
    assert.deepEqual(JSON.parse(before.stdout).sdJwtKeys, []);
    const sdJwt = await issueSdJwt((await issueCertificate(t.app, owner)).id, owner);
    const listed = await runCli(['signing-key', 'list', owner.accountId, '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const [key] = JSON.parse(listed.stdout).sdJwtKeys;
    assert.equal(key.kid, decodePart(sdJwt.split('.')[0]!).kid);
    assert.deepEqual(key.jwk, (await issuerKeys(`${BASE}/issuers/${owner.accountId}`))[0]);
    assert.equal(key.current, true);
    const text = await runCli(['signing-key', 'list', owner.accountId], env);
    assert.match(text.stdout, new RegExp(`SD-JWT VC keys \\(ES256\\):\\n  ${key.kid}  current`));
  });
});
