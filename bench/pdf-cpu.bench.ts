// CPU time per certificate of the renderer alone: one thread, no worker pool, names in every
// writing system. `node dist/bench/pdf-cpu.bench.js [--against DIST] [--rounds N] [--count N]`.
// Two workloads: unique names first, as real issuing has them (the 19 world names each made unique
// with a number: no two subsets of the name's fonts alike), then the 19 world names in turn (a
// batch's names repeat exactly). Codes are random, as issued ones are.
// With --against (another build's dist/, e.g. of the commit before a change) both versions run in
// this process, round by round in alternating order, so that the load on the machine falls on both
// alike. CPU time (process.cpuUsage: user + system, garbage collector threads included) moves much
// less with other processes' load than wall time does. Goal: at most 0.75 ms per certificate.
// Many short rounds (`--rounds 301 --count 20`) spread the load's swings evenly over both versions:
// the way to measure a cost of a few percent (issue 32's tags, against a build without them).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RenderValues } from '../src/pdf/render-types.js';
import type { Design } from '../src/pdf/design.schema.js';
import { certificateValues } from './certificate-values.js';

interface Version {
  label: string;
  render: (values: RenderValues) => number; // PDF size in bytes
  samples: Record<Workload, number[]>; // ms of CPU per certificate, one per round
  bytes: Record<Workload, number>;
}
type Workload = 'world names' | 'unique names';
const workloads: Workload[] = ['unique names', 'world names'];

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] ? (process.argv[at + 1] as string) : fallback;
}

const distOfThis = path.resolve(import.meta.dirname, '..');
const against = option('--against', '');
const rounds = Number(option('--rounds', '5'));
const count = Number(option('--count', '1000'));

async function load(label: string, dist: string): Promise<Version> {
  const url = (file: string): string => pathToFileURL(path.join(dist, file)).href;
  const { compileTemplate } = (await import(url('src/pdf/template-compiler.js'))) as {
    compileTemplate: (design: Design) => unknown;
  };
  const { renderDocument } = (await import(url('src/pdf/document-writer.js'))) as {
    renderDocument: (t: unknown, v: RenderValues) => { ok: true; pdf: Buffer } | { ok: false };
  };
  const design = JSON.parse(
    readFileSync(path.join(dist, 'examples/designs/course-completion.json'), 'utf8'),
  ) as Design;
  const compiled = compileTemplate(design);
  return {
    label,
    render: (values) => {
      const result = renderDocument(compiled, values);
      if (!result.ok) throw new Error(`${label}: ${JSON.stringify(result)}`);
      return result.pdf.length;
    },
    samples: { 'world names': [], 'unique names': [] },
    bytes: { 'world names': 0, 'unique names': 0 },
  };
}

function values(i: number, workload: Workload): RenderValues {
  return certificateValues(i, workload === 'unique names');
}

function run(version: Version, round: number, workload: Workload): void {
  const items = Array.from({ length: count }, (_, i) => values(round * count + i, workload));
  const start = process.cpuUsage();
  let bytes = 0;
  for (const item of items) bytes += version.render(item);
  const used = process.cpuUsage(start);
  version.samples[workload].push((used.user + used.system) / 1000 / count);
  version.bytes[workload] = bytes / count;
}

const versions = [await load('this build', distOfThis)];
if (against) versions.unshift(await load(`--against ${against}`, path.resolve(against)));
for (const v of versions) for (let i = 0; i < 1000; i++) v.render(values(1_000_000 + i, 'unique names')); // warm up

console.log(
  `renderer alone, one thread, ${count} certificates per round, ${rounds} rounds (CPU ms per certificate):`,
);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? versions : [...versions].reverse();
  for (const workload of workloads) for (const v of order) run(v, round, workload);
}
const fmt = (n: number): string => n.toFixed(3);
const mean = (xs: number[]): number => xs.reduce((a, x) => a + x, 0) / Math.max(1, xs.length);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
for (const workload of workloads) {
  console.log(`${workload}:`);
  for (const v of versions) {
    const xs = v.samples[workload];
    const each = xs.length <= 15 ? `rounds: ${xs.map(fmt).join(', ')}; ` : '';
    console.log(
      `  ${v.label.padEnd(40)} median ${fmt(median(xs))} ms, mean ${fmt(mean(xs))} ms (${each}` +
        `range ${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}), mean PDF ${Math.round(v.bytes[workload])} bytes`,
    );
  }
  if (versions.length === 2) {
    const [before, after] = versions as [Version, Version];
    const ratios = before.samples[workload].map((b, i) => b / (after.samples[workload][i] ?? b));
    if (ratios.length <= 15)
      console.log(`  speed-up per round: ${ratios.map((r) => `${r.toFixed(2)}x`).join(', ')}`);
    const [b, a] = [mean(before.samples[workload]), mean(after.samples[workload])];
    console.log(
      `  this build against the other: ${((a / b - 1) * 100).toFixed(1)}% CPU (means), ` +
        `median ratio of rounds ${median(ratios.map((r) => 1 / r)).toFixed(3)}`,
    );
  }
}
const mine = median(versions[versions.length - 1]!.samples['world names']);
const unique = median(versions[versions.length - 1]!.samples['unique names']);
console.log(
  `this build: unique names cost ${(unique / mine).toFixed(2)}x what repeated (world) names do (medians)`,
);
console.log(
  `goal: world names at most 0.75 ms per certificate (median): ${mine <= 0.75 ? 'met' : 'not met'}`,
);
