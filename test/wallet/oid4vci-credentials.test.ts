import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import { createApp } from '../../src/app.js';
import { createDeps, createLogger } from '../../src/deps.js';
import { freePort } from '../../src/platform/net.js';
import { mintClaimToken } from '../../src/modules/shared/claim-tokens.js';
import { recordClaimAtOnce } from '../../src/modules/wallet/claims.repository.js';
import { referenceLoader, referenceVerify } from '../credentials/reference.js';
import { createTenant, issueCertificate, testConfig, type Tenant, type TestApp } from '../helpers/app.js';
import {
  ed25519Holder,
  p256Holder,
  prepareCredentialRequest,
  walletClient,
  type Holder,
} from './oid4vci-wallet.js';

// The credentials a wallet receives over OID4VCI, end to end on loopback: the @openid4vc/openid4vci
// client resolves the offer, takes the token, gets a nonce and sends a key proof of a fresh key.
// The Open Badges 3.0 credential is checked by digitalbazaar's verifier and status checker, the
// SD-JWT VC by @sd-jwt/sd-jwt-vc and @sd-jwt/jwt-status-list; after a revocation through the API
// both say revoked. Every claim is counted and recorded.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const decodePart = (part: string): Json => JSON.parse(Buffer.from(part, 'base64url').toString());

