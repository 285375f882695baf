// Our renderer against Typst, CPU time per certificate, same run, same layout, one thread.
// `node dist/bench/typst.bench.js [--rounds N] [--count N] [--without-qr] [--out DIR]`.
//
// Typst is `@myriaddreamin/typst-ts-node-compiler` (Typst 0.14 compiled to a Node addon; a dev
// dependency). Its template is made from the same design (examples/designs/course-completion.json) by
// `typstSource` below: the same page, rectangles, logo, texts (same fonts, sizes, colours, line boxes
// and shrink-to-fit) and QR code. It is compiled by one NodeCompiler, created once with the same font
// files as ours (DejaVu and the Noto fallbacks, from node_modules); each certificate changes only
// `sys.inputs` (name, course, hours, date, code, URL, QR code), so Typst's caches keep everything
// else between certificates, as they would in a service built on it.
//
// The QR code: Typst has no QR encoder of its own (its QR packages come from its package registry,
// not reachable here), so for Typst the bench encodes the URL with the same encoder and settings as
// our renderer (our own encoder, src/pdf/qr-encode.ts: byte mode, mask 2, level M), inside Typst's timed section, and hands it to
// Typst as a small SVG image (vector, one path, as ours). `--without-qr` drops the QR code from the
// design for both engines. `--out DIR` writes both engines' first 19 certificates there, to compare.
//
// Two workloads (bench/certificate-values.ts): unique names first, as real issuing has them (the 19
// world names each made unique with its number: no two subsets of the name's fonts alike), then the
// 19 world names repeating. Both engines render them round by round in alternating order, so that
// the machine's load falls on both alike. CPU time is process.cpuUsage (user + system, every thread
// of the process). Typst runs on one thread: RAYON_NUM_THREADS=1 is set before its addon loads.
// Goals: ours at most 0.75 ms per certificate with world names, at least 2x ahead (issue 17); at
// least 6x ahead with unique names (issue 34).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { compileTemplate } from '../src/pdf/template-compiler.js';
import { renderDocument } from '../src/pdf/document-writer.js';
import { allBundledFaces, bundledFacePath } from '../src/pdf/font-catalog.js';
import { QR_MASK, QUIET_ZONE } from '../src/pdf/qr-code.js';
import { encodeQr } from '../src/pdf/qr-encode.js';
import { fillText, parseText, valueOf, type ValueRef } from '../src/pdf/placeholders.js';
import type { Design, QrElement, TextElement } from '../src/pdf/design.schema.js';
import type { RenderValues } from '../src/pdf/render-types.js';
import { certificateValues } from './certificate-values.js';

process.env.RAYON_NUM_THREADS = '1'; // read when Typst first starts its thread pool

type Typst = typeof import('@myriaddreamin/typst-ts-node-compiler');
const { NodeCompiler } = createRequire(import.meta.url)('@myriaddreamin/typst-ts-node-compiler') as Typst;

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] ? (process.argv[at + 1] as string) : fallback;
}

const rounds = Number(option('--rounds', '5'));
const count = Number(option('--count', '500'));
const out = option('--out', '');

const root = path.resolve(import.meta.dirname, '../..');
const withoutQr = process.argv.includes('--without-qr'); // drops the design's QR code, for both engines
const sample = JSON.parse(
  readFileSync(path.join(root, 'examples/designs/course-completion.json'), 'utf8'),
) as Design;
const design: Design = withoutQr
  ? { ...sample, elements: sample.elements.filter((e) => e.type !== 'qr') }
  : sample;
const qr = design.elements.find((e): e is QrElement => e.type === 'qr');

// ---- Typst's template, made from the design -------------------------------------------------------

const WORKSPACE = '/certsvc-typst-bench'; // virtual: every file is given to the compiler in memory
const MAIN = `${WORKSPACE}/main.typ`;

