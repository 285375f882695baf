import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { FairTaskQueue, laneOption } from './fair-queue.js';
import { destroyAfterLoads } from './pool-loads.js';
import {
  designFaces,
  fallbackFaceIds,
  fallbackStyle,
  type FallbackStyle,
  type FontName,
} from './font-catalog.js';
import { sharedFontBytes } from './fonts.js';
import type { RenderTask, WorkerOutcome } from './pdf.worker.js';
import type { Design } from './design.schema.js';
import { parseText, resolveSignatories, type ValueRef } from './placeholders.js';
import { signatoryTexts } from './signatory-block.js';
import type { RenderOutcome, RenderTemplate, RenderValues, SealableOutcome } from './render-types.js';

export type {
  DataValue,
  ListItem,
  RenderIssue,
  RenderOutcome,
  RenderTemplate,
  RenderValues,
  SealableOutcome,
  UnsealedPdf,
} from './render-types.js';
export { createPdfSealer, type SealItem } from './pdf-seal.js';
export { designIssues, sampleValues } from './design-issues.js';
export { createFileChecker, type FileChecker } from './file-checker.js';
export { NOT_A_FONT } from './font-check.js';

export interface PdfRenderer {
  /** One outcome per item, in the same order. */
  render(template: RenderTemplate, items: RenderValues[]): Promise<RenderOutcome[]>;
  /** Documents left for sealing (createPdfSealer): what issuing freezes once signed. */
  renderSealable(template: RenderTemplate, items: RenderValues[]): Promise<SealableOutcome[]>;
  /**
   * Work of a floor above on these threads (the proofs of an issue: its credentials signed, its PDFs
   * sealed): `module`'s default export is called with `{ ...shared, items }` for chunks of the items
   * and returns one outcome per item. Chunks take turns with render calls (fair-queue.ts).
   */
  runEach<I, O>(module: URL, shared: object, items: I[]): Promise<O[]>;
  close(): Promise<void>;
}

// Enough chunks per thread to even out a slow start (a thread compiling the template) without
// paying the per-task messaging cost too often.
const CHUNKS_PER_THREAD = 4;
const MIN_CHUNK = 8;
// The V8 young generation of each thread, in MB. Left to V8 (semi-spaces of up to 16 MB), each
// thread's heap reached 54-80 MB in batches of 500; with this limit 28-43 MB, at the same CPU per
// batch: what a document allocates is garbage before the next one (docs/benchmarks.md).
const YOUNG_GENERATION_MB = 12;
// How long close() waits at most for threads still loading (warming up) before it terminates them.
const LOAD_WAIT_MS = 5_000;

