import { isIP } from 'node:net';
import { createApp } from '../app.js';
import type { Config } from '../config.js';
import { purgeExpiredIdempotencyKeys } from '../platform/http/idempotency.js';
import { DASHBOARD_SESSIONS, OPERATOR_SESSIONS, purgeExpiredSessions } from '../platform/session-table.js';
import type { Deps } from '../deps.js';
import { countAccounts } from '../modules/accounts/accounts.repository.js';
import { purgeExpiredWalletGrants } from '../modules/wallet/wallet-purge.repository.js';
import { createDemo, demoLines, type DemoResult } from './demo.js';
import { CliError, type Io } from './output.js';

const FIRST_ACCOUNT_LINES = [
  'The database has no account yet. Create the first one with:',
  '  certsvc account create --name "Example Academy" --plan Business',
  '  certsvc key create ACCOUNT_ID',
  '  certsvc template create ACCOUNT_ID --file dist/examples/designs/course-completion.json',
  '(or `certsvc demo` for a demo account with a key, a template and a certificate)',
];

export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice(7) : bare;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

// Checked before anything is created: verification links are frozen into every PDF, so a server
// that others can reach must not start with the localhost default.
export function checkPublicBaseUrl(config: Config): void {
  if (config.publicBaseUrlSet || isLoopbackHost(config.host)) return;
  throw new CliError(
    `HOST is ${config.host}, reachable from other machines, but PUBLIC_BASE_URL is not set: every ` +
      `certificate would carry a verification link and QR code to ${config.publicBaseUrl}, forever. ` +
      'Set PUBLIC_BASE_URL to the public address (for example https://certs.example.org) and start again.',
  );
}

// A server signs every certificate it issues: with its own database it needs the master key that
// seals the signing keys, the same on every instance (the embedded default makes one itself).
export function checkSigningSecret(config: Config): void {
  if (config.databaseUrl === undefined || config.signingKeysSecret !== undefined) return;
  throw new CliError(
    'DATABASE_URL is set but SIGNING_KEYS_SECRET is not: the server signs every certificate it issues with keys ' +
      'sealed under that secret. Make one with `openssl rand -hex 32`, give the same value to every instance, keep it ' +
      'apart from the database backups (docs/proof.md), and start again.',
  );
}

const SIGNAL_ECHO_MS = 1_000;

