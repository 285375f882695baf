import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import jsonld from 'jsonld';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import {
  CREDENTIAL_SHAPE,
  EXPIRING_CREDENTIAL_SHAPE,
  hashedEmail,
  openBadgeCredential,
  type CredentialFacts,
} from '../../src/modules/proof/open-badge.js';
import { staticDocumentLoader } from '../../src/platform/proof/contexts.js';
import { signDocument, signFromTemplate } from '../../src/platform/proof/data-integrity.js';
import { base58btc, fromBase58btc } from '../../src/platform/proof/multibase.js';
import {
  canonicalNQuads,
  compileRdfTemplate,
  fillRdfTemplate,
} from '../../src/platform/proof/rdf-template.js';
import { worldNames as WORLD_NAMES } from '../helpers/world-names.js';
import { referenceVerify, testIssuer } from './reference.js';

// Our fast path (the credential's RDF expanded once with slots, then filled and canonicalised)
// against the reference: jsonld.canonize of the same document, and digitalbazaar's verifier.

const ODD = [
  'Zoë "Zed" Ångström',
  'back\\slash',
  'line\nbreak\r\tand tab',
  'emoji 🎓👩🏽‍🎓',
  'مريم الحسيني',
  'e\u0301 combining',
  '<script>alert(1)</script>',
  'urn:uuid:not-an-iri-here',
  'urn:certsvc-slot:3! in a name',
  ' spaces around ',
];

function facts(name: string, extra: Partial<CredentialFacts> = {}): CredentialFacts {
  return {
    certificateId: '0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6e',
    issuedAt: '2026-01-15T09:30:00.123Z',
    issuerDid: 'did:web:certs.test:issuers:0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6d',
    issuerName: 'Academy "Babbage" \\ Ltd',
    recipientName: name,
    recipientEmail: 'Zoe@Example.com',
    achievementId:
      'http://certs.test/issuers/0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6d/achievements/0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c70',
    title: `Safe Lifting — ${name}`,
    templateName: 'Course completion',
    recipientDescription: null,
    statusListUrl: 'http://certs.test/issuers/0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6d/status/0',
    statusIndex: 94567,
    ...extra,
  };
}