// The fallback families in the order of src/pdf/font-catalog.ts (Japanese before Chinese for kana,
// Simplified before Traditional for Han).
const FALLBACKS = [
  'Noto Sans Arabic',
  'Noto Sans Hebrew',
  'Noto Sans Devanagari',
  'Noto Sans Bengali',
  'Noto Sans Tamil',
  'Noto Sans Thai',
  'Noto Sans Georgian',
  'Noto Sans Armenian',
  'Noto Sans JP',
  'Noto Sans KR',
  'Noto Sans SC',
  'Noto Sans TC',
];
const FAMILY = { sans: 'DejaVu Sans', serif: 'DejaVu Serif' };

/** A Typst string literal. */
function str(s: string): string {
  let out = '"';
  for (const c of s) {
    const code = c.codePointAt(0)!;
    out += c === '\\' || c === '"' ? `\\${c}` : code < 0x20 ? `\\u{${code.toString(16)}}` : c;
  }
  return `${out}"`;
}
const pt = (n: number): string => `${n}pt`;
const colour = (hex: string): string => `rgb(${str(hex)})`;

/** The input a placeholder reads: one sys.inputs key per distinct placeholder. */
function inputKey(ref: ValueRef): string {
  return ref.source === 'data' ? `data.${ref.key}` : ref.source;
}

function textExpression(text: string): string {
  const parts = parseText(text).segments.map((s) =>
    'literal' in s ? str(s.literal) : `sys.inputs.at(${str(inputKey(s.ref))}, default: "")`,
  );
  return parts.length ? parts.join(' + ') : '""';
}

// A line box as the design format defines it: `size` x 1.164 (1.175 for serif-bold) tall, the
// baseline one ascent below its top, the text shrunk to the box's width if wider (then centred
// vertically in the nominal box), never wrapped.
const PRELUDE = `
#let textline(x, y, width, size, ascent, family, weight, fill, alignment, body) = place(top + left, dx: x, dy: y,
  box(width: width, height: size * (ascent + 0.236), {
    set text(font: (family, ..fallbacks), weight: weight, fill: fill, size: size,
      top-edge: ascent * 1em, bottom-edge: -0.236em, hyphenate: false, ligatures: true)
    set align(alignment + horizon)
    context {
      let natural = measure(box(body)).width
      if natural > width { text(size: size * (width / natural), box(body)) } else { box(body) }
    }
  }))
`;

function textLine(e: TextElement): string {
  const font = e.font ?? 'sans';
  if (!['sans', 'sans-bold', 'serif', 'serif-bold'].includes(font)) throw new Error(`font ${font}: not here`);
  const family = font.startsWith('serif') ? FAMILY.serif : FAMILY.sans;
  const weight = font.endsWith('bold') ? '"bold"' : '"regular"';
  const ascent = font === 'serif-bold' ? 0.939 : 0.928;
  const size = e.size ?? 14;
  return `#textline(${pt(e.x)}, ${pt(e.y)}, ${pt(e.width)}, ${pt(size)}, ${ascent}, ${str(family)}, ${weight}, ${colour(e.color ?? '#000000')}, ${e.align ?? 'left'}, ${textExpression(e.text)})`;
}