describe('OID4VCI: the credentials', () => {
  let t: TestApp;
  let base: string;
  let tenant: Tenant;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const config = testConfig({ PUBLIC_BASE_URL: base, RATE_LIMIT_MAX: '100000' });
    const deps = await createDeps(config, { logger: createLogger(config) });
    const app = await createApp(deps);
    t = { app, deps, close: async () => (await app.close(), await deps.close()) };
    await app.listen({ host: '127.0.0.1', port });
    tenant = await createTenant(deps, { name: 'Somerville College' });
  });
  after(async () => {
    await t?.close();
  });

  const resolveDid = async (did: string) => {
    const res = await fetch(`${base}/issuers/${did.split(':').pop()}/did.json`);
    assert.equal(res.status, 200);
    return (await res.json()) as Json;
  };
  const loader = referenceLoader(resolveDid);
  const documentLoader = async (url: string) => {
    if (url.startsWith(`${base}/issuers/`)) {
      return { contextUrl: null, document: await (await fetch(url)).json(), documentUrl: url };
    }
    return loader(url);
  };
  const revoked = async (credential: unknown) => {
    const result = await checkStatus({
      credential,
      documentLoader,
      suite: new DataIntegrityProof({ cryptosuite }),
      verifyBitstringStatusListCredential: true,
      verifyMatchingIssuers: true,
    });
    assert.equal(result.verified, true, String(result.error));
    return (result as unknown as { results: { status: boolean }[] }).results[0]!.status;
  };
  const revoke = async (id: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${id}/revoke`,
      headers: tenant.auth,
      payload: { reason: 'Issued in error' },
    });
    assert.equal(res.statusCode, 200, res.body);
  };
  const claimsOf = async (certificateId: string) =>
    (
      await t.deps.db.query(
        `SELECT holder_did, protocol, format FROM credential_claims WHERE certificate_id = $1 ORDER BY claimed_at`,
        [certificateId],
      )
    ).rows;

  // The wallet's whole flow for one configuration; the answer's single credential.
  async function claim(token: string, holder: Holder, configuration: string) {
    const { jwt, accessToken, request } = await prepareCredentialRequest(base, token, holder, configuration);
    const response = await request();
    const credentials = response.credentialResponse.credentials as { credential: unknown }[];
    assert.equal(credentials.length, 1);
    assert.match(response.response.headers.get('server-timing') ?? '', /^app;dur=\d+\.\d{2}$/);
    return { credential: credentials[0]!.credential, jwt, accessToken };
  }

  const newClaim = async () => {
    const c = await issueCertificate(t.app, tenant, {
      name: 'Dorothy Hodgkin',
      email: 'dorothy@example.com',
      data: { course: 'X-ray Crystallography' },
    });
    return { certificate: c, token: await mintClaimToken(t.deps.db, c.id, new Date()) };
  };

  it('an Ed25519 did:key holder receives the Open Badges 3.0 credential bound to it; revoking revokes it', async () => {
    const { certificate, token } = await newClaim();
    const holder = await ed25519Holder();
    const { credential } = await claim(token, holder, 'OpenBadgeCredential_ldp_vc');
    const vc = credential as Json;
    assert.deepEqual(vc.type, ['VerifiableCredential', 'OpenBadgeCredential']);
    assert.equal(vc.credentialSubject.id, holder.did, "the subject is the holder's did:key");
    assert.equal(vc.credentialSubject.achievement.name, 'X-ray Crystallography');
    const verified = await referenceVerify(vc, resolveDid);
    assert.equal(verified.verified, true, JSON.stringify(verified.error));
    assert.equal(await revoked(vc), false);
    assert.deepEqual(await claimsOf(certificate.id), [
      { holder_did: holder.did, protocol: 'OID4VCI', format: 'ldp_vc' },
    ]);
    const used = await t.deps.db.query('SELECT claims_used FROM claim_tokens WHERE certificate_id = $1', [
      certificate.id,
    ]);
    assert.equal(used.rows[0].claims_used, 1);

    await revoke(certificate.id);
    assert.equal(await revoked(vc), true, 'the frozen status entry is shared: revoked');
  });

  it('a P-256 holder sending a jwk header gets the did:key of that key as subject', async () => {
    const { certificate, token } = await newClaim();
    const holder = p256Holder();
    const { credential } = await claim(token, holder, 'OpenBadgeCredential_ldp_vc');
    const subject = (credential as Json).credentialSubject.id as string;
    assert.match(subject, /^did:key:zDn[1-9A-HJ-NP-Za-km-z]+$/, 'a P-256 did:key');
    assert.equal((await referenceVerify(credential, resolveDid)).verified, true);
    assert.deepEqual(await claimsOf(certificate.id), [
      { holder_did: subject, protocol: 'OID4VCI', format: 'ldp_vc' },
    ]);
  });

  it('issues the dc+sd-jwt learning credential bound to the holder key; verified, then revoked', async () => {
    const { certificate, token } = await newClaim();
    const holder = p256Holder();
    const { credential } = await claim(token, holder, 'LearningCredential_sd_jwt');
    assert.equal(typeof credential, 'string');
    const sdJwt = credential as string;
    const header = decodePart(sdJwt.split('.')[0]!);
    const payload = decodePart(sdJwt.split('~')[0]!.split('.')[1]!);
    const metadata = (await (
      await fetch(`${base}/.well-known/jwt-vc-issuer/issuers/${tenant.accountId}`)
    ).json()) as Json;
    const jwk = (metadata.jwks.keys as Json[]).find((k) => k.kid === header.kid);
    assert.ok(jwk, 'the signing key is published');
    const fetchList = async (uri: string) => (await fetch(uri)).text();
    const verifier = new SDJwtVcInstance({
      hasher: digest,
      verifier: await ES256.getVerifier(jwk),
      statusListFetcher: fetchList,
    });
    const verified = await verifier.verify(sdJwt);
    assert.equal(verified.payload.vct, 'urn:eu.europa.ec.eudi:learning:credential:1');
    assert.equal(verified.payload.iss, `${base}/issuers/${tenant.accountId}`);
    assert.equal(verified.payload.name, 'Dorothy Hodgkin');
    assert.deepEqual((verified.payload.cnf as Json).jwk, (holder.signer as { publicJwk: Json }).publicJwk);
    const bit = async () =>
      getListFromStatusListJWT(await fetchList(payload.status.status_list.uri)).getStatus(
        payload.status.status_list.idx,
      );
    assert.equal(await bit(), 0);
    const [row] = await claimsOf(certificate.id);
    assert.equal(row.format, 'dc+sd-jwt');
    assert.match(row.holder_did, /^did:key:zDn/);

    await revoke(certificate.id);
    assert.equal(await bit(), 1, 'revoked in the Token Status List');
    await assert.rejects(verifier.verify(sdJwt), 'the verifier refuses a revoked credential');
  });

  it('an SD-JWT VC request whose key proof is refused records nothing; its later claim uses the one status entry', async () => {
    const { certificate, token } = await newClaim();
    const holder = p256Holder();
    const { jwt, accessToken } = await prepareCredentialRequest(
      base,
      token,
      holder,
      'LearningCredential_sd_jwt',
    );
    const [head, body, signature] = jwt.split('.');
    const forged = `${head}.${body}.${signature!.slice(0, -4)}${signature!.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`;
    const refused = await fetch(`${base}/issuers/${tenant.accountId}/oid4vci/credential`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        credential_configuration_id: 'LearningCredential_sd_jwt',
        proofs: { jwt: [forged] },
      }),
    });
    assert.equal(refused.status, 400);
    assert.equal(((await refused.json()) as Json).error, 'invalid_proof');
    assert.equal((await claimsOf(certificate.id)).length, 0, 'no claim recorded');
    const nonce = decodePart(body!).nonce as string;
    const unused = await t.deps.db.query('SELECT used_at FROM oid4vci_nonces WHERE nonce_sha256 = $1', [
      createHash('sha256').update(nonce).digest(),
    ]);
    assert.equal(unused.rows[0]?.used_at, null, 'the nonce is still unused');

    const { credential } = await claim(token, holder, 'LearningCredential_sd_jwt');
    const status = decodePart((credential as string).split('~')[0]!.split('.')[1]!).status.status_list;
    const { rows } = await t.deps.db.query<{ idx: number }>(
      'SELECT idx FROM token_status_entries WHERE certificate_id = $1',
      [certificate.id],
    );
    assert.deepEqual(
      rows.map((r) => r.idx),
      [status.idx],
      "one entry, the credential's",
    );
    assert.equal((await claimsOf(certificate.id)).length, 1);
  });

  it('one access token serves both formats; a nonce serves one proof; the fifth claim is the last', async () => {
    const { certificate, token } = await newClaim();
    const holder = await ed25519Holder();
    const first = await claim(token, holder, 'OpenBadgeCredential_ldp_vc');
    const ask = async (body: unknown) => {
      const res = await fetch(`${base}/issuers/${tenant.accountId}/oid4vci/credential`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${first.accessToken}` },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    // The same proof (and so the same nonce) again: invalid_nonce, nothing counted.
    const replay = await ask({
      credential_configuration_id: 'OpenBadgeCredential_ldp_vc',
      proofs: { jwt: [first.jwt] },
    });
    assert.equal(replay.body.error, 'invalid_nonce');
    assert.equal((await claimsOf(certificate.id)).length, 1);
    // A fresh nonce with the same access token: the other format (a did:key Ed25519 holder has no
    // P-256 key, so the SD-JWT VC binds its Ed25519 key).
    const again = await claim(token, holder, 'LearningCredential_sd_jwt');
    assert.equal(typeof again.credential, 'string');
    assert.deepEqual(
      (await claimsOf(certificate.id)).map((r) => r.format),
      ['ldp_vc', 'dc+sd-jwt'],
    );
    // Three more claims reach the limit of 5; the sixth is refused and nothing is recorded.
    for (let i = 0; i < 3; i++) await claim(token, holder, 'OpenBadgeCredential_ldp_vc');
    const offer = await fetch(`${base}/claim/${token}/oid4vci/offer`);
    assert.equal(offer.status, 410);
    const nonce = (
      (await (
        await fetch(`${base}/issuers/${tenant.accountId}/oid4vci/nonce`, { method: 'POST' })
      ).json()) as Json
    ).c_nonce;
    const wallet = walletClient(holder);
    const metadata = await wallet.resolveIssuerMetadata(`${base}/issuers/${tenant.accountId}`);
    const { jwt } = await wallet.createCredentialRequestJwtProof({
      issuerMetadata: metadata,
      credentialConfigurationId: 'OpenBadgeCredential_ldp_vc',
      signer: holder.signer,
      nonce,
    });
    const sixth = await ask({
      credential_configuration_id: 'OpenBadgeCredential_ldp_vc',
      proofs: { jwt: [jwt] },
    });
    assert.equal(sixth.status, 400);
    assert.equal(sixth.body.error, 'credential_request_denied');
    assert.equal((await claimsOf(certificate.id)).length, 5);
  });

  it('a claim that finds its token used up by another at the last moment writes nothing, its nonce unused', async () => {
    // Two wallets at once on the fifth claim: both pass the read before either writes; the one that
    // writes second finds claims_used at 5. Made here by using the token up between the two.
    const { certificate } = await newClaim();
    const { rows } = await t.deps.db.query<{ id: string }>(
      'UPDATE claim_tokens SET claims_used = 5 WHERE certificate_id = $1 RETURNING id',
      [certificate.id],
    );
    const nonce = (
      (await (
        await fetch(`${base}/issuers/${tenant.accountId}/oid4vci/nonce`, { method: 'POST' })
      ).json()) as Json
    ).c_nonce as string;
    const nonceSha256 = createHash('sha256').update(nonce).digest();
    const outcome = await recordClaimAtOnce(t.deps.db, {
      tokenId: rows[0]!.id,
      certificateId: certificate.id,
      accountId: tenant.accountId,
      at: new Date(),
      grant: { kind: 'nonce', nonceSha256 },
      holderDid: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      protocol: 'OID4VCI',
      format: 'ldp_vc',
    });
    assert.equal(outcome, 'used_up');
    assert.equal((await claimsOf(certificate.id)).length, 0);
    const used = await t.deps.db.query('SELECT used_at FROM oid4vci_nonces WHERE nonce_sha256 = $1', [
      nonceSha256,
    ]);
    assert.equal(used.rows[0]?.used_at, null, 'the nonce is still unused');
  });
});