describe('Open Badges 3.0 credentials, signed eddsa-rdfc-2022', () => {
  it('base58btc round-trips and agrees with the reference Multikey encoding', async () => {
    for (const bytes of [
      Buffer.alloc(0),
      Buffer.from([0, 0, 1]),
      Buffer.from('hello world'),
      Buffer.alloc(64, 255),
    ]) {
      assert.deepEqual(Buffer.from(fromBase58btc(base58btc(bytes))), bytes);
    }
    assert.equal(base58btc(Buffer.from('hello world')), 'StV1DL6CwTryKyV');
    const issuer = testIssuer();
    const method = issuer.didDocument.verificationMethod[0]!;
    // The reference library reads our publicKeyMultibase as an Ed25519 key and verifies our signature.
    const key = await Ed25519Multikey.from({
      ...method,
      '@context': 'https://w3id.org/security/multikey/v1',
    });
    const data = Buffer.from('certsvc');
    assert.equal(await key.verifier().verify({ data, signature: issuer.signer.sign(data) }), true);
  });

  it('fills the RDF template to the canonical N-Quads the reference expansion gives', async () => {
    const template = await compileRdfTemplate(CREDENTIAL_SHAPE);
    const names = [...WORLD_NAMES.map((w) => w.name), ...ODD];
    for (const name of names) {
      const { document, values } = openBadgeCredential(
        facts(name, { recipientDescription: name.length % 2 ? `About ${name}` : null }),
      );
      const fast = canonicalNQuads(fillRdfTemplate(template, values));
      const reference = await jsonld.canonize(document, {
        algorithm: 'RDFC-1.0',
        format: 'application/n-quads',
        documentLoader: staticDocumentLoader,
        safe: true,
      });
      assert.equal(fast, reference, name);
    }
  });

  it('fills the expiring shape (validUntil) to the canonical N-Quads the reference expansion gives', async () => {
    const template = await compileRdfTemplate(EXPIRING_CREDENTIAL_SHAPE);
    const plain = await compileRdfTemplate(CREDENTIAL_SHAPE);
    const names = [...WORLD_NAMES.slice(0, 12).map((w) => w.name), ...ODD];
    for (const [i, name] of names.entries()) {
      const expiresAt = i % 2 ? '2028-01-15T09:30:00.123Z' : '2099-12-31T23:59:59.000Z';
      const { document, values } = openBadgeCredential(facts(name, { expiresAt }));
      assert.equal(document.validUntil, expiresAt);
      const fast = canonicalNQuads(fillRdfTemplate(template, values));
      const reference = await jsonld.canonize(document, {
        algorithm: 'RDFC-1.0',
        format: 'application/n-quads',
        documentLoader: staticDocumentLoader,
        safe: true,
      });
      assert.equal(fast, reference, name);
      assert.match(fast, /<https:\/\/www\.w3\.org\/2018\/credentials#validUntil> "2\d{3}-/);
      // The plain shape has no validUntil: filled with the same values it is a different document.
      assert.notEqual(canonicalNQuads(fillRdfTemplate(plain, values)), reference);
    }
    // Without an expiry the document has no validUntil key at all (not an empty one).
    assert.equal('validUntil' in openBadgeCredential(facts('Ada', { expiresAt: null })).document, false);
  });

  it('signs expiring credentials that the reference verifier accepts; a changed validUntil fails', async () => {
    const issuer = testIssuer();
    const template = await compileRdfTemplate(EXPIRING_CREDENTIAL_SHAPE);
    const { document, values } = openBadgeCredential(
      facts('Ada Lovelace', { expiresAt: '2028-01-15T09:30:00.123Z' }),
    );
    const signed = await signFromTemplate(document, template, values, issuer.signer, '2026-01-15T09:30:00Z');
    const result = await referenceVerify(signed, issuer.resolve);
    assert.equal(result.verified, true, JSON.stringify(result.error));
    const changed = { ...structuredClone(signed), validUntil: '2029-01-15T09:30:00.123Z' };
    assert.equal((await referenceVerify(changed, issuer.resolve)).verified, false);
  });

  it('signs credentials that the reference verifier accepts, and rejects any change', async () => {
    const issuer = testIssuer();
    const template = await compileRdfTemplate(CREDENTIAL_SHAPE);
    for (const name of [...WORLD_NAMES.slice(0, 8).map((w) => w.name), ...ODD.slice(0, 4)]) {
      const { document, values } = openBadgeCredential(facts(name));
      const signed = await signFromTemplate(
        document,
        template,
        values,
        issuer.signer,
        '2026-01-15T09:30:00Z',
      );
      const result = await referenceVerify(signed, issuer.resolve);
      assert.equal(result.verified, true, `${name}: ${JSON.stringify(result.error)}`);
    }
    const { document, values } = openBadgeCredential(facts('Ada Lovelace'));
    const signed = await signFromTemplate(document, template, values, issuer.signer, '2026-01-15T09:30:00Z');
    const changes: [string, (c: typeof signed) => void][] = [
      ['name', (c) => (c.credentialSubject.identifier[0]!.identityHash = 'Ada Lovelacf')],
      ['date', (c) => (c.validFrom = '2026-01-15T09:30:01.123Z')],
      ['achievement', (c) => (c.credentialSubject.achievement.name = 'Heavy Lifting')],
      ['issuer', (c) => (c.issuer.name = 'Another Academy')],
      ['status index', (c) => (c.credentialStatus.statusListIndex = '1')],
    ];
    for (const [what, change] of changes) {
      const copy = structuredClone(signed);
      change(copy);
      assert.equal((await referenceVerify(copy, issuer.resolve)).verified, false, what);
    }
    // The general path signs the same way.
    const general = await signDocument(document, issuer.signer, '2026-01-15T09:30:00Z');
    assert.equal((await referenceVerify(general, issuer.resolve)).verified, true);
  });

  it('keeps the email out of the credential: salted and hashed as OB 3.0 says', () => {
    const { document } = openBadgeCredential(facts('Ada'), 'salt-1');
    assert.doesNotMatch(JSON.stringify(document), /example\.com/i);
    const email = document.credentialSubject.identifier[1]!;
    assert.equal(email.identityHash, hashedEmail('zoe@example.com', 'salt-1'));
    assert.match(email.identityHash, /^sha256\$[0-9a-f]{64}$/);
    assert.notEqual(
      openBadgeCredential(facts('Ada')).document.credentialSubject.identifier[1]!.identityHash,
      email.identityHash,
    );
  });
});