/** Typst source and the files it reads (the design's images), for `design`. */
function typstSource(d: Design): { source: string; files: Map<string, Buffer> } {
  const files = new Map<string, Buffer>();
  const lines = [
    `#let fallbacks = (${FALLBACKS.map(str).join(', ')},)`,
    `#set document(title: sys.inputs.at("title", default: none), date: auto)`,
    `#set page(width: ${pt(d.page.width)}, height: ${pt(d.page.height)}, margin: 0pt, fill: ${d.background?.color ? colour(d.background.color) : 'none'})`,
    PRELUDE,
  ];
  for (const e of d.elements) {
    switch (e.type) {
      case 'rect': {
        const stroke = e.stroke ? `${pt(e.strokeWidth ?? 1)} + ${colour(e.stroke)}` : 'none';
        lines.push(
          `#place(top + left, dx: ${pt(e.x)}, dy: ${pt(e.y)}, rect(width: ${pt(e.width)}, height: ${pt(e.height)}, fill: ${e.fill ? colour(e.fill) : 'none'}, stroke: ${stroke}))`,
        );
        break;
      }
      case 'image': {
        const [, kind, base64] = /^data:image\/(png|jpeg);base64,(.*)$/.exec(e.src) ?? [];
        if (!kind || !base64) throw new Error('image: only data URLs');
        const file = `/image-${files.size}.${kind === 'png' ? 'png' : 'jpg'}`;
        files.set(file, Buffer.from(base64, 'base64'));
        lines.push(
          `#place(top + left, dx: ${pt(e.x)}, dy: ${pt(e.y)}, image(${str(file)}, width: ${pt(e.width)}, height: ${pt(e.height)}, fit: "stretch"))`,
        );
        break;
      }
      case 'text':
        lines.push(textLine(e));
        break;
      case 'qr':
        // sys.inputs.qr: the code as an SVG image (qrSvg). Drawing the modules as a curve in Typst's
        // own language instead was slower (about 5.7 against 5.0 ms a certificate in a trial run).
        lines.push(
          `#place(top + left, dx: ${pt(e.x)}, dy: ${pt(e.y)}, image(bytes(sys.inputs.qr), format: "svg", width: ${pt(e.size)}, height: ${pt(e.size)}))`,
        );
        break;
    }
  }
  return { source: lines.join('\n') + '\n', files };
}

/**
 * The QR code of `text` as an SVG image: the same encoder and settings as src/pdf/qr-code.ts, the
 * background square, then the dark modules, row by row, as one path of runs (as ours draws them).
 */
function qrSvg(e: QrElement, text: string): string {
  const { size: n, modules: data } = encodeQr(Buffer.from(text, 'utf8'), QR_MASK);
  const side = n + 2 * QUIET_ZONE;
  let d = '';
  for (let row = 0; row < n; row++) {
    let col = 0;
    while (col < n) {
      if (!data[row * n + col]) {
        col++;
        continue;
      }
      const start = col;
      while (col < n && data[row * n + col]) col++;
      d += `M${start + QUIET_ZONE} ${row + QUIET_ZONE}h${col - start}v1h-${col - start}z`;
    }
  }
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${side} ${side}">` +
    `<rect width="${side}" height="${side}" fill="${e.background ?? '#FFFFFF'}"/>` +
    `<path fill="${e.color ?? '#000000'}" d="${d}"/></svg>`
  );
}

// Every placeholder of the design, with the same text our renderer puts there (valueOf).
const refs = new Map<string, ValueRef>();
for (const e of design.elements) {
  if (e.type !== 'text') continue;
  for (const s of parseText(e.text).segments) if ('ref' in s) refs.set(inputKey(s.ref), s.ref);
}

type Workload = 'unique names' | 'world names';
const workloads: Workload[] = ['unique names', 'world names'];

interface Engine {
  label: string;
  render: (values: RenderValues) => Buffer;
  samples: Record<Workload, number[]>; // ms of CPU per certificate, one per round
  bytes: Record<Workload, number>;
}

const noSamples = (): Engine['samples'] => ({ 'unique names': [], 'world names': [] });
const noBytes = (): Engine['bytes'] => ({ 'unique names': 0, 'world names': 0 });

