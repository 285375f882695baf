import type { Logger } from 'pino';
import type { ImportsService } from './imports.service.js';

// Issues the chunks of imports, one at a time (a chunk's rendering already uses every PDF thread),
// until there are none; then polls, or wakes at once when this process creates an import. A chunk
// that fails (the database went away) is rolled back whole and tried again after a pause.

export interface ImportWorker {
  wake(): void;
  /** Lets the chunk in flight finish (its transaction commits or rolls back), then stops. */
  stop(): Promise<void>;
}

export function startImportWorker(deps: {
  imports: ImportsService;
  logger: Pick<Logger, 'error'>;
  pollMs?: number;
}): ImportWorker {
  const pollMs = deps.pollMs ?? 1_000;
  let stopping = false;
  let wakeUp: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const loop = async () => {
    while (!stopping) {
      let worked = false;
      try {
        worked = await deps.imports.runChunk();
      } catch (err) {
        deps.logger.error({ err }, 'import chunk failed: rolled back, tried again');
        await pause(pollMs);
        continue;
      }
      if (!worked && !stopping) await pause(pollMs);
    }
  };
  const running = loop();
  return {
    wake: () => wakeUp?.(),
    async stop() {
      stopping = true;
      wakeUp?.();
      await running;
    },
  };
}
