import pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../../platform/db/db.js';
import type { VerifyCache } from './verify-cache.js';

// The connection of this instance that LISTENs on certsvc_verify (migration 028's triggers) and
// tells the verify cache what changed. A connection of its own (not one of the pool's), opened on
// the first verification, so that a certsvc command that never verifies opens none. A heartbeat
// (SELECT 1) every `heartbeatMs` confirms it: a heartbeat that comes back proves that every change
// committed before it was sent has been delivered (verify-cache.ts). When the connection breaks, or
// a heartbeat fails, the cache falls back on its TTL and a new connection is opened after a pause.

export const VERIFY_CHANNEL = 'certsvc_verify';
export const LISTENER_APPLICATION_NAME = 'certsvc verify listener';

export interface VerifyListener {
  close(): Promise<void>;
}

export function startVerifyListener(deps: {
  db: Db;
  cache: VerifyCache;
  logger: Logger;
  heartbeatMs?: number;
}): VerifyListener {
  const heartbeatMs = deps.heartbeatMs ?? 250;
  const { cache } = deps;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let failures = 0;

  function drop(why: unknown) {
    const broken = client;
    if (!broken) return;
    client = undefined;
    cache.lost();
    if (!closed) {
      deps.logger.warn(
        { err: why },
        'verify cache: notification connection lost; fresh by TTL until it is back',
      );
    }
    broken.removeAllListeners('notification');
    broken.on('error', () => undefined);
    void broken.end().catch(() => undefined);
    schedule(Math.min(5_000, 250 * 2 ** Math.min(failures++, 5)), connect);
  }

  function schedule(ms: number, run: () => Promise<void>) {
    if (closed) return;
    clearTimeout(timer);
    timer = setTimeout(() => void run(), ms);
    timer.unref();
  }

  async function heartbeat() {
    const current = client;
    if (!current || closed) return;
    const at = cache.clock();
    try {
      await current.query('SELECT 1');
      if (current !== client) return;
      cache.confirmed(at);
      failures = 0;
      schedule(heartbeatMs, heartbeat);
    } catch (err) {
      if (current === client) drop(err);
    }
  }

  async function connect() {
    if (closed) return;
    const fresh = new pg.Client({ ...deps.db.pool.options, application_name: LISTENER_APPLICATION_NAME });
    client = fresh;
    fresh.on('error', (err) => fresh === client && drop(err));
    fresh.on('end', () => fresh === client && drop(new Error('connection ended')));
    fresh.on('notification', (message) => {
      if (fresh === client && message.channel === VERIFY_CHANNEL && message.payload) {
        cache.notified(message.payload);
      }
    });
    try {
      await fresh.connect();
      await fresh.query(`LISTEN ${VERIFY_CHANNEL}`);
      if (fresh !== client) return;
      // Listening from the moment LISTEN came back: reads that began before may have missed a change.
      const at = cache.clock();
      cache.listening(at);
      cache.confirmed(at);
      schedule(heartbeatMs, heartbeat);
    } catch (err) {
      if (fresh === client) drop(err);
    }
  }

  void connect();
  return {
    async close() {
      closed = true;
      clearTimeout(timer);
      const current = client;
      client = undefined;
      cache.lost();
      if (current) {
        current.on('error', () => undefined);
        await current.end().catch(() => undefined);
      }
    },
  };
}
