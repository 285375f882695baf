// CPU time per certificate of the renderer alone: one thread, no worker pool, names in every
// writing system. `node dist/bench/pdf-cpu.bench.js [--against DIST] [--rounds N] [--count N]`.
// With --against (another build's dist/, e.g. of the commit before a change) both versions run in
// this process, round by round in alternating order, so that the load on the machine falls on both
// alike. CPU time (process.cpuUsage: user + system, garbage collector threads included) moves much
// less with other processes' load than wall time does. Goal: at most 0.75 ms per certificate.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RenderValues } from '../src/pdf/render-types.js';
import type { Design } from '../src/pdf/design.schema.js';
import { worldNames } from '../test/helpers/world-names.js';

interface Version {
  label: string;
  render: (values: RenderValues) => number; // PDF size in bytes
  samples: number[]; // ms of CPU per certificate, one per round
  bytes: number;
}

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
    samples: [],
    bytes: 0,
  };
}

function values(i: number): RenderValues {
  const code = `BENCH${String(i).padStart(11, '0')}`;
  return {
    recipientName: worldNames[i % worldNames.length]!.name,
    issuedAt: new Date(Date.UTC(2026, 10, 21, 9, 30) + i * 1000).toISOString(),
    uniqueCode: code,
    verificationUrl: `https://certificates.example.com/verify/${code}`,
    data: { course: 'Advanced TypeScript for Services', hours: 12 + (i % 5) },
  };
}

function run(version: Version, round: number): void {
  const items = Array.from({ length: count }, (_, i) => values(round * count + i));
  const start = process.cpuUsage();
  let bytes = 0;
  for (const item of items) bytes += version.render(item);
  const used = process.cpuUsage(start);
  version.samples.push((used.user + used.system) / 1000 / count);
  version.bytes = bytes / count;
}

const versions = [await load('this build', distOfThis)];
if (against) versions.unshift(await load(`--against ${against}`, path.resolve(against)));
for (const v of versions) for (let i = 0; i < 300; i++) v.render(values(1_000_000 + i)); // warm up

console.log(
  `renderer alone, one thread, ${count} certificates per round, names in ${worldNames.length} scripts (CPU ms per certificate):`,
);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? versions : [...versions].reverse();
  for (const v of order) run(v, round);
}
const fmt = (n: number): string => n.toFixed(3);
for (const v of versions) {
  const sorted = [...v.samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  console.log(
    `  ${v.label.padEnd(40)} median ${fmt(median)} ms (rounds: ${v.samples.map(fmt).join(', ')}; ` +
      `range ${fmt(sorted[0] ?? 0)}-${fmt(sorted[sorted.length - 1] ?? 0)}), mean PDF ${Math.round(v.bytes)} bytes`,
  );
}
if (versions.length === 2) {
  const [before, after] = versions as [Version, Version];
  const ratios = before.samples.map((b, i) => b / (after.samples[i] ?? b));
  console.log(`  speed-up per round: ${ratios.map((r) => `${r.toFixed(2)}x`).join(', ')}`);
}
const mine = versions[versions.length - 1]!.samples;
const best = [...mine].sort((a, b) => a - b)[Math.floor(mine.length / 2)] ?? 0;
console.log(`  goal: at most 0.75 ms per certificate: ${best <= 0.75 ? 'met' : 'not met'} (median)`);
