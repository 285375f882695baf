import { verify } from 'node:crypto';
import jsonld from 'jsonld';
import { ValidationError } from '../../platform/errors.js';
import { fromBase58btc } from '../../platform/proof/multibase.js';
import { sha256 } from '../../platform/proof/rdf-template.js';
import { resolveDidKey } from './did-key.js';
import { presentationDocumentLoader } from './presentation-contexts.js';

// The check of a wallet's DIDAuthentication presentation (VC API exchange, decisions 22): a
// VerifiablePresentation whose `holder` is a did:key, with one proof by that DID's key for the
// authentication purpose, answering the exchange's challenge and domain. Two proof forms, both the
// Ed25519 signature of SHA-256(canonical proof options) || SHA-256(canonical presentation) under
// RDFC-1.0 (URDNA2015): Data Integrity `eddsa-rdfc-2022` and `Ed25519Signature2020`. Checked in
// tests against presentations the digitalbazaar libraries sign. Only did:key holders: the holder's
// key is resolved here, without any network.

type Json = Record<string, unknown>;

const PATH = ['verifiablePresentation'];
const refuse = (path: (string | number)[], message: string): never => {
  throw new ValidationError([{ path: [...PATH, ...path], message }], message);
};

export interface PresentationClaim {
  presentation: Json;
  proof: Json;
  holder: string;
  challenge: string;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The presentation's parts as sent, checked for shape (not yet for its signature). */
export function readPresentation(body: unknown): PresentationClaim {
  const presentation = isObject(body) ? body.verifiablePresentation : undefined;
  if (!isObject(presentation)) return refuse([], 'Send { "verifiablePresentation": { ... } }');
  const types = presentation.type;
  if (!(types === 'VerifiablePresentation' || (Array.isArray(types) && types.includes('VerifiablePresentation')))) {
    refuse(['type'], 'The presentation must be of type VerifiablePresentation');
  }
  const holder = presentation.holder;
  if (typeof holder !== 'string' || !resolveDidKey(holder)) {
    refuse(['holder'], 'The holder must be a did:key DID of an Ed25519 key');
  }
  const proof = presentation.proof;
  if (!isObject(proof)) return refuse(['proof'], 'The presentation must carry one proof (an object)');
  if (typeof proof.challenge !== 'string' || proof.challenge === '') {
    refuse(['proof', 'challenge'], "The proof must carry the exchange's challenge");
  }
  return { presentation, proof, holder: holder as string, challenge: proof.challenge as string };
}

async function canonical(document: Json): Promise<string> {
  try {
    return await jsonld.canonize(document, {
      algorithm: 'RDFC-1.0',
      format: 'application/n-quads',
      documentLoader: presentationDocumentLoader,
      safe: true,
    });
  } catch (err) {
    return refuse(['@context'], `The presentation cannot be read as JSON-LD: ${(err as Error).message}`);
  }
}

/** Checks the presentation's proof: its form, domain, key (the holder's) and signature. */
export async function verifyPresentation(claim: PresentationClaim, expected: { domain: string }): Promise<void> {
  const { presentation, proof, holder } = claim;
  const suite =
    proof.type === 'DataIntegrityProof' && proof.cryptosuite === 'eddsa-rdfc-2022'
      ? 'eddsa-rdfc-2022'
      : proof.type === 'Ed25519Signature2020'
        ? 'Ed25519Signature2020'
        : undefined;
  if (!suite) {
    refuse(['proof', 'type'], 'The proof must be a DataIntegrityProof (eddsa-rdfc-2022) or an Ed25519Signature2020');
  }
  if (proof.proofPurpose !== 'authentication') {
    refuse(['proof', 'proofPurpose'], 'The proof must be for authentication');
  }
  if (proof.domain !== expected.domain) {
    refuse(['proof', 'domain'], `The proof's domain must be ${expected.domain}`);
  }
  const key = resolveDidKey(holder)!;
  if (proof.verificationMethod !== key.verificationMethod) {
    refuse(['proof', 'verificationMethod'], "The proof must be made with the holder's own key");
  }
  if (typeof proof.proofValue !== 'string' || !proof.proofValue.startsWith('z')) {
    return refuse(['proof', 'proofValue'], 'The proof value must be multibase base58btc');
  }
  let signature: Uint8Array;
  try {
    signature = fromBase58btc(proof.proofValue.slice(1));
  } catch {
    return refuse(['proof', 'proofValue'], 'The proof value must be multibase base58btc');
  }
  const { proofValue: _value, ...options } = proof;
  const { proof: _proof, ...document } = presentation;
  const [optionsText, documentText] = await Promise.all([
    canonical({ ...options, '@context': presentation['@context'] }),
    canonical(document),
  ]);
  const data = Buffer.concat([sha256(optionsText), sha256(documentText)]);
  if (signature.length !== 64 || !verify(null, data, key.publicKey, signature)) {
    refuse(['proof', 'proofValue'], "The presentation's signature does not verify with the holder's key");
  }
}
