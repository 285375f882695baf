import { multibase58 } from './multibase.js';
import { canonicalFromTemplate } from './rdf-canonical.js';
import { canonicalDocument, compileRdfTemplate, sha256, slot, type RdfTemplate } from './rdf-template.js';

// Data Integrity proofs with the eddsa-rdfc-2022 cryptosuite (W3C VC Data Integrity EdDSA
// Cryptosuites v1.0, section 3.2): the Ed25519 signature of SHA-256(canonical proof options) followed
// by SHA-256(canonical document), both canonicalised with RDFC-1.0.

// Signs with one key; the key itself may live anywhere (this process, an HSM, a KMS).
export interface Signer {
  // The absolute id of the key in its controller's DID document: did:web:...#<key id>.
  verificationMethod: string;
  sign(data: Buffer): Buffer;
}

export interface DataIntegrityProof {
  type: 'DataIntegrityProof';
  created: string;
  verificationMethod: string;
  cryptosuite: 'eddsa-rdfc-2022';
  proofPurpose: 'assertionMethod';
  proofValue: string;
}

type Context = unknown[];

function proofOptions(context: Context, created: string, verificationMethod: string) {
  return {
    '@context': context,
    type: 'DataIntegrityProof',
    created,
    verificationMethod,
    cryptosuite: 'eddsa-rdfc-2022',
    proofPurpose: 'assertionMethod',
  };
}

function proof(
  created: string,
  signer: Signer,
  optionsHash: Buffer,
  documentHash: Buffer,
): DataIntegrityProof {
  const signature = signer.sign(Buffer.concat([optionsHash, documentHash]));
  return {
    type: 'DataIntegrityProof',
    created,
    verificationMethod: signer.verificationMethod,
    cryptosuite: 'eddsa-rdfc-2022',
    proofPurpose: 'assertionMethod',
    proofValue: multibase58(signature),
  };
}

// Any JSON-LD document, through the reference expansion (a few ms): status lists, rare shapes.
export async function signDocument<T extends { '@context': Context }>(
  document: T,
  signer: Signer,
  created: string,
): Promise<T & { proof: DataIntegrityProof }> {
  const [options, doc] = await Promise.all([
    canonicalDocument(proofOptions(document['@context'], created, signer.verificationMethod)),
    canonicalDocument(document),
  ]);
  return { ...document, proof: proof(created, signer, sha256(options), sha256(doc)) };
}

// Proof options have one shape per context: expanded once, then filled (see rdf-template.ts).
const optionTemplates = new Map<string, Promise<RdfTemplate>>();

function optionsTemplate(context: Context): Promise<RdfTemplate> {
  const key = JSON.stringify(context);
  let template = optionTemplates.get(key);
  if (!template) {
    template = compileRdfTemplate(proofOptions(context, slot(1), slot(0)));
    optionTemplates.set(key, template);
  }
  return template;
}

// The hash of the last proof options: the same for every credential of an issue (one key, one time).
let lastOptions:
  { template: RdfTemplate; verificationMethod: string; created: string; hash: Buffer } | undefined;

function optionsHash(template: RdfTemplate, verificationMethod: string, created: string): Buffer {
  const last = lastOptions;
  if (
    last?.template === template &&
    last.verificationMethod === verificationMethod &&
    last.created === created
  ) {
    return last.hash;
  }
  const hash = sha256(canonicalFromTemplate(template, [verificationMethod, created]));
  lastOptions = { template, verificationMethod, created, hash };
  return hash;
}

// A document of a shape compiled with slots (compileRdfTemplate), filled with `values`: the same
// proof signDocument makes, at the cost of RDFC-1.0 alone (rdf-canonical.ts).
export async function signFromTemplate<T extends { '@context': Context }>(
  document: T,
  template: RdfTemplate,
  values: readonly string[],
  signer: Signer,
  created: string,
): Promise<T & { proof: DataIntegrityProof }> {
  const options = await optionsTemplate(document['@context']);
  const documentHash = sha256(canonicalFromTemplate(template, values));
  const optionsDigest = optionsHash(options, signer.verificationMethod, created);
  return { ...document, proof: proof(created, signer, optionsDigest, documentHash) };
}