// Runs until SIGTERM or SIGINT: the HTTP server and/or the email worker. Then drains (docs/operations.md,
// Shutdown): the server stops accepting, tells kept-alive clients Connection: close, finishes the
// requests in flight, the worker hands back its leases, and the process exits; past
// SHUTDOWN_TIMEOUT_S it exits anyway. A second signal exits at once (but see SIGNAL_ECHO_MS).
export async function serve(deps: Deps, opts: { worker: boolean; http?: boolean; io: Io; json: boolean }) {
  const { config, logger } = deps;
  const stops: (() => Promise<void>)[] = [];
  let demo: DemoResult | undefined;
  let url: string | undefined;

  // The handlers are installed first, before anything starts (a signal that came between the
  // listener opening and their installation killed the process without a drain), and stay
  // installed until the process exits: with `once`, a signal arriving between the
  // first and the re-installation found no handler and killed the process with PostgreSQL still
  // running. Ctrl-C on `npm start` delivers SIGINT twice within milliseconds (the terminal signals
  // the whole process group, and npm relays it to node): the same signal again within
  // SIGNAL_ECHO_MS is that echo, not a second request.
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (s: NodeJS.Signals) => {
      if (!first) {
        first = { signal: s, at: Date.now() };
        resolve(s);
      } else if (s === first.signal && Date.now() - first.at < SIGNAL_ECHO_MS) {
        logger.debug({ signal: s }, 'same signal again at once: taken as the first one');
      } else {
        logger.warn('second signal: exiting now');
        process.exit(1);
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });

  if (opts.http !== false) {
    if ((await countAccounts(deps.db)) === 0) {
      // The welcome with a live key is for the embedded default only: with DATABASE_URL the output
      // goes to the logs of a real deployment, where nothing must be created unasked.
      if (config.databaseUrl === undefined) {
        demo = await createDemo(deps);
        if (!opts.json)
          opts.io.out(['', 'First start: created a demo account.', ...demoLines(demo), ''].join('\n'));
      } else {
        logger.warn('no account yet: create the first with `certsvc account create` (see docs/deploy.md)');
        if (!opts.json) opts.io.out(['', ...FIRST_ACCOUNT_LINES, ''].join('\n'));
      }
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
    url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
    logger.info({ port, host: config.host, publicBaseUrl: config.publicBaseUrl }, 'listening');
    if (!opts.json) {
      opts.io.out(`certsvc listening on ${url}`);
      opts.io.out(
        `Verification links and QR codes in new certificates: ${config.publicBaseUrl} (PUBLIC_BASE_URL)`,
      );
    }
    // At the signal /readyz turns 503; the listener closes SHUTDOWN_DELAY_S later (0 by default),
    // so that a load balancer polling /readyz has stopped routing here by then.
    stops.push(async () => {
      app.stopReadiness();
      if (config.shutdownDelayS > 0) {
        logger.info(
          { delayS: config.shutdownDelayS },
          'readiness is 503: closing the listener after the delay',
        );
        await new Promise((r) => setTimeout(r, config.shutdownDelayS * 1000));
      }
      await app.close();
    });
    const purge = () =>
      Promise.all([
        purgeExpiredIdempotencyKeys(deps.db).catch((err) => logger.warn({ err }, 'idempotency purge failed')),
        purgeExpiredSessions(deps.db, DASHBOARD_SESSIONS, deps.now()).catch((err) =>
          logger.warn({ err }, 'session purge failed'),
        ),
        purgeExpiredSessions(deps.db, OPERATOR_SESSIONS, deps.now()).catch((err) =>
          logger.warn({ err }, 'operator session purge failed'),
        ),
        purgeExpiredWalletGrants(deps.db, deps.now()).catch((err) =>
          logger.warn({ err }, 'wallet grants purge failed'),
        ),
      ]);
    void purge();
    const timer = setInterval(purge, 3_600_000);
    timer.unref();
    stops.push(async () => clearInterval(timer));
  }
  if (opts.worker) {
    const worker = deps.services.startEmailWorker();
    // Sends in flight get up to 10 s, but always end early enough that the worker hands its leases
    // back before the shutdown deadline (otherwise they would return only when the lease runs out).
    const graceMs = Math.min(10_000, Math.max(0, config.shutdownTimeoutS * 1000 - 2_000));
    stops.push(() => worker.stop({ graceMs }));
    // Imports' chunks (they sign: only with SIGNING_KEYS_SECRET): the one in flight commits or rolls
    // back whole, then the worker stops.
    if (deps.services.signingKeys.canSign) {
      const importWorker = deps.services.startImportWorker();
      stops.push(() => importWorker.stop());
    }
    if (opts.http === false && !opts.json) {
      opts.io.out(
        deps.services.signingKeys.canSign
          ? 'certsvc email and import worker running'
          : 'certsvc email worker running (imports are issued by the instances that have SIGNING_KEYS_SECRET)',
      );
    }
  }
  // With --json, standard output is one object: what runs, and the demo made on a first start.
  if (opts.json) {
    opts.io.out(
      JSON.stringify({
        url,
        publicBaseUrl: url ? config.publicBaseUrl : undefined,
        worker: opts.worker,
        ...(demo ? { demo } : {}),
        ...opts.io.jsonFields,
      }),
    );
  }

  const deadlineS = config.shutdownTimeoutS;
  const signal = await signalled;
  logger.info({ signal, deadlineS }, 'shutting down');
  // The hard stop: whatever still hangs (a request that never ends, a dependency that never answers)
  // does not keep the process from exiting. Unref'd: a clean drain exits without waiting for it.
  setTimeout(() => {
    logger.error({ deadlineS }, 'shutdown deadline passed: exiting with requests or connections still open');
    process.exit(1);
  }, deadlineS * 1000).unref();

  // The server and the worker drain side by side; then main() closes the pools.
  const results = await Promise.allSettled(stops.reverse().map((s) => s()));
  for (const r of results)
    if (r.status === 'rejected') logger.error({ err: r.reason }, 'error while stopping');
  return 0;
}
