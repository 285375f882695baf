import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { freePort } from '../../src/platform/net.js';
import { portOpen } from '../cluster/backing-services.js';
import { BIN, cliEnv, REPO_ROOT } from './run-cli.js';

// Ctrl-C on `npm start` in a terminal: the terminal sends SIGINT to the whole foreground process
// group (npm and node), and npm relays the SIGINT to node as well, so node gets it twice within
// milliseconds. It must still drain, stop the embedded PostgreSQL and exit 0.

const WAIT_MS = 60_000; // a safety net against hanging, not an assertion on speed
const dirs: string[] = [];
const groups: number[] = [];

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, output: () => string) {
  const deadline = Date.now() + WAIT_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}:\n${output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// `npm start` (or `node bin/certsvc.js serve`) in a process group of its own, as a shell starts a
// foreground job.
function start(how: 'npm' | 'node', dataDir: string, port: number) {
  const [cmd, args] = how === 'npm' ? ['npm', ['start']] : [process.execPath, [BIN, 'serve']];
  const child: ChildProcess = spawn(cmd, args, {
    cwd: REPO_ROOT,
    detached: true,
    env: cliEnv({ DATABASE_URL: undefined, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  groups.push(child.pid!);
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => out };
}

async function postmaster(clusterDir: string): Promise<{ pid: number; port: number } | undefined> {
  try {
    const lines = (await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n');
    return { pid: Number(lines[0]), port: Number(lines[3]) };
  } catch {
    return undefined;
  }
}

after(async () => {
  // Whatever happened: end the process groups this test started, then any postgres left behind.
  for (const pgid of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const dir of dirs) {
    const pm = await postmaster(path.join(dir, 'pg'));
    if (pm && alive(pm.pid)) process.kill(pm.pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

describe('Ctrl-C on npm start', { timeout: 4 * WAIT_MS }, () => {
  it('SIGINT to the process group drains, stops the embedded PostgreSQL and exits 0, start after start', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-ctrl-c-'));
    dirs.push(dataDir);
    const clusterDir = path.join(dataDir, 'pg');
    // The first start creates the cluster, the next ones find it stopped and start it again. Whether
    // npm's relayed SIGINT reaches node in the same event-loop turn as the terminal's is a matter of
    // timing; the last round makes the relay late (100 ms) on purpose.
    const rounds = [
      { how: 'npm', lateEcho: false },
      { how: 'npm', lateEcho: false },
      { how: 'node', lateEcho: true },
    ] as const;
    for (const [i, { how, lateEcho }] of rounds.entries()) {
      const round = i + 1;
      const port = await freePort();
      const app = start(how, dataDir, port);
      await waitFor(
        `round ${round}: listening`,
        () => app.output().includes('"msg":"listening"'),
        app.output,
      );
      const pm = await postmaster(clusterDir);
      assert.ok(pm && alive(pm.pid), `round ${round}: postgres runs`);
      assert.ok(await portOpen(pm.port), 'postgres listens');
      if (round > 1) {
        assert.doesNotMatch(app.output(), /left running/, 'a fresh postgres, not a stray one');
      }
      // Settled into the wait for a signal (the welcome text is printed before the listener binds).
      await new Promise((r) => setTimeout(r, 500));

      process.kill(-app.child.pid!, 'SIGINT'); // what the terminal does on Ctrl-C
      if (lateEcho) {
        await new Promise((r) => setTimeout(r, 100));
        process.kill(-app.child.pid!, 'SIGINT');
      }
      const exit = await Promise.race([
        app.exited,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error(`no exit:\n${app.output()}`)), WAIT_MS),
        ),
      ]);
      const out = app.output();
      assert.match(out, /"msg":"shutting down"/, out);
      assert.doesNotMatch(out, /second signal/, 'one Ctrl-C is one signal');
      assert.deepEqual(exit, { code: 0, signal: null }, out);
      // pg_ctl stop -w returns once postmaster.pid is gone; the postmaster itself ends a moment later.
      const stopBy = Date.now() + 10_000;
      while (alive(pm.pid) && Date.now() < stopBy) await new Promise((r) => setTimeout(r, 50));
      assert.equal(alive(pm.pid), false, `round ${round}: postgres stopped\n${out}`);
      assert.equal(await portOpen(pm.port), false, 'the PostgreSQL port is closed');
      assert.equal(existsSync(path.join(clusterDir, 'postmaster.pid')), false, 'postmaster.pid removed');
      assert.equal(await portOpen(port), false, 'the HTTP port is closed');
    }
  });
});
