import { spawn } from 'node:child_process';

// The picture of a shared verification link (og:image, twitter:image): the first page of the
// certificate's frozen PDF as a PNG, 1200 pixels on its longer side. Poppler's pdftoppm draws it in
// a child process (off the event loop, no network, killed after RENDER_TIMEOUT_MS), at most
// MAX_RENDERS at a time; each image is made once per PDF and kept by the PDF's SHA-256 (a frozen PDF
// never changes) in a cache bounded in bytes. Concurrent requests for one PDF share one render.

export const PREVIEW_LONG_SIDE = 1200;
const RENDER_TIMEOUT_MS = 15_000;
const MAX_RENDERS = 1;
const MAX_WAITING = 50;
const CACHE_BYTES = 48 * 1024 * 1024;
const MAX_PNG_BYTES = 8 * 1024 * 1024;

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export class PreviewUnavailableError extends Error {}

export interface PreviewImages {
  /** The PNG of the first page of `pdf`, whose SHA-256 is `sha256`. */
  pngOf(sha256: string, pdf: Buffer): Promise<Buffer>;
  /** The PNG made already for the PDF whose SHA-256 is `sha256`, if it is still cached. */
  cached(sha256: string): Buffer | undefined;
}

export function createPreviewImages(
  opts: { command?: string; cacheBytes?: number; maxRenders?: number } = {},
): PreviewImages {
  const command = opts.command ?? 'pdftoppm';
  const cacheBytes = opts.cacheBytes ?? CACHE_BYTES;
  const maxRenders = opts.maxRenders ?? MAX_RENDERS;
  // Insertion order is recency: a hit moves its entry to the end; the oldest go first.
  const cache = new Map<string, Buffer>();
  let cached = 0;
  const inFlight = new Map<string, Promise<Buffer>>();
  let running = 0;
  const waiting: (() => void)[] = [];

  async function slot(): Promise<() => void> {
    if (running >= maxRenders) {
      if (waiting.length >= MAX_WAITING) throw new PreviewUnavailableError('too many previews waiting');
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
    running++;
    return () => {
      running--;
      waiting.shift()?.();
    };
  }

  function remember(sha256: string, png: Buffer) {
    cache.set(sha256, png);
    cached += png.length;
    for (const [key, value] of cache) {
      if (cached <= cacheBytes) break;
      cache.delete(key);
      cached -= value.length;
    }
  }

  function render(pdf: Buffer): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const child = spawn(
        command,
        ['-png', '-f', '1', '-l', '1', '-singlefile', '-scale-to', String(PREVIEW_LONG_SIDE), '-'],
        { stdio: ['pipe', 'pipe', 'ignore'] },
      );
      const chunks: Buffer[] = [];
      let size = 0;
      const timer = setTimeout(() => child.kill('SIGKILL'), RENDER_TIMEOUT_MS);
      child.stdout.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_PNG_BYTES) child.kill('SIGKILL');
        else chunks.push(chunk);
      });
      child.stdin.on('error', () => undefined);
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(new PreviewUnavailableError(`pdftoppm could not run: ${err.message}`));
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        const png = Buffer.concat(chunks);
        if (code === 0 && png.subarray(0, 8).equals(PNG_SIGNATURE)) resolve(png);
        else reject(new PreviewUnavailableError(`pdftoppm failed (${signal ?? `exit ${code}`})`));
      });
      child.stdin.end(pdf);
    });
  }

  return {
    cached(sha256) {
      const hit = cache.get(sha256);
      if (hit) {
        cache.delete(sha256);
        cache.set(sha256, hit);
      }
      return hit;
    },
    async pngOf(sha256, pdf) {
      const hit = cache.get(sha256);
      if (hit) {
        cache.delete(sha256);
        cache.set(sha256, hit);
        return hit;
      }
      let pending = inFlight.get(sha256);
      if (!pending) {
        pending = (async () => {
          const release = await slot();
          try {
            const png = await render(pdf);
            remember(sha256, png);
            return png;
          } finally {
            release();
          }
        })();
        inFlight.set(sha256, pending);
        void pending.then(
          () => inFlight.delete(sha256),
          () => inFlight.delete(sha256),
        );
      }
      return pending;
    },
  };
}