export function createPdfRenderer(opts: { threads?: number } = {}): PdfRenderer {
  const threads = Math.max(1, opts.threads ?? availableParallelism());
  // Tasks: RenderTask (pdf.worker.ts), or a module's of runEach.
  const pool = new Piscina<object, unknown>({
    filename: new URL('./pdf.worker.js', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    // Render calls take turns: a single issue is not held behind a whole batch (fair-queue.ts).
    taskQueue: new FairTaskQueue(),
    stricterFIFO: true,
    resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    // The event loop runs between tasks, so HarfBuzz's finalisers free a design's own fonts there
    // (fonts.ts, releaseFaces); a blocking Atomics.wait never let them run.
    atomics: 'async',
    // The design fonts, shared from the start: the workers warm up with them.
    workerData: { fonts: sharedFontBytes(Object.values(designFaces).map((f) => f.id)) },
  });
  let closed = false;
  // pdf.worker.ts posts pdfWorkerLoaded after its warm-up; close() waits for the loads first.
  const destroy = destroyAfterLoads(pool, 'pdfWorkerLoaded', { threads, waitMs: LOAD_WAIT_MS });
  // One SharedArrayBuffer per template version (a few recent ones), handed to every task.
  const designs = new Map<string, RenderTask['template'] & { texts: TextFonts[] }>();
  function sharedTemplate(template: RenderTemplate) {
    const key = `${template.id}\u0000${template.version}`;
    let shared = designs.get(key);
    if (!shared) {
      const bytes = new TextEncoder().encode(JSON.stringify(template.design));
      const design = new SharedArrayBuffer(bytes.length);
      new Uint8Array(design).set(bytes);
      shared = { id: template.id, version: template.version, design, texts: textFonts(template.design) };
      if (designs.size >= 16) designs.delete(designs.keys().next().value ?? '');
      designs.set(key, shared);
    }
    return shared;
  }

  // The items in chunks over the threads, in one lane; `filename`: another module than the renderer.
  async function inChunks<I, O>(task: object, items: I[], filename?: string): Promise<O[]> {
    if (closed) throw new Error('PDF renderer is closed');
    if (items.length === 0) return [];
    const chunkSize = Math.max(MIN_CHUNK, Math.ceil(items.length / (threads * CHUNKS_PER_THREAD)));
    const chunks: Promise<O[]>[] = [];
    const lane = laneOption({});
    for (let start = 0; start < items.length; start += chunkSize) {
      const chunk = { ...task, items: items.slice(start, start + chunkSize), ...lane };
      chunks.push(pool.run(chunk, filename ? { filename } : {}) as Promise<O[]>);
    }
    return (await Promise.all(chunks)).flat();
  }

  async function run(
    template: RenderTemplate,
    items: RenderValues[],
    sealable: boolean,
  ): Promise<WorkerOutcome[]> {
    if (closed) throw new Error('PDF renderer is closed');
    if (items.length === 0) return [];
    const shared = sharedTemplate(template);
    const task: Omit<RenderTask, 'items'> = {
      template: { id: shared.id, version: shared.version, design: shared.design },
      fonts: sharedFontBytes(fallbacksFor(shared.texts, items)),
      sealable,
    };
    return inChunks(task, items);
  }
  const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

  return {
    async render(template, items) {
      return (await run(template, items, false)).map((outcome) =>
        outcome.ok ? { ok: true, pdf: asBuffer(outcome.pdf), sha256: outcome.sha256 } : outcome,
      );
    },
    async renderSealable(template, items) {
      return (await run(template, items, true)).map((outcome) =>
        outcome.ok
          ? {
              ok: true,
              unsealed: {
                body: asBuffer(outcome.pdf),
                offsets: outcome.seal!.offsets,
                base: outcome.seal!.base,
                fileId: outcome.seal!.fileId,
              },
            }
          : outcome,
      );
    },
    runEach(module, shared, items) {
      return inChunks(shared, items, module.href);
    },
    async close() {
      if (closed) return;
      closed = true;
      await destroy();
    },
  };
}

// What each text element needs to know to pick fallback fonts: its family and weight (a design
// font's are its bundled fallback's) with the design's locale, its literal text and the values it shows.
interface TextFonts {
  style: FallbackStyle;
  literal: string;
  refs: ValueRef[];
}

function textFonts(design: Design): TextFonts[] {
  const fallbackOf = new Map((design.fonts ?? []).map((f) => [f.name, f.fallback ?? 'sans']));
  const style = (font: string | undefined) =>
    fallbackStyle((fallbackOf.get(font ?? '') ?? font ?? 'sans') as FontName, design.locale);
  return design.elements.flatMap((e): TextFonts[] => {
    if (e.type === 'table') {
      // The header in bold, the rows in the table's font (table-layout.ts).
      const bold: FallbackStyle = { ...style(e.font), bold: true };
      return [
        { style: bold, literal: e.columns.map((c) => c.label).join(' '), refs: [] },
        { style: style(e.font), literal: '', refs: [{ source: 'data', key: e.field }] },
      ];
    }
    if (e.type === 'signatory') {
      const signatory = design.signatories?.[e.index - 1];
      return signatory
        ? [{ style: style(e.font), literal: signatoryTexts(signatory).join('\n'), refs: [] }]
        : [];
    }
    if (e.type !== 'text') return [];
    // The signatories' values are literal text by now (resolveSignatories).
    const { segments } = resolveSignatories(parseText(e.text).segments, design.signatories);
    return [
      {
        style: style(e.font),
        literal: segments.map((s) => ('literal' in s ? s.literal : '')).join(''),
        refs: segments.flatMap((s) => ('ref' in s ? [s.ref] : [])),
      },
    ];
  });
}

// The fallback fonts the batch's texts call for, each in the weight of the element that shows it
// (see font-catalog.ts): loaded here once per process and shared with the workers.
function fallbacksFor(texts: TextFonts[], items: RenderValues[]): string[] {
  const ids = new Set<string>();
  for (const { style, literal, refs } of texts) {
    let text = literal;
    for (const ref of refs) {
      if (ref.source === 'issuedAt' || ref.source === 'expiresAt') continue; // drawn as English dates
      for (const item of items) text += `\n${String(shownValue(ref, item))}`;
    }
    for (const id of fallbackFaceIds(text, style)) ids.add(id);
  }
  return [...ids];
}

function shownValue(ref: ValueRef, item: RenderValues): unknown {
  if (ref.source === 'data') {
    const value = item.data?.[ref.key] ?? '';
    // A list's items: every value of every item (a table shows them).
    if (Array.isArray(value))
      return value
        .map((row) => (row && typeof row === 'object' ? Object.values(row).join('\n') : ''))
        .join('\n');
    return value;
  }
  return ref.source === 'name'
    ? item.recipientName
    : ref.source === 'uniqueCode'
      ? item.uniqueCode
      : item.verificationUrl;
}
