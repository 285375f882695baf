import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fromBase58btc } from '../../src/platform/proof/multibase.js';
import {
  didKeyToJwk,
  didKeyUrlToKey,
  HolderKeyError,
  jwkToDidKey,
} from '../../src/modules/wallet/oid4vci-proof-keys.js';
import { resolveDidKey } from '../../src/modules/wallet/did-key.js';

// The holder's did:key from a key proof's key, both ways, against the test vectors of the did:key
// specification (w3c-ccg/did-method-key, test-vectors/nist-curves.json and ed25519-x25519.json).

const P256 = [
  {
    did: 'did:key:zDnaerx9CtbPJ1q36T5Ln5wYt3MQYeGRG5ehnPAmxcf5mDZpv',
    jwk: {
      kty: 'EC',
      crv: 'P-256',
      x: 'igrFmi0whuihKnj9R3Om1SoMph72wUGeFaBbzG2vzns',
      y: 'efsX5b10x8yjyrj4ny3pGfLcY7Xby1KzgqOdqnsrJIM',
    },
  },
  {
    did: 'did:key:zDnaerDaTF5BXEavCrfRZEk316dpbLsfPDZ3WJ5hRTPFU2169',
    jwk: {
      kty: 'EC',
      crv: 'P-256',
      x: 'fyNYMN0976ci7xqiSdag3buk-ZCwgXU4kz9XNkBlNUI',
      y: 'hW2ojTNfH7Jbi8--CJUo3OCbH3y5n91g-IMA9MLMbTU',
    },
  },
];
const ED25519 = {
  did: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
  publicKeyBase58: '4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS',
};

describe('OID4VCI holder keys: did:key', () => {
  it('turns the P-256 vectors from JWK to did:key and back', () => {
    for (const { did, jwk } of P256) {
      assert.equal(jwkToDidKey(jwk).did, did);
      assert.deepEqual(didKeyToJwk(did), { jwk, alg: 'ES256' });
      assert.deepEqual(didKeyUrlToKey(`${did}#${did.slice(8)}`), { did, jwk, alg: 'ES256' });
    }
  });

  it('turns the Ed25519 vector from JWK to did:key and back', () => {
    const x = Buffer.from(fromBase58btc(ED25519.publicKeyBase58)).toString('base64url');
    const jwk = { kty: 'OKP', crv: 'Ed25519', x };
    assert.equal(jwkToDidKey(jwk).did, ED25519.did);
    assert.deepEqual(didKeyToJwk(ED25519.did), { jwk, alg: 'EdDSA' });
  });

  it('refuses private keys, other curves, other DIDs, and a fragment naming another key', () => {
    const [first, second] = P256;
    assert.throws(
      () => jwkToDidKey({ ...first!.jwk, d: 'gPh-VvVS8MbvKQ9LSVVmfnxnKjHn4Tqj0bmbpehRlpc' }),
      HolderKeyError,
    );
    assert.throws(() => jwkToDidKey({ kty: 'EC', crv: 'P-384', x: 'a', y: 'b' }), HolderKeyError);
    assert.throws(
      () => jwkToDidKey({ kty: 'EC', crv: 'P-256', x: first!.jwk.x, y: second!.jwk.y }),
      HolderKeyError,
    );
    assert.throws(
      () => didKeyToJwk('did:key:z82Lm1MpAkeJcix9K8TMiLd5NMAhnwkjjCBeWHXyu3U4oT2MVJJKXkcVBgjGhnLBn2Kaau9'),
      HolderKeyError,
    );
    assert.throws(() => didKeyUrlToKey('did:web:example.com#key-1'), HolderKeyError);
    assert.throws(() => didKeyUrlToKey(`${first!.did}#${second!.did.slice(8)}`), HolderKeyError);
  });
});

describe("VC API presentations: the holder's did:key, through the same decoder", () => {
  it('resolves the Ed25519 vector to its key and verification method', () => {
    const key = resolveDidKey(ED25519.did);
    assert.ok(key);
    assert.equal(key.verificationMethod, `${ED25519.did}#${ED25519.did.slice('did:key:'.length)}`);
    const raw = key.publicKey.export({ format: 'jwk' }).x!;
    assert.deepEqual(Buffer.from(raw, 'base64url'), Buffer.from(fromBase58btc(ED25519.publicKeyBase58)));
  });

  it('takes no P-256 key, no other DID method, and no broken did:key', () => {
    assert.equal(resolveDidKey(P256[0]!.did), undefined);
    assert.equal(resolveDidKey('did:web:example.test'), undefined);
    assert.equal(resolveDidKey(`${ED25519.did}#frag`), undefined);
    assert.equal(resolveDidKey(`${ED25519.did.slice(0, -1)}0`), undefined); // 0 is not base58
    assert.equal(resolveDidKey(ED25519.did.slice(0, -4)), undefined); // too short a key
  });
});
