import { sign, type KeyObject } from 'node:crypto';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { createCmsSigner, type CmsSigner } from '../../platform/proof/cms.js';
import { sealPdf } from '../../pdf/pdf-seal.js';
import type { UnsealedPdf } from '../../pdf/pdf-renderer.js';
import { credentialTemplates, signedCredential } from './credential-signing.js';
import type { CredentialFacts } from './open-badge.js';

// Runs on the PDF threads (PdfRenderer.runEach): the proofs of an issue's certificates, each
// credential signed (the RDF templates compiled once per thread) and attached to its PDF, the PDF
// sealed. The main thread sends the opened keys (KeyObjects) with each task; a thread makes its CMS
// signer once per PDF key. Nothing here logs, and errors name no key.

export interface ProveTask {
  credentialKey: { verificationMethod: string; privateKey: KeyObject };
  pdfKey: { id: string; privateKey: KeyObject; certificate: Uint8Array; chain: Uint8Array[] };
  signedAt: string; // ISO 8601
  items: ProveItem[];
}

export interface ProveItem {
  facts: CredentialFacts;
  unsealed: UnsealedPdf;
}

/** A certificate's proofs: its credential's frozen bytes, its sealed PDF and the PDF's SHA-256. */
export interface ProvedItem {
  credential: Uint8Array;
  pdf: Uint8Array;
  sha256: string;
}

const templates = credentialTemplates();
const MAX_CMS_SIGNERS = 16;
const cmsSigners = new Map<string, CmsSigner>();

function cmsSigner(key: ProveTask['pdfKey']): CmsSigner {
  let signer = cmsSigners.get(key.id);
  if (!signer) {
    const bytes = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    signer = createCmsSigner({
      certificate: bytes(key.certificate),
      chain: key.chain.map(bytes),
      privateKey: key.privateKey,
    });
    if (cmsSigners.size >= MAX_CMS_SIGNERS) cmsSigners.delete(cmsSigners.keys().next().value ?? '');
    cmsSigners.set(key.id, signer);
  }
  return signer;
}

// A buffer of its own, exactly sized, so that it can be moved to the main thread (not cloned).
const own = (b: Buffer): Uint8Array => (b.byteLength === b.buffer.byteLength ? b : new Uint8Array(b));

export default async function proveTask(task: ProveTask) {
  const shapes = await templates();
  const { privateKey, verificationMethod } = task.credentialKey;
  const signer = { verificationMethod, sign: (data: Buffer) => sign(null, data, privateKey) };
  const cms = cmsSigner(task.pdfKey);
  const out: ProvedItem[] = [];
  for (const item of task.items) {
    const credential = await signedCredential(item.facts, shapes, signer, task.signedAt);
    const body = item.unsealed.body;
    const unsealed = { ...item.unsealed, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) };
    const sealed = await sealPdf(unsealed, {
      attachment: credential,
      signedAt: task.signedAt,
      reserve: cms.maxLength,
      sign: (digest) => cms.sign(digest),
    });
    out.push({ credential: own(credential), pdf: own(sealed.pdf), sha256: sealed.sha256 });
  }
  return move({
    [transferableSymbol]: out.flatMap((o) => [o.credential.buffer, o.pdf.buffer]),
    [valueSymbol]: out,
  });
}
