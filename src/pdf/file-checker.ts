import { createHash } from 'node:crypto';
import { Piscina } from 'piscina';
import type { Design } from './design.schema.js';
import { ServiceUnavailableError } from '../platform/errors.js';
import { destroyAfterLoads } from './pool-loads.js';
import type { RenderIssue } from './render-types.js';
import type { CheckResult, CheckTask } from './untrusted.worker.js';

// The checks of what people send (designs, and the images and fonts they upload) run here, in
// threads of their own, never on the event loop: whatever a file holds, the server keeps answering
// everyone else. Each thread has a memory cap and each check a time limit; a thread that reaches
// either is ended (and replaced) and the check answers with a refusal that names the limit.
// Limits in the files themselves (sizes, pixels, cmap ranges) are checked before anything is
// decoded (png.ts, jpeg.ts, truetype-font.ts), so a valid file is far from both.

export interface FileCheckerOptions {
  threads?: number;
  /** Longest a check may run, from when a thread starts it. */
  timeLimitMs?: number;
  /** Longest a check may wait for a thread; past it, a 503 (busy). */
  queueLimitMs?: number;
  /** Each thread's V8 heap (old generation), in MB. */
  memoryMb?: number;
}

export type UploadCheck<T> = ({ ok: true } & T) | { ok: false; message: string };

export interface FileChecker {
  design(design: Design): Promise<RenderIssue[]>;
  image(type: 'png' | 'jpeg', bytes: Buffer): Promise<UploadCheck<{ width: number; height: number }>>;
  font(bytes: Buffer): Promise<UploadCheck<{ family: string | undefined; bold: boolean }>>;
  /** An SVG drawing rebuilt from what is safe to serve (a badge image), or why it is refused. */
  svg(bytes: Buffer): Promise<UploadCheck<{ svg: string }>>;
  close(): Promise<void>;
}

export const CHECK_TIME_LIMIT_MS = 10_000;
const QUEUE_LIMIT_MS = 30_000;
export const CHECK_MEMORY_MB = 256;
// How long close() waits at most for threads still loading before it terminates them.
const LOAD_WAIT_MS = 5_000;
// Designs checked lately, by the SHA-256 of their JSON: a save right after a preview is not checked twice.
const CACHED_DESIGNS = 32;

export function createFileChecker(opts: FileCheckerOptions = {}): FileChecker {
  const timeLimitMs = opts.timeLimitMs ?? CHECK_TIME_LIMIT_MS;
  const queueLimitMs = opts.queueLimitMs ?? QUEUE_LIMIT_MS;
  const memoryMb = opts.memoryMb ?? CHECK_MEMORY_MB;
  const threads = Math.max(1, opts.threads ?? 2);
  const pool = new Piscina<CheckTask, CheckResult>({
    filename: new URL('./untrusted.worker.js', import.meta.url).href,
    minThreads: 1,
    maxThreads: threads,
    idleTimeout: 30_000,
    resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: 16 },
    // Between tasks the thread's event loop runs (not blocked in Atomics.wait): the finalisers that
    // free HarfBuzz's memory run there (fonts.ts, releaseFaces). With 'sync', 900 distinct fonts
    // checked one after the other kept 700 MB; with 'async', 70 MB.
    atomics: 'async',
  });
  // Node 24 aborts the process when a thread is terminated while it evaluates its module: close()
  // waits for loads first (pool-loads.ts).
  const destroy = destroyAfterLoads(pool, 'checkWorkerLoaded', { waitMs: LOAD_WAIT_MS });
  // A thread that dies (its memory cap) is replaced by piscina; the error is the task's.
  pool.on('error', () => undefined);
  let closed = false;

  // The refusal a check gets when its thread hit a limit, or undefined for any other error.
  function limitMessage(err: unknown): string | undefined {
    const e = err as { name?: string; code?: string; message?: string };
    if (e.name === 'AbortError' || /aborted/i.test(e.message ?? '')) {
      return `took longer than ${timeLimitMs / 1000} s to check, the limit: it cannot be used`;
    }
    if (e.code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory/i.test(e.message ?? '')) {
      return `needs more than ${memoryMb} MB of memory to check, the limit: it cannot be used`;
    }
    return undefined;
  }

  // The time limit counts from when a thread starts the check (the thread says so), not from when it
  // was queued: a check that waited behind others is not refused for it. Waiting itself is bounded
  // by QUEUE_LIMIT_MS, and answered 503 (busy, retry), never as the file's fault.
  let nextId = 0;
  const starters = new Map<number, () => void>();
  pool.on('message', (message: { checkStarted?: number } | null) => {
    if (typeof message?.checkStarted === 'number') starters.get(message.checkStarted)?.();
  });

  async function run(task: CheckTask, transfer?: ArrayBuffer): Promise<CheckResult | { limit: string }> {
    if (closed) throw new Error('the file checker is closed');
    const id = nextId++;
    const controller = new AbortController();
    let startedAt: number | undefined;
    let timer = setTimeout(() => controller.abort(), queueLimitMs);
    starters.set(id, () => {
      startedAt = Date.now();
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(), timeLimitMs);
    });
    try {
      return await pool.run(
        { ...task, id },
        { signal: controller.signal, ...(transfer ? { transferList: [transfer] } : {}) },
      );
    } catch (err) {
      if (startedAt === undefined && controller.signal.aborted) {
        throw new ServiceUnavailableError('file checker', 5);
      }
      const limit = limitMessage(err);
      if (limit) return { limit };
      throw err;
    } finally {
      clearTimeout(timer);
      starters.delete(id);
    }
  }

  // A fresh copy of the bytes, moved (not cloned) to the thread.
  function copy(bytes: Buffer): Uint8Array {
    return new Uint8Array(bytes);
  }

  const designs = new Map<string, Promise<RenderIssue[]>>();

  return {
    design(design) {
      const key = createHash('sha256').update(JSON.stringify(design)).digest('base64');
      let issues = designs.get(key);
      if (issues) {
        designs.delete(key);
      } else {
        issues = run({ kind: 'design', design }).then((r) => {
          if (!('limit' in r)) return r.kind === 'design' ? r.issues : [];
          // A limit is not the design's verdict (the check may have waited behind others): not kept.
          designs.delete(key);
          return [{ path: [], message: `The design ${r.limit}` }];
        });
        issues.catch(() => designs.delete(key));
        if (designs.size >= CACHED_DESIGNS) designs.delete(designs.keys().next().value!);
      }
      designs.set(key, issues);
      return issues;
    },

    async image(type, bytes) {
      const data = copy(bytes);
      const r = await run({ kind: 'image', type, bytes: data }, data.buffer as ArrayBuffer);
      if ('limit' in r) return { ok: false, message: r.limit };
      if (r.kind !== 'image') throw new Error('the file checker answered another kind of check');
      return r;
    },

    async font(bytes) {
      const data = copy(bytes);
      const r = await run({ kind: 'font', bytes: data }, data.buffer as ArrayBuffer);
      if ('limit' in r) return { ok: false, message: r.limit };
      if (r.kind !== 'font' || (r.ok && !('family' in r))) {
        throw new Error('the file checker answered another kind of check');
      }
      return r;
    },

    async svg(bytes) {
      const data = copy(bytes);
      const r = await run({ kind: 'svg', bytes: data }, data.buffer as ArrayBuffer);
      if ('limit' in r) return { ok: false, message: r.limit };
      if (r.kind !== 'svg') throw new Error('the file checker answered another kind of check');
      return r;
    },

    async close() {
      if (closed) return;
      closed = true;
      await destroy();
    },
  };
}
