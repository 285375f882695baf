import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chown, mkdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../src/platform/net.js';

// Debian's PostgreSQL and Redis on loopback, as an operator runs them: the cluster test stops and
// starts them under the running service.

const run = promisify(execFile);

export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin/pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined;
}

export function debianPackagesMissing(): string[] {
  const missing: string[] = [];
  if (!postgresBin()) missing.push('postgresql');
  if (!existsSync('/usr/bin/redis-server')) missing.push('redis-server');
  if (!existsSync('/usr/sbin/nginx')) missing.push('nginx');
  return missing;
}

// PostgreSQL refuses to run as root: as root, its commands run as the `postgres` system user that
// Debian's package creates.
async function postgresUser(): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  return { uid: await id('-u'), gid: await id('-g') };
}

export interface DebianPostgres {
  url: string;
  port: number;
  /** Runs one of PostgreSQL's client programs (pg_dump, pg_restore) of the same version. */
  tool(name: string, args: string[]): Promise<{ stdout: string; stderr: string }>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startDebianPostgres(dir: string): Promise<DebianPostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error("Debian's postgresql is not installed (apt-get install postgresql)");
  const user = await postgresUser();
  const dataDir = path.join(dir, 'pgdata');
  await mkdir(dir, { recursive: true });
  if (user.uid !== undefined) await chown(dir, user.uid, user.gid!);
  const asPostgres = (cmd: string, args: string[]) => run(path.join(bin, cmd), args, { ...user, cwd: dir });
  await asPostgres('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-locale', '-E', 'UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off`;
  const start = async () => {
    await asPostgres('pg_ctl', [
      '-D',
      dataDir,
      '-l',
      path.join(dir, 'postgres.log'),
      '-w',
      '-o',
      options,
      'start',
    ]);
  };
  await start();
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE certsvc');
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/certsvc`,
    port,
    tool: (name, args) => run(path.join(bin, name), args),
    start,
    async stop() {
      await asPostgres('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
    },
  };
}

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

// One redis-server on a fixed loopback port, restartable on that same port.
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      '/usr/bin/redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    await waitFor('redis-server to listen', () => portOpen(port));
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    start,
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await exited;
    },
  };
}
