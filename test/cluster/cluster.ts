import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { cliEnv, runCli } from '../cli/run-cli.js';
import { startSmtpServer, type TestSmtpServer } from '../emails/smtp-test-server.js';
import {
  startDebianPostgres,
  startRedisServer,
  type DebianPostgres,
  type RedisServer,
} from './backing-services.js';
import { startNginx, type Nginx } from './nginx.js';
import { startApiInstance, startWorker, type ServiceProcess } from './processes.js';

// The layout of docs/deploy.md on one machine: Debian's PostgreSQL and Redis, nginx in front of
// three API instances (`serve --no-worker`), two email workers, and an SMTP server.

export const METRICS_TOKEN = 'cluster-metrics-token-0123456789';
export const PUBLIC_BASE_URL = 'http://certs.cluster.test';

export interface Cluster {
  dir: string;
  postgres: DebianPostgres;
  redis: RedisServer;
  smtp: TestSmtpServer;
  nginx: Nginx;
  db: pg.Pool;
  env: NodeJS.ProcessEnv;
  api: ServiceProcess[];
  workers: ServiceProcess[];
  auth: { authorization: string };
  accountId: string;
  templateId: string;
  stop(): Promise<void>;
}

async function cli(env: NodeJS.ProcessEnv, args: string[]): Promise<Record<string, string>> {
  const res = await runCli([...args, '--json'], env);
  if (res.code !== 0) throw new Error(`certsvc ${args.join(' ')} failed: ${res.stderr}`);
  return JSON.parse(res.stdout) as Record<string, string>;
}

export async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-cluster-'));
  // PostgreSQL and nginx's workers run as other users and must reach their folders inside.
  chmodSync(dir, 0o755);
  const postgres = await startDebianPostgres(path.join(dir, 'pg'));
  const redis = await startRedisServer();
  const smtp = await startSmtpServer();
  const env = cliEnv({
    DATABASE_URL: postgres.url,
    REDIS_URL: redis.url,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Cluster Academy <certificates@cluster.test>',
    PUBLIC_BASE_URL,
    HOST: '127.0.0.1',
    TRUST_PROXY: 'loopback',
    METRICS_TOKEN,
    // Limits raised so that the load of the tests is never refused; limits have tests of their own.
    RATE_LIMIT_MAX: '1000000',
    EMAIL_POLL_MS: '100',
    LOG_LEVEL: 'warn',
  });
  await cli(env, ['migrate']);
  const account = await cli(env, [
    'account',
    'create',
    '--name',
    'Cluster Academy',
    '--plan',
    'Business',
    '--monthly-limit',
    '100000',
  ]);
  const key = await cli(env, ['key', 'create', account.id!]);
  const template = await cli(env, [
    'template',
    'create',
    account.id!,
    '--file',
    'examples/designs/course-completion.json',
  ]);
  const api = await Promise.all(['api-1', 'api-2', 'api-3'].map((n) => startApiInstance(n, env)));
  const workers = await Promise.all(['worker-1', 'worker-2'].map((n) => startWorker(n, env)));
  const nginx = await startNginx(
    path.join(dir, 'nginx'),
    api.map((a) => Number(new URL(a.url).port)),
  );
  const db = new pg.Pool({ connectionString: postgres.url, max: 2 });
  // The tests stop PostgreSQL under this pool on purpose.
  db.on('error', () => undefined);
  return {
    dir,
    postgres,
    redis,
    smtp,
    nginx,
    db,
    env,
    api,
    workers,
    auth: { authorization: `Bearer ${key.key}` },
    accountId: account.id!,
    templateId: template.id!,
    async stop() {
      await Promise.all([...api, ...workers].map((p) => p.stop()));
      await nginx.stop();
      await db.end();
      await smtp.close();
      await redis.stop();
      await postgres.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
