// CPU time per signed certificate on one thread, no worker pool, world names: what issuing does per
// certificate for its two proofs. `node dist/bench/signed-cpu.bench.js [--rounds N] [--count N]
// [--out FILE]`. Per certificate: the sealable document rendered (renderDocument, as the workers
// do), its Open Badges credential made and signed by the fast path the credentials service uses
// (the shape's RDF filled, RDFC-1.0, Ed25519; JSON as frozen), then the PDF sealed (sealPdf: the
// credential attached, a PAdES B-B CMS signature by a self-signed ECDSA P-256 certificate through
// createCmsSigner, as the PDF signing service does without TSA_URL). The three steps are also timed
// apart, interleaved in the same rounds. CPU time is process.cpuUsage (user + system, every thread).
// Goal (issue 17, part 6): at most 1.2 ms per certificate, rendering and both signatures.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { compileTemplate } from '../src/pdf/template-compiler.js';
import { renderDocument } from '../src/pdf/document-writer.js';
import { sealPdf, type UnsealedPdf } from '../src/pdf/pdf-seal.js';
import type { Design } from '../src/pdf/design.schema.js';
import type { RenderValues } from '../src/pdf/render-types.js';
import { CREDENTIAL_SHAPE, openBadgeCredential } from '../src/modules/proof/open-badge.js';
import { signFromTemplate } from '../src/platform/proof/data-integrity.js';
import { compileRdfTemplate } from '../src/platform/proof/rdf-template.js';
import { createCmsSigner } from '../src/platform/proof/cms.js';
import { selfSignedCertificate } from '../src/platform/proof/x509.js';
import { testIssuer } from '../test/credentials/reference.js';
import { certificateValues } from './certificate-values.js';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] ? (process.argv[at + 1] as string) : fallback;
}
const rounds = Number(option('--rounds', '5'));
const count = Number(option('--count', '500'));
const out = option('--out', '');

const dist = path.resolve(import.meta.dirname, '..');
const design = JSON.parse(
  readFileSync(path.join(dist, 'examples/designs/course-completion.json'), 'utf8'),
) as Design;
const compiled = compileTemplate(design);

// The credential's issuer (Ed25519, as an account's key) and the PDF's signer (a self-signed
// ECDSA P-256 certificate, as generated for an account).
const issuer = testIssuer();
const rdf = await compileRdfTemplate(CREDENTIAL_SHAPE);
const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const certificate = selfSignedCertificate({
  commonName: 'Babbage Academy',
  publicKey,
  privateKey,
  notBefore: new Date('2026-01-01T00:00:00Z'),
});
const cms = createCmsSigner({ certificate, chain: [], privateKey });

function render(values: RenderValues): UnsealedPdf {
  const result = renderDocument(compiled, values, true);
  if (!result.ok || !('unsealed' in result)) throw new Error(`not rendered: ${JSON.stringify(result)}`);
  return result.unsealed;
}

async function credential(i: number, values: RenderValues): Promise<Buffer> {
  const { document, values: slots } = openBadgeCredential({
    certificateId: `0192f1c4-5b6e-7a8b-9c0d-${String(i).padStart(12, '0')}`,
    issuedAt: values.issuedAt,
    issuerDid: issuer.did,
    issuerName: 'Babbage Academy',
    recipientName: values.recipientName,
    recipientEmail: `learner${i}@example.com`,
    achievementId: 'urn:uuid:0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c70',
    title: 'Advanced TypeScript for Services',
    templateName: 'Course completion',
    recipientDescription: null,
    statusListUrl: 'https://certs.example.com/issuers/0192f1c4/status/0',
    statusIndex: (i * 7919) % 131072,
  });
  const signed = await signFromTemplate(document, rdf, slots, issuer.signer, values.issuedAt);
  return Buffer.from(JSON.stringify(signed, null, 2)); // as the credentials service freezes it
}

async function seal(unsealed: UnsealedPdf, attachment: Buffer, signedAt: string) {
  return sealPdf(unsealed, {
    attachment,
    signedAt,
    reserve: cms.maxLength,
    sign: (digest) => cms.sign(digest),
  });
}

async function signedCertificate(i: number): Promise<Buffer> {
  const values = certificateValues(i, false);
  const unsealed = render(values);
  return (await seal(unsealed, await credential(i, values), values.issuedAt)).pdf;
}

type Step = 'all three, per certificate' | 'rendering (sealable)' | 'credential' | 'PDF seal';
const steps: Step[] = ['all three, per certificate', 'rendering (sealable)', 'credential', 'PDF seal'];
const samples = new Map<Step, number[]>(steps.map((s) => [s, []]));
let bytes = 0;

const cpu = (start: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / count;
};

async function together(first: number): Promise<void> {
  // All three steps, one certificate after the other, as an issue does them.
  const start = process.cpuUsage();
  let total = 0;
  for (let k = 0; k < count; k++) total += (await signedCertificate(first + k)).length;
  samples.get('all three, per certificate')!.push(cpu(start));
  bytes = total / count;
}

async function apart(first: number): Promise<void> {
  // Each step apart, on the same certificates (their inputs made outside the timed part).
  const items = Array.from({ length: count }, (_, k) => certificateValues(first + k, false));
  let start = process.cpuUsage();
  const unsealed = items.map(render);
  samples.get('rendering (sealable)')!.push(cpu(start));
  start = process.cpuUsage();
  const credentials: Buffer[] = [];
  for (let k = 0; k < count; k++) credentials.push(await credential(first + k, items[k]!));
  samples.get('credential')!.push(cpu(start));
  start = process.cpuUsage();
  for (let k = 0; k < count; k++) await seal(unsealed[k]!, credentials[k]!, items[k]!.issuedAt);
  samples.get('PDF seal')!.push(cpu(start));
}

// Rounds alternate which of the two comes first.
async function round(r: number): Promise<void> {
  if (r % 2 === 0) {
    await together(r * count);
    await apart(r * count);
  } else {
    await apart(r * count);
    await together(r * count);
  }
}

for (let i = 0; i < 1000; i++) await signedCertificate(1_000_000 + i); // warm up
if (out) writeFileSync(out, await signedCertificate(0));

for (let r = 0; r < rounds; r++) await round(r);

const fmt = (n: number): string => n.toFixed(3);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
console.log(
  `signed certificates, world names, one thread, ${count} certificates per round, ${rounds} rounds (CPU ms per certificate):`,
);
for (const step of steps) {
  const xs = samples.get(step)!;
  console.log(
    `  ${step.padEnd(28)} median ${fmt(median(xs))} ms (rounds: ${xs.map(fmt).join(', ')}; ` +
      `range ${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))})`,
  );
}
console.log(`  mean signed PDF ${Math.round(bytes)} bytes`);
const all = median(samples.get('all three, per certificate')!);
console.log(
  `goal: rendering + credential + PDF signature at most 1.2 ms per certificate (median): ${all <= 1.2 ? 'met' : 'not met'}`,
);
