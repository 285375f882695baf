import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// A client generated from the served description (openapi-typescript + openapi-fetch) drives the
// API with no cast: test/openapi/client/use-client.ts is typechecked against freshly generated types
// and run against a real server.

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');
const program = path.join(root, 'test/openapi/client/use-client.ts');

let t: TestApp;
let tenant: Tenant;
let baseUrl: string;
let served: Record<string, unknown>;
const dirs: string[] = [];

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t.deps);
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  served = (await (await fetch(`${baseUrl}/api/v1/openapi.json`)).json()) as Record<string, unknown>;
});
after(async () => {
  await t.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

// Generates api.ts from `description` beside a copy of the program and compiles both (strict).
async function compile(
  description: Record<string, unknown>,
): Promise<{ ok: boolean; output: string; dir: string }> {
  // Inside the repository, so that the program finds openapi-fetch in node_modules.
  const dir = path.join(root, `.tmp/openapi-client-${process.pid}-${dirs.length}`);
  dirs.push(dir);
  await mkdir(dir, { recursive: true });
  await writeFile(
    path.join(dir, 'api.ts'),
    astToString(await openapiTS(Buffer.from(JSON.stringify(description)))),
  );
  await copyFile(program, path.join(dir, 'use-client.ts'));
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: true,
        outDir: 'out',
        rootDir: '.',
      },
      include: ['*.ts'],
    }),
  );
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  return run(process.execPath, [tsc, '-p', dir]).then(
    () => ({ ok: true, output: '', dir }),
    (err: { stdout?: string; stderr?: string }) => ({ ok: false, output: `${err.stdout}${err.stderr}`, dir }),
  );
}

describe('a client generated from the served description', () => {
  it('the program has no cast, no any and no non-null assertion', async () => {
    const code = (await readFile(program, 'utf8'))
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('//'))
      .join('\n');
    assert.doesNotMatch(code, /\bas\s+(const\b|unknown\b|any\b|[A-Za-z{[(])/);
    assert.doesNotMatch(code, /\bany\b/);
    assert.doesNotMatch(code, /[\w)\]]!(\.|\)|;|,|\s)/);
  });

  it('typechecks, sends If-None-Match and Idempotency-Key, gets 304, and tells single from batch by type', async () => {
    const { ok, output, dir } = await compile(served);
    assert.ok(ok, output);
    const { stdout } = await run(process.execPath, [path.join(dir, 'out/use-client.js')], {
      env: { ...process.env, BASE_URL: baseUrl, API_KEY: tenant.key, TEMPLATE_ID: tenant.templateId },
    });
    const result = JSON.parse(stdout) as Record<string, unknown>;
    assert.match(String(result.single), /^single: [0-9A-Z]{16} \(Issued\)$/);
    assert.equal(result.batch, 'batch: 1 created, 1 failed');
    assert.ok(Number(result.pdfBytes) > 1000);
    assert.equal(result.pdfAgain, 304);
    assert.equal(result.templatesAgain, 304);
    assert.deepEqual(result.notFound, [404, 'not_found']);
  });

  it('the typecheck has teeth: without the If-None-Match declaration the program does not compile', async () => {
    const stripped = structuredClone(served) as {
      paths: Record<string, { get: { parameters?: { in: string; name: string }[] } }>;
    };
    const pdf = stripped.paths['/api/v1/certificates/{id}/pdf']!.get;
    pdf.parameters = pdf.parameters?.filter((p) => p.name !== 'if-none-match');
    const { ok, output } = await compile(stripped);
    assert.equal(ok, false);
    assert.match(output, /if-none-match/);
  });
});
