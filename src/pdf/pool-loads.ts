import type { Piscina } from 'piscina';

// Node 24 aborts the whole process (a V8 fatal error) when a worker thread is terminated while it is
// still evaluating its module. A pool's threads post `{ [flag]: true }` once loaded, and destroying
// the pool waits for the threads still loading (at most `waitMs`) first.

export function destroyAfterLoads(
  pool: Piscina,
  flag: string,
  opts: { threads?: number; waitMs: number },
): () => Promise<void> {
  let started = 0;
  let loaded = 0;
  let allLoaded: (() => void) | undefined;
  const loading = () => loaded < Math.max(started, opts.threads ?? 0);
  pool.on('workerCreate', () => started++);
  pool.on('message', (message: Record<string, unknown> | null) => {
    if (message?.[flag] !== true) return;
    loaded++;
    if (!loading()) allLoaded?.();
  });
  return async () => {
    if (loading()) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (allLoaded = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, opts.waitMs))),
      ]);
      clearTimeout(timer);
    }
    await pool.destroy();
  };
}
