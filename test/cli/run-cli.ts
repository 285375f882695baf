import { spawn } from 'node:child_process';
import path from 'node:path';

// Runs the real `certsvc` command (bin/certsvc.js) as a child process, from the repository root.

import { TEST_SIGNING_KEYS_SECRET } from '../helpers/app.js';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
export const BIN = path.join(REPO_ROOT, 'bin/certsvc.js');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function cliEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    LOG_LEVEL: 'silent',
    SIGNING_KEYS_SECRET: TEST_SIGNING_KEYS_SECRET,
    ...extra,
  };
  // Keep the parent's service settings out of the child unless given explicitly.
  for (const name of ['REDIS_URL', 'SMTP_URL', 'PUBLIC_BASE_URL', 'PORT'] as const) {
    if (!(name in extra)) delete env[name];
  }
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete env[k];
  return env;
}

// `input`, when given, is written to the command's standard input (otherwise stdin is empty); `cwd`
// (default: the repository root) is the folder the command runs in.
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
  cwd = REPO_ROOT,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd,
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) child.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
