import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { mintClaimToken } from '../../src/modules/shared/claim-tokens.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { referenceVerify } from '../credentials/reference.js';
import { makeHolder, type Holder } from './holder.js';

// The VC API exchange end to end (decisions 22): the protocols list, POST {} for a DIDAuthentication
// request, a presentation signed by a did:key holder with the digitalbazaar libraries, and the bound
// credential back, verified by the digitalbazaar verifier. Then every refusal, each leaving the
// token's count as it was.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the VC API exchange', () => {
  let t: TestApp;
  let base: string;
  let tenant: Tenant;
  const resolveDid = async (did: string) => {
    const res = await fetch(`${base}/issuers/${did.split(':').pop()}/did.json`);
    return (await res.json()) as Json;
  };

  const post = (token: string, payload: unknown) =>
    t.app.inject({ method: 'POST', url: `/claim/${token}/exchange`, payload: payload as object });
  const start = async (token: string) => {
    const res = await post(token, {});
    assert.equal(res.statusCode, 200, res.body);
    return res.json().verifiablePresentationRequest as Json;
  };
  const claimsUsed = async (certificateId: string) => {
    const { rows } = await t.deps.db.query<{ n: number }>(
      'SELECT COALESCE(sum(claims_used), 0)::int AS n FROM claim_tokens WHERE certificate_id = $1',
      [certificateId],
    );
    const { rows: records } = await t.deps.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM credential_claims WHERE certificate_id = $1',
      [certificateId],
    );
    assert.equal(rows[0]!.n, records[0]!.n, 'each count has its record');
    return rows[0]!.n;
  };
  const newToken = async () => {
    const c = await issueCertificate(t.app, tenant);
    return { certificate: c, token: await mintClaimToken(t.deps.db, c.id, new Date()) };
  };
  const claim = async (token: string, holder: Holder) => {
    const request = await start(token);
    const vp = await holder.present({ challenge: request.challenge, domain: request.domain });
    return post(token, { verifiablePresentation: vp });
  };
  const assertRefused = (res: { statusCode: number; body: string }, status: number, code: string) => {
    assert.equal(res.statusCode, status, res.body);
    const body = JSON.parse(res.body) as Json;
    assert.equal(body.error.code, code, res.body);
    assert.equal(typeof body.error.message, 'string');
  };

  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    tenant = await createTenant(t.deps, { name: 'Exchange Academy' });
  });
  after(async () => {
    await t?.close();
  });

  it('lists the protocols, asks for DIDAuthentication and gives the credential bound to the holder', async () => {
    const { certificate, token } = await newToken();
    const interact = await t.app.inject({ url: `/claim/${token}/interact?iuv=1` });
    assert.equal(interact.statusCode, 200, interact.body);
    assert.deepEqual(interact.json(), {
      protocols: {
        vcapi: `http://certs.test/claim/${token}/exchange`,
        OID4VCI: `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(`http://certs.test/claim/${token}/oid4vci/offer`)}`,
      },
    });

    const request = await start(token);
    assert.equal(request.query[0].type, 'DIDAuthentication');
    assert.equal(request.domain, 'certs.test');
    assert.match(request.challenge, /^[A-Za-z0-9_-]{20,}$/);
    assert.notEqual((await start(token)).challenge, request.challenge, 'a fresh challenge each time');

    const holder = await makeHolder();
    const vp = await holder.present({ challenge: request.challenge, domain: request.domain });
    const res = await post(token, { verifiablePresentation: vp });
    assert.equal(res.statusCode, 200, res.body);
    const answer = res.json() as Json;
    assert.ok(answer.verifiablePresentation.type.includes('VerifiablePresentation'));
    const [credential] = answer.verifiablePresentation.verifiableCredential as Json[];
    assert.equal(credential!.credentialSubject.id, holder.did);
    const frozen = (
      await t.app.inject({ url: `/api/v1/certificates/${certificate.id}/credential`, headers: tenant.auth })
    ).json() as Json;
    assert.deepEqual(credential!.credentialStatus, frozen.credentialStatus);
    const verified = await referenceVerify(credential, resolveDid);
    assert.equal(verified.verified, true, JSON.stringify(verified.error ?? '').slice(0, 400));
    assert.equal(await claimsUsed(certificate.id), 1);
    const claims = await t.deps.services.wallet.claims(tenant.accountId, certificate.id);
    assert.deepEqual(
      claims.map((c) => [c.holderDid, c.protocol, c.format]),
      [[holder.did, 'vcapi', 'ldp_vc']],
    );

    // The same exchange again: refused, not counted.
    assertRefused(await post(token, { verifiablePresentation: vp }), 409, 'conflict');
    assert.equal(await claimsUsed(certificate.id), 1);
  });

  it('refuses a wrong challenge, a wrong domain, another key, a tampered presentation; nothing counted', async () => {
    const { certificate, token } = await newToken();
    const holder = await makeHolder();
    const other = await makeHolder();
    const request = await start(token);

    const wrongChallenge = await holder.present({
      challenge: 'not-the-challenge-given',
      domain: request.domain,
    });
    assertRefused(await post(token, { verifiablePresentation: wrongChallenge }), 422, 'validation_error');

    const wrongDomain = await holder.present({ challenge: request.challenge, domain: 'evil.example' });
    const domainRes = await post(token, { verifiablePresentation: wrongDomain });
    assertRefused(domainRes, 422, 'validation_error');
    assert.match(domainRes.body, /domain/);

    // Signed by another key in the holder's name.
    const otherKey = await other.present({
      challenge: request.challenge,
      domain: request.domain,
      holder: holder.did,
    });
    const keyRes = await post(token, { verifiablePresentation: otherKey });
    assertRefused(keyRes, 422, 'validation_error');
    assert.match(keyRes.body, /verificationMethod/);

    // The holder changed after signing: the signature no longer holds.
    const signed = await holder.present({ challenge: request.challenge, domain: request.domain });
    const tampered = {
      ...signed,
      holder: other.did,
      proof: { ...(signed.proof as Json), verificationMethod: other.verificationMethod },
    };
    assertRefused(await post(token, { verifiablePresentation: tampered }), 422, 'validation_error');
    const flipped = structuredClone(signed) as Json;
    flipped.id = 'urn:uuid:00000000-0000-4000-8000-000000000000';
    assertRefused(await post(token, { verifiablePresentation: flipped }), 422, 'validation_error');

    for (const body of [
      { verifiablePresentation: 'x' },
      { verifiablePresentation: { type: 'VerifiablePresentation' } },
      [1],
    ]) {
      const res = await post(token, body);
      assert.ok(res.statusCode === 422, `${JSON.stringify(body)}: ${res.statusCode} ${res.body}`);
    }
    assert.equal(await claimsUsed(certificate.id), 0);

    // The right one still works after all that.
    const res = await post(token, { verifiablePresentation: signed });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(await claimsUsed(certificate.id), 1);
  });

  it('refuses unknown, malformed, expired, used-up and revoked tokens; a token gives its own certificate only', async () => {
    const holder = await makeHolder();
    assertRefused(await post('A'.repeat(43), {}), 404, 'not_found');
    assertRefused(await post('short', {}), 404, 'not_found');
    assert.equal((await t.app.inject({ url: '/claim/nope/interact?iuv=1' })).statusCode, 404);

    // Expired.
    const expired = await newToken();
    const pending = await start(expired.token);
    await t.deps.db.query(
      `UPDATE claim_tokens SET expires_at = now() - interval '1 second' WHERE certificate_id = $1`,
      [expired.certificate.id],
    );
    const vp = await holder.present({ challenge: pending.challenge, domain: pending.domain });
    const gone = await post(expired.token, { verifiablePresentation: vp });
    assertRefused(gone, 410, 'gone');
    assert.equal(JSON.parse(gone.body).error.details.reason, 'expired');
    assert.equal(await claimsUsed(expired.certificate.id), 0);

    // Five claims, then used up.
    const five = await newToken();
    for (let i = 0; i < 5; i++) assert.equal((await claim(five.token, holder)).statusCode, 200);
    const sixth = await post(five.token, {});
    assertRefused(sixth, 410, 'gone');
    assert.equal(JSON.parse(sixth.body).error.details.reason, 'used_up');
    assert.equal(await claimsUsed(five.certificate.id), 5);

    // Revoked.
    const revoked = await newToken();
    const open = await start(revoked.token);
    const r = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${revoked.certificate.id}/revoke`,
      headers: tenant.auth,
      payload: {},
    });
    assert.equal(r.statusCode, 200, r.body);
    const late = await holder.present({ challenge: open.challenge, domain: open.domain });
    const refused = await post(revoked.token, { verifiablePresentation: late });
    assertRefused(refused, 410, 'gone');
    assert.equal(JSON.parse(refused.body).error.details.reason, 'revoked');
    assert.equal(await claimsUsed(revoked.certificate.id), 0);

    // Another certificate's token: its challenge does not open this token's exchange, and what it
    // gives is its own certificate.
    const a = await newToken();
    const b = await newToken();
    const requestA = await start(a.token);
    const forA = await holder.present({ challenge: requestA.challenge, domain: requestA.domain });
    assertRefused(await post(b.token, { verifiablePresentation: forA }), 422, 'validation_error');
    const fromB = (await claim(b.token, holder)).json() as Json;
    const frozenB = (
      await t.app.inject({ url: `/api/v1/certificates/${b.certificate.id}/credential`, headers: tenant.auth })
    ).json() as Json;
    assert.deepEqual(
      fromB.verifiablePresentation.verifiableCredential[0].credentialStatus,
      frozenB.credentialStatus,
    );
    assert.equal(await claimsUsed(a.certificate.id), 0);
  });
});
