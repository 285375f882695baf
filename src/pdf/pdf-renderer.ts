import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { designFaces, fallbackFaceIds } from './font-catalog.js';
import { sharedFontBytes } from './fonts.js';
import type { RenderTask, WorkerOutcome } from './pdf.worker.js';
import type { RenderOutcome, RenderTemplate, RenderValues } from './render-types.js';

export type { DataValue, RenderIssue, RenderOutcome, RenderTemplate, RenderValues } from './render-types.js';
export { designIssues, sampleValues } from './design-issues.js';

export interface PdfRenderer {
  /** One outcome per item, in the same order. */
  render(template: RenderTemplate, items: RenderValues[]): Promise<RenderOutcome[]>;
  close(): Promise<void>;
}

// Enough chunks per thread to even out a slow start (a thread compiling the template) without
// paying the per-task messaging cost too often.
const CHUNKS_PER_THREAD = 4;
const MIN_CHUNK = 8;

export function createPdfRenderer(opts: { threads?: number } = {}): PdfRenderer {
  const threads = Math.max(1, opts.threads ?? availableParallelism());
  const pool = new Piscina<RenderTask, WorkerOutcome[]>({
    filename: new URL('./pdf.worker.js', import.meta.url).href,
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    // The design fonts, shared from the start: the workers warm up with them.
    workerData: { fonts: sharedFontBytes(Object.values(designFaces).map((f) => f.id)) },
  });
  let closed = false;
  // One SharedArrayBuffer per template version (a few recent ones), handed to every task.
  const designs = new Map<string, RenderTask['template'] & { texts: string; weights: boolean[] }>();
  function sharedTemplate(template: RenderTemplate) {
    const key = `${template.id}\u0000${template.version}`;
    let shared = designs.get(key);
    if (!shared) {
      const bytes = new TextEncoder().encode(JSON.stringify(template.design));
      const design = new SharedArrayBuffer(bytes.length);
      new Uint8Array(design).set(bytes);
      const texts = template.design.elements.flatMap((e) => (e.type === 'text' ? [e.text] : []));
      const weights = [
        ...new Set(template.design.elements.flatMap((e) => (e.type === 'text' ? [isBold(e.font)] : []))),
      ];
      shared = { id: template.id, version: template.version, design, texts: texts.join('\n'), weights };
      if (designs.size >= 16) designs.delete(designs.keys().next().value ?? '');
      designs.set(key, shared);
    }
    return shared;
  }

  return {
    async render(template, items) {
      if (closed) throw new Error('PDF renderer is closed');
      if (items.length === 0) return [];
      const shared = sharedTemplate(template);
      const fonts = sharedFontBytes(fallbacksFor(shared, items));
      const chunkSize = Math.max(MIN_CHUNK, Math.ceil(items.length / (threads * CHUNKS_PER_THREAD)));
      const chunks: Promise<WorkerOutcome[]>[] = [];
      for (let start = 0; start < items.length; start += chunkSize) {
        chunks.push(
          pool.run({
            template: { id: shared.id, version: shared.version, design: shared.design },
            fonts,
            items: items.slice(start, start + chunkSize),
          }),
        );
      }
      const outcomes: RenderOutcome[] = [];
      for (const chunk of await Promise.all(chunks)) {
        for (const outcome of chunk) {
          outcomes.push(
            outcome.ok
              ? {
                  ok: true,
                  pdf: Buffer.from(outcome.pdf.buffer, outcome.pdf.byteOffset, outcome.pdf.byteLength),
                  sha256: outcome.sha256,
                }
              : outcome,
          );
        }
      }
      return outcomes;
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.destroy();
    },
  };
}

const isBold = (font: string | undefined): boolean => font?.endsWith('bold') ?? false;

// The fallback fonts the design's texts and the batch's values call for (see font-catalog.ts):
// loaded here once per process and shared with the workers, which never read font files themselves.
function fallbacksFor(template: { texts: string; weights: boolean[] }, items: RenderValues[]): string[] {
  let text = template.texts;
  for (const item of items) {
    text += `\n${String(item.recipientName)}`;
    for (const value of Object.values(item.data ?? {})) text += `\n${String(value)}`;
  }
  return template.weights.flatMap((bold) => fallbackFaceIds(text, bold));
}
