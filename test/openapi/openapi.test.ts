import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../helpers/app.js';

// GET /api/v1/openapi.json (docs/api.md, introduction): public, OpenAPI 3.1, complete for every served route,
// and clean under Redocly's linter (configured by redocly.yaml at the repository root).

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');

interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  responses?: Record<string, unknown>;
  parameters?: { in: string; name: string }[];
}
interface Doc {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes?: Record<string, Record<string, string>>; schemas?: Record<string, unknown> };
  security?: Record<string, string[]>[];
}

let t: TestApp;
let doc: Doc;

before(async () => {
  t = await startTestApp();
  const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  assert.equal(res.statusCode, 200);
  doc = res.json();
});
after(() => t.close());

// Every (method, path) the app serves, from Fastify's own route tree, with paths in OpenAPI form.
function servedRoutes(): { method: string; path: string }[] {
  const tree = t.app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: { method: string; path: string }[] = [];
  for (const line of tree.split('\n')) {
    const m = /^(.*?)(?:├── |└── )(.+?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    const full = (depth > 0 ? stack[depth - 1]! : '') + m[2]!;
    stack[depth] = full;
    stack.length = depth + 1;
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim())) {
      if (!method) continue;
      routes.push({ method, path: full.replace(/:([A-Za-z0-9_]+)/g, '{$1}') });
    }
  }
  return routes;
}

