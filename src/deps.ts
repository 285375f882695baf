import pino, { type Logger } from 'pino';
import { ConfigError, type Config } from './config.js';
import { createDb, type Db } from './platform/db/db.js';
import { startEmbeddedPostgres } from './platform/db/embedded.js';
import { migrate } from './platform/db/migrate.js';
import { createMemoryStore } from './platform/rate-limit/memory.store.js';
import type { RateLimitStore } from './platform/rate-limit/rate-limit.store.js';
import { upsertPlans } from './modules/accounts/accounts.repository.js';
import { createServices, type ServiceName, type Services } from './services.js';
import { checkVault } from './modules/proof/vault-check.js';
import { createMetrics, type Metrics } from './platform/metrics.js';
import { createKeyVault, WrongMasterKeyError } from './platform/proof/key-vault.js';
import { dataDirMasterKey } from './platform/proof/master-key.js';

export interface Deps {
  config: Config;
  logger: Logger;
  db: Db;
  rateLimitStore: RateLimitStore;
  metrics: Metrics;
  services: Services;
  now: () => Date;
  close(): Promise<void>;
}

export function createLogger(config: Config, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      redact: {
        paths: ['req.headers.authorization', 'headers.authorization', '*.password', '*.key'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

// Gauges read when Prometheus scrapes: the email queue (shared by every worker) and this pool.
function watchState(metrics: Metrics, db: Db, services: Services) {
  // One query per scrape for both queue gauges, which Prometheus collects side by side.
  let stats: ReturnType<typeof services.emails.queueStats> | undefined;
  const queueStats = () => {
    stats ??= services.emails.queueStats().finally(() => setImmediate(() => (stats = undefined)));
    return stats;
  };
  metrics.gauge('certsvc_email_queue_depth', 'Sends queued or being delivered', [], async (g) => {
    g.set((await queueStats()).depth);
  });
  metrics.gauge(
    'certsvc_email_oldest_queued_age_seconds',
    'Age of the oldest undelivered send',
    [],
    async (g) => {
      g.set((await queueStats()).oldestAgeS);
    },
  );
  metrics.gauge('certsvc_db_pool_connections', 'PostgreSQL pool of this process', ['state'], (g) => {
    g.set({ state: 'total' }, db.pool.totalCount);
    g.set({ state: 'idle' }, db.pool.idleCount);
    g.set({ state: 'waiting' }, db.pool.waitingCount);
  });
}

// Pending migrations, then the configured plan catalog.
export async function prepareDatabase(db: Db, config: Config): Promise<string[]> {
  const applied = await migrate(db);
  await upsertPlans(db, config.plans);
  return applied;
}

// The composition root: every process (server, worker, CLI, tests, benchmarks) builds its
// dependencies here from a validated Config.
export async function createDeps(
  config: Config,
  opts: {
    logger?: Logger;
    now?: () => Date;
    migrate?: boolean;
    /** Only these services (and what they need); all when absent (docs/architecture.md). */
    services?: readonly ServiceName[];
  } = {},
): Promise<Deps> {
  const logger = opts.logger ?? createLogger(config);
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres(config.dataDir);
  if (embedded?.leftRunning) {
    logger.warn(
      { ...embedded.leftRunning, dataDir: config.dataDir },
      'the embedded PostgreSQL was left running by a certsvc process that did not stop it (killed or ' +
        'crashed): using it; the last certsvc process to exit stops it',
    );
  }
  const db = createDb(config.databaseUrl ?? embedded!.socketUrl ?? embedded!.url, {
    statementTimeoutMs: config.timeouts.dbStatementMs,
    connectTimeoutMs: config.timeouts.dbConnectMs,
  });
  try {
    if (opts.migrate !== false) await prepareDatabase(db, config);
  } catch (err) {
    await db.close();
    await embedded?.release();
    throw err;
  }
  // ioredis is loaded only when Redis is configured (every certsvc command builds these deps).
  const rateLimitStore = config.redisUrl
    ? (await import('./platform/rate-limit/redis.store.js')).createRedisStore(config.redisUrl, {
        timeoutMs: config.timeouts.redisMs,
        onError: (err) => logger.error({ err: err.message }, 'Redis is not answering: API calls answer 503'),
      })
    : createMemoryStore();
  const now = opts.now ?? (() => new Date());
  const metrics = createMetrics({ processMetrics: config.metricsToken !== undefined });
  // SIGNING_KEYS_SECRET, or on the embedded default the one generated into the data folder.
  const masterKey = config.signingKeysSecret ?? (embedded ? dataDirMasterKey(config.dataDir) : undefined);
  const vault = masterKey ? createKeyVault(masterKey) : undefined;
  let services: Services;
  try {
    services = await createServices({ config, db, logger, now, metrics, vault }, opts.services);
    // Before `certsvc migrate` has run, there is no table of keys to check.
    if (opts.migrate !== false) await checkVault(db, vault);
  } catch (err) {
    await db.close();
    await embedded?.release();
    throw err instanceof WrongMasterKeyError ? new ConfigError(err.message) : err;
  }
  watchState(metrics, db, services);
  return {
    config,
    logger,
    db,
    rateLimitStore,
    metrics,
    services,
    now,
    // Each step runs whatever the previous ones did: a renderer or a pool that fails to close must
    // not leave the embedded PostgreSQL running. Failures are logged, not thrown.
    async close() {
      const steps: [string, () => Promise<void> | undefined][] = [
        ['the services', () => services.close()],
        ['the rate-limit store', () => rateLimitStore.close()],
        ['the database pool', () => db.close()],
        ['the embedded PostgreSQL', () => embedded?.release()],
      ];
      for (const [what, step] of steps) {
        await Promise.resolve()
          .then(step)
          .catch((err: unknown) => logger.error({ err }, `closing ${what} failed`));
      }
    },
  };
}
