import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// The served description is one a developer can act on: an example for every request body and
// every answer, each one valid against its schema, the sample requests accepted by the server as
// they are, and clean under Spectral's OpenAPI rules (.spectral.yaml) as well as Redocly's.

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../../..');
const addFormats = addFormatsImport as unknown as (ajv: Ajv2020) => Ajv2020;

type Json = Record<string, unknown>;
interface Media {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Operation {
  operationId: string;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Json> };
}

let t: TestApp;
let tenant: Tenant;
let doc: Doc;

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t.deps);
  doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
});
after(() => t.close());

function* mediaOf(d: Doc): Generator<{ where: string; media: Media; mediaType: string }> {
  for (const [p, ops] of Object.entries(d.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      for (const [mediaType, media] of Object.entries(op.requestBody?.content ?? {})) {
        yield { where: `${method.toUpperCase()} ${p} request body`, media, mediaType };
      }
      for (const [status, res] of Object.entries(op.responses)) {
        for (const [mediaType, media] of Object.entries(res.content ?? {})) {
          yield { where: `${method.toUpperCase()} ${p} ${status} ${mediaType}`, media, mediaType };
        }
      }
    }
  }
}

function examplesOf(media: Media): unknown[] {
  if (media.example !== undefined) return [media.example];
  return Object.values(media.examples ?? {}).map((e) => e.value);
}

// The component schemas inlined where they are referenced, so that Ajv checks an example alone.
function inline(schema: unknown, components: Record<string, Json>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inline(s, components));
  if (!schema || typeof schema !== 'object') return schema;
  const ref = (schema as Json).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return inline(components[ref.slice('#/components/schemas/'.length)], components);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inline(v, components)]));
}

describe('examples in the API description', () => {
  it('every request body and every answer has an example', () => {
    const missing = [...mediaOf(doc)]
      .filter(({ media }) => examplesOf(media).length === 0)
      .map((m) => m.where);
    assert.deepEqual(missing, []);
  });

  it('every JSON example is valid against its schema', () => {
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    let checked = 0;
    for (const { where, media, mediaType } of mediaOf(doc)) {
      if (mediaType !== 'application/json') continue;
      const validate = ajv.compile(inline(media.schema, doc.components.schemas) as Json);
      for (const value of examplesOf(media)) {
        assert.ok(validate(value), `${where}: ${ajv.errorsText(validate.errors)}`);
        checked++;
      }
    }
    assert.ok(checked > 60, `checked ${checked} examples`);
  });

  it('the check has teeth: an example that does not fit its schema is caught', () => {
    const ajv = addFormats(new Ajv2020({ strict: false }));
    const media = doc.paths['/api/v1/usage']!.get!.responses['200']!.content!['application/json']!;
    const validate = ajv.compile(inline(media.schema, doc.components.schemas) as Json);
    assert.equal(validate({ data: { tier: 'Business' } }), false);
  });

  it('the sample requests are accepted as they are: issue single and batch, send, revoke', async () => {
    const issue = doc.paths['/api/v1/certificates']!.post!;
    const [single, batch] = examplesOf(issue.requestBody!.content['application/json']!) as Json[];
    const post = (url: string, body: unknown) =>
      t.app.inject({ method: 'POST', url, headers: tenant.auth, payload: body as Json });
    // Only the template id is the caller's own.
    const one = await post('/api/v1/certificates', { ...single, templateId: tenant.templateId });
    assert.equal(one.statusCode, 201, one.body);
    assert.equal(one.json().data.title, 'Safe Lifting');
    const many = await post('/api/v1/certificates', { ...batch, templateId: tenant.templateId });
    assert.equal(many.statusCode, 201, many.body);
    assert.equal(many.json().data.created, 2);

    const id = one.json().data.id as string;
    const [send] = examplesOf(
      doc.paths['/api/v1/certificates/{id}/send']!.post!.requestBody!.content['application/json']!,
    );
    const sent = await post(`/api/v1/certificates/${id}/send`, send);
    assert.equal(sent.statusCode, 202, sent.body);
    const [revoke] = examplesOf(
      doc.paths['/api/v1/certificates/{id}/revoke']!.post!.requestBody!.content['application/json']!,
    );
    const revoked = await post(`/api/v1/certificates/${id}/revoke`, revoke);
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal(revoked.json().data.status, 'Revoked');
  });
});

describe('Spectral', () => {
  async function spectral(document: unknown): Promise<{ problems: { code: string; path: string[] }[] }> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-spectral-'));
    try {
      const file = path.join(dir, 'openapi.json');
      await writeFile(file, JSON.stringify(document));
      const cli = path.join(root, 'node_modules/@stoplight/spectral-cli/dist/index.js');
      const args = [
        cli,
        'lint',
        file,
        `--ruleset=${path.join(root, '.spectral.yaml')}`,
        '--format=json',
        '--quiet',
      ];
      const { stdout } = await run(process.execPath, args, { cwd: dir }).catch(
        (err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }),
      );
      return { problems: JSON.parse(stdout || '[]') as { code: string; path: string[] }[] };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  it('lints clean with the spectral:oas ruleset: no errors and no warnings', async () => {
    const { problems } = await spectral(doc);
    assert.deepEqual(
      problems.map((p) => `${p.code} at ${p.path.join('.')}`),
      [],
    );
  });

  it('the lint has teeth: an operation without a description is reported', async () => {
    const broken = structuredClone(doc) as unknown as { paths: Record<string, Record<string, Json>> };
    delete broken.paths['/api/v1/usage']!.get!.description;
    const { problems } = await spectral(broken);
    assert.ok(
      problems.some((p) => p.code === 'operation-description'),
      JSON.stringify(problems),
    );
  });
});