describe('GET /api/v1/openapi.json', () => {
  it('is public: no key needed, JSON, with the anonymous rate-limit headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.ok(res.headers['x-ratelimit-limit']);
    // A bad key does not matter on a public route either.
    const withBadKey = await t.app.inject({
      method: 'GET',
      url: '/api/v1/openapi.json',
      headers: { authorization: 'Bearer nope' },
    });
    assert.equal(withBadKey.statusCode, 200);
  });

  it('is OpenAPI 3.1 with the bearer security scheme and the error envelope', () => {
    assert.match(doc.openapi, /^3\.1\.\d+$/);
    const schemes = Object.values(doc.components.securitySchemes ?? {});
    assert.ok(
      schemes.some((s) => s.type === 'http' && s.scheme?.toLowerCase() === 'bearer'),
      'a bearer http security scheme',
    );
  });

  it('error responses list the codes of their status; single and batch issue answers are named schemas', () => {
    type Envelope = { properties: { error: { properties: { code: { enum?: string[] } } } } };
    const codesOf = (path: string, method: string, status: string) => {
      const response = doc.paths[path]![method]!.responses![status] as {
        content: { 'application/json': { schema: Envelope } };
      };
      return response.content['application/json'].schema.properties.error.properties.code.enum;
    };
    assert.deepEqual(codesOf('/api/v1/certificates', 'post', '422'), ['validation_error']);
    assert.deepEqual(codesOf('/api/v1/certificates', 'post', '401'), ['unauthorized', 'invalid_api_key']);
    assert.deepEqual(codesOf('/api/v1/certificates', 'post', '403'), ['forbidden', 'insufficient_scope']);
    assert.ok(doc.components.schemas?.Certificate && doc.components.schemas?.BatchResult);
    const pdf = doc.paths['/api/v1/certificates/{id}/pdf']!.get!;
    assert.ok(pdf.parameters?.some((p) => p.in === 'header' && p.name === 'if-none-match'));
  });

  it('declares Idempotency-Key exactly where it is honoured, and If-None-Match where answers carry an ETag', () => {
    const withHeader = (name: string) =>
      Object.values(doc.paths)
        .flatMap((ops) => Object.values(ops))
        .filter((op) => op.parameters?.some((p) => p.in === 'header' && p.name === name))
        .map((op) => op.operationId)
        .sort();
    assert.deepEqual(withHeader('idempotency-key'), [
      'issueCertificates',
      'reissueCertificate',
      'revokeCertificate',
      'sendCertificate',
    ]);
    assert.deepEqual(withHeader('if-none-match'), ['downloadCertificatePdf', 'getTemplate', 'listTemplates']);
  });

  it('describes every route the app serves under /api/v1', () => {
    const all = servedRoutes().filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS');
    const served = all.filter((r) => r.path.startsWith('/api/v1/'));
    assert.ok(served.length >= 4, `found the routes: ${JSON.stringify(served)}`);
    for (const r of [
      '/api/v1/templates',
      '/api/v1/templates/{id}',
      '/api/v1/usage',
      '/api/v1/openapi.json',
    ]) {
      assert.ok(
        served.some((s) => s.path === r && s.method === 'GET'),
        `route tree lists GET ${r}`,
      );
    }
    for (const { method, path: p } of served) {
      assert.ok(doc.paths[p]?.[method.toLowerCase()], `${method} ${p} is described`);
    }
    // And nothing is described that is not served.
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        assert.ok(
          all.some((s) => s.path === p && s.method.toLowerCase() === method),
          `${method} ${p} is served`,
        );
      }
    }
  });

  it('describes the API only: every path is under /api/v1; the verification page and its fonts are not operations', async () => {
    for (const p of Object.keys(doc.paths)) assert.ok(p.startsWith('/api/v1/'), `${p} is under /api/v1`);
    // Served all the same, as pages and files.
    const served = servedRoutes().map((r) => r.path);
    assert.ok(served.includes('/verify/{code}') && served.includes('/verify/fonts/{file}'));
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    assert.ok(!ids.includes('verifyCertificatePage') && !ids.includes('verificationPageFont'));
    assert.deepEqual(
      Object.values(doc.paths)
        .flatMap((ops) => Object.values(ops))
        .flatMap((o) => Object.values(o.responses ?? {}))
        .flatMap((r) => Object.keys((r as { content?: Record<string, unknown> }).content ?? {}))
        .filter((type, i, all) => all.indexOf(type) === i)
        .sort(),
      ['application/json', 'application/pdf', 'application/vc'],
      'JSON everywhere, the PDF download and the signed credentials (application/vc, JSON-LD) aside',
    );
  });

  it('every operation has a unique operationId and declares 500; authenticated ones 401/403/429', () => {
    const ids = new Set<string>();
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${p}`;
        assert.ok(op.operationId, `${where} has an operationId`);
        assert.ok(!ids.has(op.operationId), `${where}: operationId ${op.operationId} is unique`);
        ids.add(op.operationId);
        const statuses = Object.keys(op.responses ?? {});
        assert.ok(
          statuses.some((s) => s.startsWith('2')),
          `${where} declares a success response`,
        );
        if (p.startsWith('/api/v1/')) assert.ok(statuses.includes('500'), `${where} declares 500`);
        const security = op.security ?? doc.security ?? [];
        const authenticated = security.length > 0 && !security.every((s) => Object.keys(s).length === 0);
        if (authenticated) {
          for (const status of ['401', '403', '429', '500']) {
            assert.ok(statuses.includes(status), `${where} declares ${status}`);
          }
        }
        if (p.includes('{id}')) {
          assert.ok(
            op.parameters?.some((x) => x.in === 'path' && x.name === 'id'),
            `${where} declares the id path parameter`,
          );
          assert.ok(statuses.includes('404') && statuses.includes('422'), `${where} declares 404 and 422`);
        }
      }
    }
  });

  it('describes what a generated client needs: optional bodies, media types, 409 and Retry-After', () => {
    type Full = Record<string, Record<string, Record<string, unknown>>>;
    const paths = doc.paths as unknown as Full;
    const op = (p: string, m: string) =>
      paths[p]![m] as {
        requestBody?: { required?: boolean };
        responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
      };
    assert.equal(op('/api/v1/certificates/{id}/send', 'post').requestBody?.required, false);
    assert.equal(op('/api/v1/certificates/{id}/revoke', 'post').requestBody?.required, false);
    assert.equal(op('/api/v1/certificates', 'post').requestBody?.required, true);
    assert.ok(op('/api/v1/certificates', 'post').responses['409'], 'Idempotency-Key still running');
    const pdf = op('/api/v1/certificates/{id}/pdf', 'get').responses;
    assert.deepEqual(Object.keys(pdf['200']!.content ?? {}), ['application/pdf']);
    // Bytes, not a JSON string: generators map this to Blob (and read the body as such).
    const pdfSchema = (pdf['200']!.content!['application/pdf'] as { schema: Record<string, unknown> }).schema;
    assert.equal(pdfSchema.type, 'string');
    assert.equal(pdfSchema.format, 'binary');
    assert.equal(pdfSchema.contentMediaType, 'application/pdf');
    for (const [status, res] of Object.entries(pdf)) {
      if (Number(status) >= 400)
        assert.deepEqual(Object.keys(res.content ?? {}), ['application/json'], status);
    }
    for (const methods of Object.values(paths)) {
      for (const operation of Object.values(methods) as {
        responses: Record<string, { headers?: Record<string, unknown> }>;
      }[]) {
        const limited = operation.responses['429'];
        if (limited) assert.ok(limited.headers?.['Retry-After'], 'every 429 documents Retry-After');
      }
    }
  });

  it('public operations carry no security requirement, authenticated ones the bearer scheme', () => {
    const openapi = doc.paths['/api/v1/openapi.json']!.get!;
    assert.deepEqual(openapi.security, []);
    for (const p of ['/api/v1/templates', '/api/v1/templates/{id}', '/api/v1/usage']) {
      assert.deepEqual(doc.paths[p]!.get!.security, [{ bearerAuth: [] }], p);
    }
  });

  async function lint(document: unknown): Promise<{ ok: boolean; output: string }> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-openapi-'));
    try {
      const file = path.join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(document, null, 2));
      const cli = path.join(root, 'node_modules/@redocly/cli/bin/cli.js');
      const args = [cli, 'lint', file, '--format=stylish', `--config=${path.join(root, 'redocly.yaml')}`];
      const env = {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      };
      const result = await run(process.execPath, args, { cwd: dir, env }).then(
        (r) => ({ ok: true, ...r }),
        (err: { stdout?: string; stderr?: string }) => ({
          ok: false,
          stdout: err.stdout ?? '',
          stderr: err.stderr ?? '',
        }),
      );
      // Drop Redocly's banner (a Node.js version notice): only the lint report matters.
      const output = `${result.stdout}\n${result.stderr}`
        .split('\n')
        .filter((l) => !/[║╔╚]/.test(l))
        .join('\n');
      return { ok: result.ok, output };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it('lints clean with @redocly/cli (redocly.yaml: recommended-strict)', async () => {
    const { ok, output } = await lint(doc);
    assert.ok(ok, output);
    assert.doesNotMatch(output, /warning|error/i, output);
  });

  it('the lint check has teeth: a description without an operationId fails it', async () => {
    const broken = structuredClone(doc);
    delete (broken.paths['/api/v1/usage']!.get as Operation).operationId;
    const { ok, output } = await lint(broken);
    assert.equal(ok, false, output);
    assert.match(output, /operationId/, output);
  });
});
