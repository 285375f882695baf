import { createApp } from '../app.js';
import { purgeExpiredIdempotencyKeys } from '../platform/http/idempotency.js';
import { purgeExpiredSessions } from '../modules/dashboard/sessions.repository.js';
import type { Deps } from '../deps.js';
import { countAccounts } from '../modules/accounts/accounts.repository.js';
import { createDemo, demoLines, type DemoResult } from './demo.js';
import { CliError, type Io } from './output.js';

// Runs until SIGINT/SIGTERM: the HTTP server and/or the email worker, then closes cleanly.
export async function serve(deps: Deps, opts: { worker: boolean; http?: boolean; io: Io; json: boolean }) {
  const { config, logger } = deps;
  const stops: (() => Promise<void>)[] = [];
  let demo: DemoResult | undefined;
  let url: string | undefined;

  if (opts.http !== false) {
    if ((await countAccounts(deps.db)) === 0) {
      demo = await createDemo(deps);
      if (!opts.json)
        opts.io.out(['', 'First start: created a demo account.', ...demoLines(demo), ''].join('\n'));
    }
    deps.services.warmUp();
    const app = await createApp(deps);
    await app.listen({ port: config.port, host: config.host }).catch(async (err: NodeJS.ErrnoException) => {
      await app.close();
      if (err.code === 'EADDRINUSE') {
        throw new CliError(
          `port ${config.port} on ${config.host} is already in use: stop the other server or set PORT`,
        );
      }
      throw err;
    });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    logger.info({ port, host: config.host }, 'listening');
    url = `http://${config.host}:${port}`;
    if (!opts.json) opts.io.out(`certsvc listening on ${url} (public base URL ${config.publicBaseUrl})`);
    stops.push(() => app.close());
    const purge = () =>
      Promise.all([
        purgeExpiredIdempotencyKeys(deps.db).catch((err) => logger.warn({ err }, 'idempotency purge failed')),
        purgeExpiredSessions(deps.db, deps.now()).catch((err) =>
          logger.warn({ err }, 'session purge failed'),
        ),
      ]);
    void purge();
    const timer = setInterval(purge, 3_600_000);
    timer.unref();
    stops.push(async () => clearInterval(timer));
  }
  if (opts.worker) {
    const worker = deps.services.startEmailWorker();
    stops.push(() => worker.stop());
    if (opts.http === false && !opts.json) opts.io.out('certsvc email worker running');
  }
  // With --json, standard output is one object: what runs, and the demo made on a first start.
  if (opts.json) {
    opts.io.out(
      JSON.stringify({
        url,
        publicBaseUrl: url ? config.publicBaseUrl : undefined,
        worker: opts.worker,
        ...(demo ? { demo } : {}),
      }),
    );
  }

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  logger.info('shutting down');
  for (const s of stops.reverse()) await s().catch((err) => logger.error({ err }, 'error while stopping'));
  return 0;
}
