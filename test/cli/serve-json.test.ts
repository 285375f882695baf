import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { testDatabaseUrl } from '../helpers/app.js';
import { BIN, cliEnv, REPO_ROOT, runCli } from './run-cli.js';
import { freePort } from '../../src/platform/net.js';

describe('certsvc serve --json', () => {
  it('prints exactly one JSON object on stdout; the logs go to stderr', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [BIN, 'serve', '--json', '--no-worker'], {
      cwd: REPO_ROOT,
      env: cliEnv({ DATABASE_URL: testDatabaseUrl(), PORT: String(port), LOG_LEVEL: 'info' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no output; stderr: ${stderr}`)), 30_000);
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          stdout += d;
          if (stdout.includes('\n')) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/openapi.json`);
      assert.equal(res.status, 200);
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0);
    const lines = stdout.trim().split('\n');
    assert.equal(lines.length, 1, `stdout: ${stdout}`);
    const out = JSON.parse(lines[0]!) as { url: string; worker: boolean };
    assert.equal(out.url, `http://127.0.0.1:${port}`);
    assert.equal(out.worker, false);
    assert.match(stderr, /"msg":"request completed"/);
  });

  it('an unreachable database is a clear message, not a stack trace', async () => {
    const port = await freePort();
    const r = await runCli(
      ['migrate', '--json'],
      cliEnv({ DATABASE_URL: `postgres://x:y@127.0.0.1:${port}/db` }),
    );
    assert.notEqual(r.code, 0);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /ECONNREFUSED/);
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  });
});
