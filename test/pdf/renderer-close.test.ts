import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../cli/run-cli.js';

// Closing the PDF renderer while its threads still warm up (a short CLI command such as `certsvc
// demo`, a server stopped right after its start). Node 24 aborts the whole process with a V8 fatal
// error ("Check failed: (location_) != nullptr") when a worker thread is terminated while it is
// still evaluating its module; the renderer waits for the threads to load before it ends them.

const run = promisify(execFile);
const renderer = path.join(REPO_ROOT, 'dist/src/pdf/pdf-renderer.js');

const program = (delayMs: number) => `
  const { createPdfRenderer } = await import(${JSON.stringify(renderer)});
  const r = createPdfRenderer({ threads: 2 });
  await new Promise((resolve) => setTimeout(resolve, ${delayMs}));
  await r.close();
  console.log('closed');
`;

describe('closing the PDF renderer', () => {
  it("during the threads' warm-up or after it, the process ends normally", async () => {
    for (const delayMs of [0, 150, 300, 500, 800, 1_200]) {
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', program(delayMs)], {
        timeout: 30_000,
      }).catch((err: { code?: number; signal?: string; stdout?: string; stderr?: string }) => {
        throw new Error(
          `closed after ${delayMs} ms: exit ${err.code ?? err.signal}\n${err.stdout}${(err.stderr ?? '').slice(0, 600)}`,
        );
      });
      assert.equal(stdout.trim(), 'closed', `closed after ${delayMs} ms`);
    }
  });
});
