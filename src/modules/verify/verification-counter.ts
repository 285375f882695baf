import pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/db.js';
import { addVerificationCounts } from './verify.repository.js';

// verificationCount without a write per verification (issue 34): each answered verification adds
// one here, per certificate, and every `intervalMs` (250 ms) the sums go to the database in ONE
// statement (verify.repository.ts: addVerificationCounts), one after another, never two at once.
// close() (the service's graceful shutdown, after the HTTP server has drained) writes what is left,
// so a SIGTERM loses nothing and counts nothing twice; a kill -9 loses at most what was added since
// the last write (docs/operations.md, "Verification counts").
// A write the database refused (an error answer: nothing was committed) or could not take (no
// connection) goes back into the sums for the next one. A write sent whose answer never came (the
// connection broke) may or may not have committed: it is dropped and logged rather than counted
// twice.

export interface VerificationCounter {
  add(certificateId: string): void;
  /** Resolves once every verification added before the call is written (or could not be). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export function createVerificationCounter(deps: {
  db: Db;
  logger: Logger;
  intervalMs?: number;
}): VerificationCounter {
  let sums = new Map<string, number>();
  let chain: Promise<void> = Promise.resolve();
  let writing = false;

  function putBack(batch: Map<string, number>) {
    for (const [id, n] of batch) sums.set(id, (sums.get(id) ?? 0) + n);
  }

  async function writeOnce(): Promise<void> {
    if (sums.size === 0) return;
    const batch = sums;
    sums = new Map();
    const ids = [...batch.keys()].sort();
    let client: pg.PoolClient;
    try {
      client = await deps.db.pool.connect();
    } catch (err) {
      putBack(batch);
      deps.logger.warn({ err }, 'verification counts not written (no database connection); retrying');
      return;
    }
    try {
      await addVerificationCounts(
        client,
        ids,
        ids.map((id) => batch.get(id)!),
      );
      client.release();
    } catch (err) {
      client.release(true);
      if (err instanceof pg.DatabaseError) {
        putBack(batch);
        deps.logger.warn({ err }, 'verification counts not written; retrying');
      } else {
        const lost = [...batch.values()].reduce((a, b) => a + b, 0);
        deps.logger.error(
          { err, lost },
          'verification counts: the write was not answered; these may be lost',
        );
      }
    }
  }

  function flush(): Promise<void> {
    chain = chain.then(async () => {
      writing = true;
      try {
        await writeOnce();
      } catch (err) {
        deps.logger.error({ err }, 'verification counts: write failed');
      } finally {
        writing = false;
      }
    });
    return chain;
  }

  const timer = setInterval(() => {
    if (!writing && sums.size > 0) void flush();
  }, deps.intervalMs ?? 250);
  timer.unref();

  return {
    add(certificateId) {
      sums.set(certificateId, (sums.get(certificateId) ?? 0) + 1);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}
