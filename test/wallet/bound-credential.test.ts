import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { checkStatus } from '@digitalbazaar/vc-bitstring-status-list';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { NotFoundError, ValidationError } from '../../src/platform/errors.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { referenceLoader, referenceVerify } from '../credentials/reference.js';
import { makeHolder } from './holder.js';

// The credential a wallet receives (decisions 22): the frozen one bound to the holder's DID, signed
// at claim time by the account's current key, at the frozen one's status entry. Verified by the
// digitalbazaar libraries, the issuer's did:web resolved from this test's own server.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the bound credential', () => {
  let t: TestApp;
  let base: string;
  let tenant: Tenant;
  const local = (url: string) => url.replace('http://certs.test', base);
  const resolveDid = async (did: string) => {
    const res = await fetch(`${base}/issuers/${did.split(':').pop()}/did.json`);
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
  const revokedBit = async (credential: unknown) => {
    const status = (await checkStatus({
      credential,
      documentLoader,
      suite: new DataIntegrityProof({ cryptosuite }),
      verifyBitstringStatusListCredential: true,
      verifyMatchingIssuers: true,
    })) as Json;
    assert.equal(status.verified, true, JSON.stringify(status).slice(0, 300));
    return status.results[0].status as boolean;
  };
  const frozenOf = async (id: string) => (await t.deps.services.proof.credential(tenant.accountId, id))!;

  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    tenant = await createTenant(t.deps, { name: 'Bound Academy' });
  });
  after(async () => {
    await t?.close();
  });

  it('binds the frozen credential to the holder: verified, subject id the DID, new id, same facts', async () => {
    const holder = await makeHolder();
    const c = await issueCertificate(t.app, tenant);
    const frozenBytes = await frozenOf(c.id);
    const frozen = JSON.parse(frozenBytes.toString()) as Json;
    const now = new Date();
    const bound = (await t.deps.services.proof.signBound({
      accountId: tenant.accountId,
      certificateId: c.id,
      holderDid: holder.did,
      now,
    })) as Json;
    const result = await referenceVerify(bound, resolveDid);
    assert.equal(result.verified, true, JSON.stringify(result.error ?? '').slice(0, 500));
    assert.equal(bound.credentialSubject.id, holder.did);
    assert.match(bound.id, /^urn:uuid:[0-9a-f-]{36}$/);
    assert.notEqual(bound.id, frozen.id);
    assert.deepEqual(bound.credentialSubject.achievement, frozen.credentialSubject.achievement);
    assert.deepEqual(bound.credentialSubject.identifier, frozen.credentialSubject.identifier);
    assert.deepEqual(bound.credentialStatus, frozen.credentialStatus);
    assert.deepEqual(bound.issuer, frozen.issuer);
    assert.equal(bound.validFrom, frozen.validFrom);
    assert.equal(bound.validUntil, undefined);
    assert.equal(bound.proof.created, now.toISOString());
    // Another holder's DID in place of this one's fails verification.
    const other = structuredClone(bound);
    other.credentialSubject.id = (await makeHolder()).did;
    assert.equal((await referenceVerify(other, resolveDid)).verified, false);
    assert.deepEqual(await frozenOf(c.id), frozenBytes, 'the frozen credential is unchanged');
  });

  it('keeps validUntil, signs with the current key after a rotation, and is revoked with the frozen one', async () => {
    const holder = await makeHolder();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: {
        templateId: tenant.templateId,
        recipient: {
          name: 'Grace Hopper',
          email: 'grace@example.com',
          data: { course: 'Compilers' },
          expiresAt: '2099-06-30T12:00:00.000Z',
        },
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().data.id as string;
    const frozenBytes = await frozenOf(id);
    const frozen = JSON.parse(frozenBytes.toString()) as Json;
    const rotated = await t.deps.services.signingKeys.rotateCredentialKey(SYSTEM, tenant.accountId);
    const bound = (await t.deps.services.proof.signBound({
      accountId: tenant.accountId,
      certificateId: id,
      holderDid: holder.did,
      now: new Date(),
    })) as Json;
    assert.equal(bound.validUntil, '2099-06-30T12:00:00.000Z');
    assert.equal(bound.proof.verificationMethod, rotated.verificationMethod);
    assert.notEqual(frozen.proof.verificationMethod, rotated.verificationMethod);
    assert.equal((await referenceVerify(bound, resolveDid)).verified, true);
    assert.equal(await revokedBit(bound), false);

    const revoked = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${id}/revoke`,
      headers: tenant.auth,
      payload: {},
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal(await revokedBit(bound), true, 'the bound credential reads revoked');
    assert.equal(await revokedBit(frozen), true, 'as the frozen one');
    assert.deepEqual(await frozenOf(id), frozenBytes, 'the frozen credential is unchanged');
  });

  it('refuses a holder that is not a DID, and a certificate with no credential', async () => {
    const c = await issueCertificate(t.app, tenant);
    for (const holderDid of ['https://evil.example/', 'did:key:z6Mk> <x', 'did:key:abc#frag', '']) {
      await assert.rejects(
        t.deps.services.proof.signBound({
          accountId: tenant.accountId,
          certificateId: c.id,
          holderDid,
          now: new Date(),
        }),
        ValidationError,
        holderDid,
      );
    }
    const other = await createTenant(t.deps);
    await assert.rejects(
      t.deps.services.proof.signBound({
        accountId: other.accountId,
        certificateId: c.id,
        holderDid: 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
        now: new Date(),
      }),
      NotFoundError,
    );
  });
});