function typstEngine(): Engine {
  const { source, files } = typstSource(design);
  const compiler = NodeCompiler.create({
    workspace: WORKSPACE,
    fontArgs: [{ fontBlobs: allBundledFaces.map((face) => readFileSync(bundledFacePath(face))) }],
  });
  compiler.addSource(MAIN, source);
  for (const [file, bytes] of files) compiler.mapShadow(`${WORKSPACE}${file}`, bytes);
  let rendered = 0;
  return {
    label: 'Typst 0.14 (typst-ts-node-compiler 0.7.0)',
    render(values) {
      const inputs: Record<string, string> = { title: fillText(design.title ?? design.name, values) };
      for (const [key, ref] of refs) inputs[key] = valueOf(ref, values) ?? '';
      if (qr) inputs.qr = qrSvg(qr, values.verificationUrl);
      const result = compiler.compile({ mainFilePath: MAIN, inputs });
      const document = result.result;
      if (!document || result.hasError()) {
        result.printErrors();
        throw new Error('typst: the certificate did not compile');
      }
      const pdf = compiler.pdf(document, {
        pdfTags: false, // ours are not tagged either
        creationTimestamp: Math.floor(Date.parse(values.issuedAt) / 1000),
      });
      // Typst's memo cache grows with every distinct input; its own CLI evicts after each compile in
      // watch mode. Every 100 certificates here, inside the timed section.
      if (++rendered % 100 === 0) compiler.evictCache(10);
      return pdf;
    },
    samples: noSamples(),
    bytes: noBytes(),
  };
}

function certsvcEngine(): Engine {
  const compiled = compileTemplate(design);
  return {
    label: 'certsvc (this build)',
    render(values) {
      const result = renderDocument(compiled, values);
      if (!result.ok) throw new Error(`certsvc: ${JSON.stringify(result)}`);
      return result.pdf;
    },
    samples: noSamples(),
    bytes: noBytes(),
  };
}

const engines = [certsvcEngine(), typstEngine()];
if (out) {
  mkdirSync(out, { recursive: true });
  for (const [e, file] of engines.map((e, k) => [e, k === 0 ? 'certsvc' : 'typst'] as const))
    for (let i = 0; i < 19; i++)
      writeFileSync(path.join(out, `${file}-${i}.pdf`), e.render(certificateValues(i, false)));
}
for (const e of engines) for (let i = 0; i < 1000; i++) e.render(certificateValues(1_000_000 + i, true)); // warm up

function run(engine: Engine, round: number, workload: Workload): void {
  const unique = workload === 'unique names';
  const items = Array.from({ length: count }, (_, i) => certificateValues(round * count + i, unique));
  const start = process.cpuUsage();
  let bytes = 0;
  for (const item of items) bytes += engine.render(item).length;
  const used = process.cpuUsage(start);
  engine.samples[workload].push((used.user + used.system) / 1000 / count);
  engine.bytes[workload] = bytes / count;
}

console.log(
  `certsvc against Typst${withoutQr ? ' (no QR code)' : ''}, one thread, ${count} certificates per engine, workload and round, ${rounds} rounds (CPU ms per certificate):`,
);
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? engines : [...engines].reverse();
  for (const workload of workloads) for (const e of order) run(e, round, workload);
}
const fmt = (n: number): string => n.toFixed(3);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const [ours, typst] = engines as [Engine, Engine];
const ratioOf = (workload: Workload): number =>
  median(typst.samples[workload]) / median(ours.samples[workload]);
for (const workload of workloads) {
  console.log(`${workload}:`);
  for (const e of engines) {
    const xs = e.samples[workload];
    console.log(
      `  ${e.label.padEnd(42)} median ${fmt(median(xs))} ms (rounds: ${xs.map(fmt).join(', ')}), ` +
        `mean PDF ${Math.round(e.bytes[workload])} bytes`,
    );
  }
  const ratios = typst.samples[workload].map((t, i) => t / ours.samples[workload][i]!);
  console.log(`  Typst / certsvc per round: ${ratios.map((r) => `${r.toFixed(2)}x`).join(', ')}`);
  console.log(`  ratio of the medians: ${ratioOf(workload).toFixed(2)}x`);
}
const world = median(ours.samples['world names']);
const met = (ok: boolean): string => (ok ? 'met' : 'not met');
console.log(
  `goals: at least 6x ahead of Typst with unique names (ratio of the medians): ${met(ratioOf('unique names') >= 6)}; ` +
    `certsvc at most 0.75 ms with world names (median): ${met(world <= 0.75)}; ` +
    `at least 2x ahead with world names: ${met(ratioOf('world names') >= 2)}`,
);
