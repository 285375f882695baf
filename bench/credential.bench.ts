import { cpuUsage } from 'node:process';
import * as vc from '@digitalbazaar/vc';
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import {
  CREDENTIAL_SHAPE,
  openBadgeCredential,
  type CredentialFacts,
} from '../src/modules/proof/open-badge.js';
import { signFromTemplate } from '../src/platform/proof/data-integrity.js';
import { compileRdfTemplate } from '../src/platform/proof/rdf-template.js';
import { referenceLoader, testIssuer } from '../test/credentials/reference.js';
import { worldNames } from '../test/helpers/world-names.js';

// CPU per signed Open Badges credential, one thread: our fast path (the shape's RDF filled, then
// RDFC-1.0 and Ed25519) against the reference issue of digitalbazaar's vc (JSON-LD expansion each
// time), interleaved round by round over the world names. Usage: node dist/bench/credential.bench.js [rounds] [count]

const rounds = Number(process.argv[2] ?? 5);
const count = Number(process.argv[3] ?? 500);
const issuer = testIssuer();
const template = await compileRdfTemplate(CREDENTIAL_SHAPE);
const created = '2026-01-15T09:30:00Z';

function facts(i: number): CredentialFacts {
  return {
    certificateId: `0192f1c4-5b6e-7a8b-9c0d-${String(i).padStart(12, '0')}`,
    issuedAt: '2026-01-15T09:30:00.123Z',
    issuerDid: issuer.did,
    issuerName: 'Babbage Academy',
    recipientName: worldNames[i % worldNames.length]!.name,
    recipientEmail: `learner${i}@example.com`,
    achievementId: 'urn:uuid:0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c70',
    title: 'Safe Lifting',
    templateName: 'Course completion',
    recipientDescription: null,
    statusListUrl: 'https://certs.example.org/issuers/x/status/0',
    statusIndex: (i * 7919) % 131072,
  };
}

// The reference signs with the same key, through a Multikey-shaped signer.
const referenceSigner = {
  id: issuer.signer.verificationMethod,
  algorithm: 'Ed25519',
  sign: async ({ data }: { data: Uint8Array }) => issuer.signer.sign(Buffer.from(data)),
};
const documentLoader = referenceLoader(issuer.resolve);

async function fast(n: number): Promise<number> {
  const start = cpuUsage();
  for (let i = 0; i < n; i++) {
    const { document, values } = openBadgeCredential(facts(i));
    JSON.stringify(await signFromTemplate(document, template, values, issuer.signer, created));
  }
  const used = cpuUsage(start);
  return (used.user + used.system) / 1000 / n;
}

async function reference(n: number): Promise<number> {
  const suite = new DataIntegrityProof({ signer: referenceSigner, cryptosuite, date: created });
  const start = cpuUsage();
  for (let i = 0; i < n; i++) {
    const { document } = openBadgeCredential(facts(i));
    JSON.stringify(await vc.issue({ credential: document, suite, documentLoader }));
  }
  const used = cpuUsage(start);
  return (used.user + used.system) / 1000 / n;
}

await fast(50);
await reference(10);
const ours: number[] = [];
const theirs: number[] = [];
const refCount = Math.max(20, Math.round(count / 10));
for (let r = 0; r < rounds; r++) {
  ours.push(await fast(count));
  theirs.push(await reference(refCount));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `credential signing, CPU ms per credential (median of ${rounds} rounds; ${count} fast, ${refCount} reference per round)`,
);
console.log(
  `  fast path (template + RDFC-1.0 + Ed25519): ${median(ours).toFixed(3)}  [${ours.map((x) => x.toFixed(3)).join(' ')}]`,
);
console.log(
  `  reference vc.issue:                          ${median(theirs).toFixed(3)}  [${theirs.map((x) => x.toFixed(2)).join(' ')}]`,
);
console.log(`  ratio: ${(median(theirs) / median(ours)).toFixed(1)}x`);
