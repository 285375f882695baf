import { renderDocument } from './document-writer.js';
import type { RenderIssue, RenderTemplate, RenderValues } from './render-types.js';
import { parentPort, workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { adoptFontBytes, fontNames, releaseFaces } from './fonts.js';
import { compileTemplate, type CompiledTemplate } from './template-compiler.js';

// Runs in the piscina worker threads. Compiled templates are cached per thread, keyed by id and
// version, so a template's fonts and images are prepared once per thread, not per document.

// The design travels as UTF-8 JSON in a SharedArrayBuffer made once per template version by the
// main thread: a task copies no design (images can be megabytes), and a thread decodes it only when
// the template is not in its cache yet.
// Font files travel the same way (see fonts.ts): the ones the batch's texts call for.
export interface RenderTask {
  template: { id: string; version: string; design: SharedArrayBuffer };
  fonts: Record<string, SharedArrayBuffer>;
  items: RenderValues[];
  /** Leave each document for sealing (pdf-seal.ts): no cross-reference table, no hash. */
  sealable?: boolean;
}

export type WorkerOutcome =
  | { ok: true; pdf: Uint8Array; sha256: string; seal?: { offsets: number[]; base: number; fileId: string } }
  | { ok: false; issues: RenderIssue[] };

const MAX_CACHED_TEMPLATES = 32;
const cache = new Map<string, CompiledTemplate>();

function compiledFor(template: RenderTask['template']): CompiledTemplate {
  const key = `${template.id}\u0000${template.version}`;
  let compiled = cache.get(key);
  if (compiled) {
    cache.delete(key); // re-insert: Map order doubles as least-recently-used order
  } else {
    const design = JSON.parse(
      new TextDecoder().decode(new Uint8Array(template.design).slice()),
    ) as RenderTemplate['design'];
    compiled = compileTemplate(design);
    if (cache.size >= MAX_CACHED_TEMPLATES) cache.delete(cache.keys().next().value ?? '');
  }
  cache.set(key, compiled);
  return compiled;
}

// The bytes in a buffer of their own, exactly sized, so that they can be moved to the main thread
// (posting a pooled Buffer would clone its whole backing store); the writer's are, mostly.
const own = (b: Buffer): Uint8Array => (b.byteLength === b.buffer.byteLength ? b : new Uint8Array(b));

export default function renderTask(task: RenderTask) {
  adoptFontBytes(task.fonts);
  const compiled = compiledFor(task.template);
  releaseFaces();
  const outcomes = task.items.map((item): WorkerOutcome => {
    if (task.sealable) {
      const result = renderDocument(compiled, item, true);
      if (!result.ok) return result;
      if (!('unsealed' in result)) throw new Error('a sealable document was finished');
      // The body is in shared memory (PdfWriter.sharedBody): the main thread hands it on to a PDF
      // thread for the seal (proof.worker.ts) without copying it, and may hand it on again.
      const { body, offsets, base, fileId } = result.unsealed;
      return { ok: true, pdf: body, sha256: '', seal: { offsets, base, fileId } };
    }
    const result = renderDocument(compiled, item);
    if (!result.ok) return result;
    return { ok: true, pdf: own(result.pdf), sha256: result.sha256 };
  });
  // The finished files are moved to the main thread, not cloned: no second copy of a batch's PDFs
  // is made there, and none is left here for the garbage collector.
  return move({
    [transferableSymbol]: outcomes.flatMap((o) =>
      o.ok && o.pdf.buffer instanceof ArrayBuffer ? [o.pdf.buffer] : [],
    ),
    [valueSymbol]: outcomes,
  });
}

// When the thread starts (piscina loads this module eagerly), parse the fonts and run the render path
// a few times, so that the first real request does not pay for font loading and cold code.
function warmUp(): void {
  adoptFontBytes((workerData as { fonts: Record<string, SharedArrayBuffer> }).fonts);
  const design: RenderTemplate['design'] = {
    name: 'warm-up',
    fields: [{ key: 'k', label: 'K', required: false }],
    page: { width: 300, height: 300 },
    elements: [
      ...fontNames.map((font, i) => ({
        type: 'text' as const,
        text: `Warm-up {{recipient.name}} {{data.k}} {{certificate.issuedAt}} ${i}`,
        x: 10,
        y: 10 + 30 * i,
        width: 100,
        font,
      })),
      { type: 'qr', x: 10, y: 150, size: 100 },
    ],
  };
  const compiled = compileTemplate(design);
  for (let i = 0; i < 20; i++) {
    renderDocument(compiled, {
      recipientName: `Zoë Ωmega Жук ${i}`,
      issuedAt: '2026-01-01T00:00:00.000Z',
      uniqueCode: 'WARMUP',
      verificationUrl: `https://warm.up/verify/${i}`,
      data: { k: i },
    });
  }
}
warmUp();
// The pool waits for this before it terminates the thread (pdf-renderer.ts, close()).
parentPort?.postMessage({ pdfWorkerLoaded: true });
