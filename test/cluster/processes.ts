import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/platform/net.js';
import { BIN, REPO_ROOT } from '../cli/run-cli.js';

// The service's own processes, started as docs/deploy.md starts them: `certsvc serve --no-worker`
// for API instances and `certsvc worker` for email workers, each a node process that gets the
// signals itself.

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

export interface ServiceProcess {
  name: string;
  child: ChildProcess;
  pid: number;
  /** http://127.0.0.1:PORT for API instances. */
  url: string;
  output: () => string;
  exited: Promise<Exit>;
  running: () => boolean;
  /** SIGTERM and wait for the exit (tests end every process they start). */
  stop(): Promise<Exit>;
}

function spawnCertsvc(name: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    env: { ...env, DATA_DIR: mkdtempSync(path.join(os.tmpdir(), `certsvc-${name}-`)) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  return { child, exited, output: () => out };
}

async function started(name: string, p: ReturnType<typeof spawnCertsvc>, marker: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!p.output().includes(marker)) {
    if (p.child.exitCode !== null || Date.now() > deadline) {
      p.child.kill('SIGKILL');
      throw new Error(`${name} did not start:\n${p.output()}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

function wrap(name: string, p: ReturnType<typeof spawnCertsvc>, url: string): ServiceProcess {
  return {
    name,
    child: p.child,
    pid: p.child.pid!,
    url,
    output: p.output,
    exited: p.exited,
    running: () => p.child.exitCode === null && p.child.signalCode === null,
    async stop() {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      return p.exited;
    },
  };
}

export async function startApiInstance(name: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const port = await freePort();
  const p = spawnCertsvc(name, ['serve', '--no-worker', '--json'], { ...env, PORT: String(port) });
  // With --json, serve prints its one JSON object once it listens.
  await started(name, p, '"url"');
  return wrap(name, p, `http://127.0.0.1:${port}`);
}

export async function startWorker(name: string, env: NodeJS.ProcessEnv): Promise<ServiceProcess> {
  const p = spawnCertsvc(name, ['worker', '--json'], env);
  await started(name, p, '"worker"');
  return wrap(name, p, '');
}
