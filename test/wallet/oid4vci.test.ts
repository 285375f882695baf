import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { preAuthorizedCodeGrantIdentifier } from '@openid4vc/oauth2';
import type { CredentialOfferObject, IssuerMetadataResult } from '@openid4vc/openid4vci';
import { createApp } from '../../src/app.js';
import { createDeps, createLogger } from '../../src/deps.js';
import { freePort } from '../../src/platform/net.js';
import { mintClaimToken } from '../../src/modules/shared/claim-tokens.js';
import { createTenant, issueCertificate, testConfig, type Tenant, type TestApp } from '../helpers/app.js';
import { ed25519Holder, handMadeProof, p256Holder, walletClient } from './oid4vci-wallet.js';

// OID4VCI 1.0, pre-authorized code flow, on loopback, driven by the @openid4vc/openid4vci client as
// a wallet would: the offer by reference, the metadata, the token, a nonce, a key proof. Then the
// refusals, in OAuth's own error format. (The credentials themselves: oid4vci-credentials.test.ts.)

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('OID4VCI: offer, metadata, token, nonce and key proofs', () => {
  let t: TestApp;
  let base: string;
  let tenant: Tenant;
  let issuer: string;

  before(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const config = testConfig({ PUBLIC_BASE_URL: base, RATE_LIMIT_MAX: '100000' });
    const deps = await createDeps(config, { logger: createLogger(config) });
    const app = await createApp(deps);
    t = { app, deps, close: async () => (await app.close(), await deps.close()) };
    await app.listen({ host: '127.0.0.1', port });
    tenant = await createTenant(deps, { name: 'Lovelace Academy' });
    issuer = `${base}/issuers/${tenant.accountId}`;
  });
  after(async () => {
    await t?.close();
  });

  const newClaimToken = async () => {
    const c = await issueCertificate(t.app, tenant);
    return { certificateId: c.id, token: await mintClaimToken(t.deps.db, c.id, new Date()) };
  };
  const offerLink = (token: string) =>
    `openid-credential-offer://?credential_offer_uri=${encodeURIComponent(`${base}/claim/${token}/oid4vci/offer`)}`;
  const postForm = (url: string, form: Record<string, string>) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  const tokenFor = async (code: string) => {
    const res = await postForm(`${issuer}/oid4vci/token`, {
      grant_type: preAuthorizedCodeGrantIdentifier,
      'pre-authorized_code': code,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const codeOf = (offer: CredentialOfferObject) =>
    offer.grants![preAuthorizedCodeGrantIdentifier]!['pre-authorized_code'];
  const nonce = async () =>
    ((await (await fetch(`${issuer}/oid4vci/nonce`, { method: 'POST' })).json()) as { c_nonce: string })
      .c_nonce;
  const askCredential = async (accessToken: string | undefined, body: unknown) => {
    const res = await fetch(`${issuer}/oid4vci/credential`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}),
      },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
  };
  // A claim token taken as far as an access token, the way a wallet does.
  const accessTokenFor = async (token: string) => {
    const wallet = walletClient(await ed25519Holder());
    const offer = await wallet.resolveCredentialOffer(offerLink(token));
    const metadata = await wallet.resolveIssuerMetadata(offer.credential_issuer);
    const { accessTokenResponse } = await wallet.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer: offer,
      issuerMetadata: metadata,
    });
    return accessTokenResponse.access_token;
  };

  it('serves issuer and authorization-server metadata that the wallet library resolves', async () => {
    const wallet = walletClient(await ed25519Holder());
    const metadata: IssuerMetadataResult = await wallet.resolveIssuerMetadata(issuer);
    assert.equal(metadata.originalDraftVersion, 'V1');
    const issuerMetadata = metadata.credentialIssuer as Json;
    assert.equal(issuerMetadata.credential_issuer, issuer);
    assert.equal(issuerMetadata.credential_endpoint, `${issuer}/oid4vci/credential`);
    assert.equal(issuerMetadata.nonce_endpoint, `${issuer}/oid4vci/nonce`);
    assert.equal(issuerMetadata.display[0].name, 'Lovelace Academy');
    const configurations = metadata.knownCredentialConfigurations as Json;
    assert.deepEqual(Object.keys(configurations).sort(), [
      'LearningCredential_sd_jwt',
      'OpenBadgeCredential_ldp_vc',
    ]);
    assert.equal(configurations.OpenBadgeCredential_ldp_vc.format, 'ldp_vc');
    assert.deepEqual(configurations.OpenBadgeCredential_ldp_vc.credential_definition.type, [
      'VerifiableCredential',
      'OpenBadgeCredential',
    ]);
    assert.equal(configurations.LearningCredential_sd_jwt.format, 'dc+sd-jwt');
    assert.equal(configurations.LearningCredential_sd_jwt.vct, 'urn:eu.europa.ec.eudi:learning:credential:1');
    for (const c of Object.values(configurations)) {
      assert.deepEqual(c.proof_types_supported.jwt.proof_signing_alg_values_supported, ['ES256', 'EdDSA']);
    }
    // The token endpoint comes from the authorization server's own metadata (RFC 8414 path).
    assert.equal(metadata.authorizationServers[0]!.issuer, issuer);
    assert.equal(metadata.authorizationServers[0]!.token_endpoint, `${issuer}/oid4vci/token`);
    const direct = await fetch(`${base}/.well-known/oauth-authorization-server/issuers/${tenant.accountId}`);
    assert.equal(direct.status, 200);
    // An issuer that does not exist: 404.
    const unknown = await fetch(
      `${base}/.well-known/openid-credential-issuer/issuers/0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6d`,
    );
    assert.equal(unknown.status, 404);
  });

  it('offers both configurations by reference, a fresh pre-authorized code each time, exchanged once', async () => {
    const { token } = await newClaimToken();
    const wallet = walletClient(await ed25519Holder());
    const offer = await wallet.resolveCredentialOffer(offerLink(token));
    assert.equal(offer.credential_issuer, issuer);
    assert.deepEqual(offer.credential_configuration_ids, [
      'OpenBadgeCredential_ldp_vc',
      'LearningCredential_sd_jwt',
    ]);
    const again = await wallet.resolveCredentialOffer(offerLink(token));
    assert.notEqual(codeOf(again), codeOf(offer), 'a fresh code per offer');
    // HEAD answers without minting a code.
    const codes = async () =>
      (await t.deps.db.query('SELECT count(*)::int AS n FROM oid4vci_pre_authorized_codes')).rows[0]
        .n as number;
    const before = await codes();
    const head = await fetch(`${base}/claim/${token}/oid4vci/offer`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await codes(), before);

    const metadata = await wallet.resolveIssuerMetadata(offer.credential_issuer);
    const { accessTokenResponse } = await wallet.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer: offer,
      issuerMetadata: metadata,
    });
    assert.equal(accessTokenResponse.token_type, 'Bearer');
    assert.ok(accessTokenResponse.access_token.length >= 43);
    // The same code again: invalid_grant; so is a code that never was, and one of another issuer.
    const reused = await tokenFor(codeOf(offer));
    assert.equal(reused.status, 400);
    assert.equal(reused.body.error, 'invalid_grant');
    assert.equal((await tokenFor('no-such-code')).body.error, 'invalid_grant');
    const other = await createTenant(t.deps, { name: 'Other Academy' });
    const foreign = await postForm(`${base}/issuers/${other.accountId}/oid4vci/token`, {
      grant_type: preAuthorizedCodeGrantIdentifier,
      'pre-authorized_code': codeOf(again),
    });
    assert.equal(((await foreign.json()) as Json).error, 'invalid_grant');
    // The unused code still works at its own issuer.
    assert.equal((await tokenFor(codeOf(again))).status, 200);
    // Other grants, and a JSON body, are refused in OAuth's format.
    const grant = await postForm(`${issuer}/oid4vci/token`, { grant_type: 'client_credentials' });
    assert.equal(((await grant.json()) as Json).error, 'unsupported_grant_type');
    const json = await fetch(`${issuer}/oid4vci/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: preAuthorizedCodeGrantIdentifier, 'pre-authorized_code': 'x' }),
    });
    assert.equal(json.status, 400);
    assert.equal(((await json.json()) as Json).error, 'invalid_request');
  });

  it('refuses a malformed, unknown, expired, used-up or revoked claim token at the offer', async () => {
    assert.equal((await fetch(`${base}/claim/not-a-token/oid4vci/offer`)).status, 404);
    assert.equal((await fetch(`${base}/claim/${'A'.repeat(43)}/oid4vci/offer`)).status, 404);
    const expired = await newClaimToken();
    await t.deps.db.query(
      `UPDATE claim_tokens SET expires_at = now() - interval '1 second' WHERE certificate_id = $1`,
      [expired.certificateId],
    );
    const usedUp = await newClaimToken();
    await t.deps.db.query('UPDATE claim_tokens SET claims_used = 5 WHERE certificate_id = $1', [
      usedUp.certificateId,
    ]);
    const revoked = await newClaimToken();
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${revoked.certificateId}/revoke`,
      headers: tenant.auth,
    });
    assert.equal(revoke.statusCode, 200);
    for (const [claim, reason] of [
      [expired, 'expired'],
      [usedUp, 'used_up'],
      [revoked, 'revoked'],
    ] as const) {
      const res = await fetch(`${base}/claim/${claim.token}/oid4vci/offer`);
      assert.equal(res.status, 410, reason);
      const body = (await res.json()) as Json;
      assert.equal(body.error.code, 'gone');
      assert.equal(body.error.details.reason, reason);
    }
  });

  it('refuses a code or an access token whose claim token ended meanwhile', async () => {
    const claim = await newClaimToken();
    const wallet = walletClient(await ed25519Holder());
    const offer = await wallet.resolveCredentialOffer(offerLink(claim.token));
    const accessToken = await accessTokenFor(claim.token);
    await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${claim.certificateId}/revoke`,
      headers: tenant.auth,
    });
    const token = await tokenFor(codeOf(offer));
    assert.equal(token.body.error, 'invalid_grant');
    assert.match(token.body.error_description, /revoked/);
    const asked = await askCredential(accessToken, {
      credential_configuration_id: 'OpenBadgeCredential_ldp_vc',
    });
    assert.equal(asked.status, 400);
    assert.equal(asked.body.error, 'credential_request_denied');
  });

  it('refuses key proofs for another audience, without or with a wrong nonce, or signed by another key than their kid', async () => {
    const { token } = await newClaimToken();
    const accessToken = await accessTokenFor(token);
    const holder = await ed25519Holder();
    const ask = (jwt: string) =>
      askCredential(accessToken, {
        credential_configuration_id: 'OpenBadgeCredential_ldp_vc',
        proofs: { jwt: [jwt] },
      });
    const expect = async (jwt: string, error: string, why: string, says?: RegExp) => {
      const res = await ask(jwt);
      assert.equal(res.status, 400, why);
      assert.equal(res.body.error, error, `${why}: ${res.body.error_description}`);
      // One plain sentence: never the library's JSON dump of its own error.
      assert.doesNotMatch(res.body.error_description, /[\n{]/, why);
      if (says) assert.match(res.body.error_description, says, why);
    };

    await expect(
      await handMadeProof(holder, { aud: 'https://elsewhere.example', nonce: await nonce() }),
      'invalid_proof',
      'wrong aud',
      /^The key proof is not valid: jwt 'aud' does not match expected value\.$/,
    );
    await expect(await handMadeProof(holder, { aud: issuer }), 'invalid_proof', 'no nonce');
    await expect(
      await handMadeProof(holder, { aud: issuer, nonce: 'made-up' }),
      'invalid_nonce',
      'unknown nonce',
    );
    // Another key signs, naming the holder's did:key as kid.
    const impostor = await ed25519Holder();
    const forged = await handMadeProof(
      impostor,
      { aud: issuer, nonce: await nonce() },
      {
        kid: (holder.signer as { didUrl: string }).didUrl,
      },
    );
    await expect(
      forged,
      'invalid_proof',
      'signed by another key than its kid',
      /^The key proof is not valid: The signature does not verify with the key its header names$/,
    );
    // kid and jwk both: ambiguous.
    const p256 = p256Holder();
    const both = await handMadeProof(
      p256,
      { aud: issuer, nonce: await nonce() },
      { kid: 'did:key:z6Mkhost' },
    );
    await expect(both, 'invalid_proof', 'kid and jwk both');
    // A did that is not did:key.
    await expect(
      await handMadeProof(
        holder,
        { aud: issuer, nonce: await nonce() },
        { kid: 'did:web:example.com#key-1' },
      ),
      'invalid_proof',
      'not did:key',
      /^The key proof is not valid: The kid must be a did:key URL$/,
    );
    // The wrong type.
    await expect(
      await handMadeProof(holder, { aud: issuer, nonce: await nonce() }, { typ: 'JWT' }),
      'invalid_proof',
      'typ',
      /^The key proof is not valid: Expected value to be "openid4vci-proof\+jwt" at "typ"$/,
    );
    // No proof at all, an unknown configuration, no configuration.
    assert.equal(
      (await askCredential(accessToken, { credential_configuration_id: 'OpenBadgeCredential_ldp_vc' })).body
        .error,
      'invalid_proof',
    );
    assert.equal(
      (await askCredential(accessToken, { credential_configuration_id: 'Diploma' })).body.error,
      'unknown_credential_configuration',
    );
    assert.equal(
      (await askCredential(accessToken, { format: 'ldp_vc' })).body.error,
      'invalid_credential_request',
    );
  });

  it('answers malformed requests with OAuth errors, never a 500', async () => {
    const { token } = await newClaimToken();
    const accessToken = await accessTokenFor(token);
    const holder = await ed25519Holder();
    const proof = await handMadeProof(holder, { aud: issuer, nonce: await nonce() });
    const [head, body] = proof.split('.');
    const bad: unknown[] = [
      [],
      'text',
      null,
      { credential_configuration_id: 42 },
      { credential_configuration_id: 'OpenBadgeCredential_ldp_vc', proofs: { jwt: 'not-an-array' } },
      { credential_configuration_id: 'OpenBadgeCredential_ldp_vc', proofs: { jwt: ['a.b.c'] } },
      { credential_configuration_id: 'OpenBadgeCredential_ldp_vc', proofs: { jwt: [proof, proof] } },
      { credential_configuration_id: 'OpenBadgeCredential_ldp_vc', proofs: { jwt: [`${head}.${body}.`] } },
      { credential_configuration_id: 'OpenBadgeCredential_ldp_vc', proof: { proof_type: 'cwt', cwt: 'x' } },
    ];
    for (const request of bad) {
      const res = await askCredential(accessToken, request);
      assert.equal(res.status, 400, JSON.stringify(request));
      assert.equal(typeof res.body.error, 'string');
      assert.equal(typeof res.body.error_description, 'string');
    }
    const unsigned = await handMadeProof(holder, { aud: issuer, nonce: await nonce() }, { alg: 'none' });
    const none = await askCredential(accessToken, {
      credential_configuration_id: 'OpenBadgeCredential_ldp_vc',
      proofs: { jwt: [unsigned] },
    });
    assert.equal(none.body.error, 'invalid_proof');
    // A body that is not JSON at all, and a token request without a form.
    const broken = await fetch(`${issuer}/oid4vci/credential`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: '{"credential_configuration_id":',
    });
    assert.equal(broken.status, 400);
    assert.equal(((await broken.json()) as Json).error, 'invalid_credential_request');
    const forms: Record<string, string>[] = [
      {},
      { grant_type: preAuthorizedCodeGrantIdentifier },
      { 'pre-authorized_code': 'x' },
    ];
    for (const form of forms) {
      const res = await postForm(`${issuer}/oid4vci/token`, form);
      assert.equal(res.status, 400, JSON.stringify(form));
      assert.equal(((await res.json()) as Json).error, 'invalid_request');
    }
    const empty = await fetch(`${issuer}/oid4vci/token`, { method: 'POST' });
    assert.equal(empty.status, 400);
    // Headers this issuer does not ask for, malformed: refused in OAuth's words, not a 500.
    const unasked: Record<string, string>[] = [{ dpop: 'not-a-jwt' }, { 'oauth-client-attestation': 'x' }];
    for (const header of unasked) {
      const res = await fetch(`${issuer}/oid4vci/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...header },
        body: new URLSearchParams({
          grant_type: preAuthorizedCodeGrantIdentifier,
          'pre-authorized_code': 'x',
        }),
      });
      assert.equal(res.status, 400, JSON.stringify(header));
      assert.match(((await res.json()) as Json).error, /^invalid_(dpop_proof|client|grant)$/);
    }
  });

  it("refuses a missing, unknown or other issuer's access token with invalid_token and WWW-Authenticate", async () => {
    const body = { credential_configuration_id: 'OpenBadgeCredential_ldp_vc' };
    const none = await askCredential(undefined, body);
    assert.equal(none.status, 401);
    assert.equal(none.body.error, 'invalid_token');
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
    assert.equal((await askCredential('x'.repeat(43), body)).status, 401);
    const { token } = await newClaimToken();
    const accessToken = await accessTokenFor(token);
    const other = await createTenant(t.deps, { name: 'Third Academy' });
    const res = await fetch(`${base}/issuers/${other.accountId}/oid4vci/credential`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 401);
  });
});
