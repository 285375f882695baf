import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import { createTemplatesService } from '../../src/modules/templates/templates.service.js';
import { designIssues } from '../../src/pdf/pdf-renderer.js';
import { ValidationError } from '../../src/platform/errors.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// Templates over HTTP (list, read, pagination, caching) and design validation at creation.

let t: TestApp;

before(async () => {
  t = await startTestApp();
});
after(() => t.close());

function design(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    description: null,
    fields: [{ key: 'course', label: 'Course', required: true }],
    page: { width: 842, height: 595 },
    elements: [
      {
        type: 'text',
        text: '{{recipient.name}} completed {{data.course}}',
        x: 40,
        y: 40,
        width: 700,
        size: 20,
      },
    ],
    ...extra,
  };
}

async function get(url: string, tenant: Tenant, headers: Record<string, string> = {}) {
  return t.app.inject({ method: 'GET', url, headers: { ...tenant.auth, ...headers } });
}

describe('GET /api/v1/templates: pagination', () => {
  let tenant: Tenant;
  // Names in creation order; createTenant already made the first one.
  const created: string[] = [];

  before(async () => {
    tenant = await createTenant(t.deps);
    created.push((await t.deps.services.templates.get(tenant.accountId, tenant.templateId)).id);
    for (let i = 1; i < 25; i++) {
      const tpl = await t.deps.services.templates.create(SYSTEM, tenant.accountId, design(`Template ${i}`));
      created.push(tpl.id);
    }
  });

  it('first page: perPage defaults to 20, the envelope reports totals, newest first', async () => {
    const res = await get('/api/v1/templates', tenant);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ['data', 'pagination']);
    assert.deepEqual(body.pagination, { page: 1, perPage: 20, total: 25, totalPages: 2 });
    assert.equal(body.data.length, 20);
    const newestFirst = [...created].reverse();
    assert.deepEqual(
      body.data.map((d: { id: string }) => d.id),
      newestFirst.slice(0, 20),
    );
  });

  it('page 2 holds the remaining 5, oldest last', async () => {
    const res = await get('/api/v1/templates?page=2', tenant);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(body.pagination, { page: 2, perPage: 20, total: 25, totalPages: 2 });
    assert.deepEqual(
      body.data.map((d: { id: string }) => d.id),
      [...created].reverse().slice(20),
    );
    assert.equal(body.data.at(-1).id, tenant.templateId);
  });

  it('a page past the end: 200 with data []', async () => {
    const res = await get('/api/v1/templates?page=9', tenant);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {
      data: [],
      pagination: { page: 9, perPage: 20, total: 25, totalPages: 2 },
    });
  });

  it('perPage=100 returns everything on one page; perPage=7 splits into 4 pages', async () => {
    const all = (await get('/api/v1/templates?perPage=100', tenant)).json();
    assert.equal(all.data.length, 25);
    assert.deepEqual(all.pagination, { page: 1, perPage: 100, total: 25, totalPages: 1 });
    const small = (await get('/api/v1/templates?perPage=7&page=4', tenant)).json();
    assert.equal(small.data.length, 4);
    assert.deepEqual(small.pagination, { page: 4, perPage: 7, total: 25, totalPages: 4 });
  });
});

describe('template resource, archive and ownership', () => {
  let tenant: Tenant;
  let other: Tenant;

  before(async () => {
    tenant = await createTenant(t.deps);
    other = await createTenant(t.deps);
  });

  it('a template has exactly id, name, description, fields, createdAt, updatedAt', async () => {
    const res = await get(`/api/v1/templates/${tenant.templateId}`, tenant);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['data']);
    const tpl = body.data;
    assert.deepEqual(Object.keys(tpl).sort(), [
      'createdAt',
      'description',
      'fields',
      'id',
      'name',
      'updatedAt',
    ]);
    assert.equal(tpl.id, tenant.templateId);
    assert.equal(tpl.name, 'Course completion');
    assert.equal(typeof tpl.description, 'string');
    assert.deepEqual(tpl.fields, [
      { key: 'course', label: 'Course title', required: true, type: 'text' },
      { key: 'hours', label: 'Hours of instruction', required: false, type: 'text' },
    ]);
    assert.match(tpl.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.match(tpl.updatedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // The design and the owning account never leave the server.
    assert.doesNotMatch(res.body, /elements|accountId|account_id|design/);

    const listed = (await get('/api/v1/templates', tenant)).json().data;
    assert.deepEqual(listed, [tpl]);
  });

  it('an archived template is absent from the list and reads 404', async () => {
    const extra = await t.deps.services.templates.create(SYSTEM, tenant.accountId, design('To archive'));
    assert.equal((await get(`/api/v1/templates/${extra.id}`, tenant)).statusCode, 200);
    await t.deps.services.templates.archive(SYSTEM, extra.id);

    const list = (await get('/api/v1/templates', tenant)).json();
    assert.ok(!list.data.some((d: { id: string }) => d.id === extra.id));
    assert.equal(list.pagination.total, 1);
    const res = await get(`/api/v1/templates/${extra.id}`, tenant);
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, 'not_found');
  });

  it("another account's template is 404, never listed", async () => {
    const res = await get(`/api/v1/templates/${other.templateId}`, tenant);
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, 'not_found');
    const list = (await get('/api/v1/templates?perPage=100', tenant)).json();
    assert.ok(!list.data.some((d: { id: string }) => d.id === other.templateId));
  });

  it('an unknown id is 404 and a malformed id is 422 at ["id"]', async () => {
    const unknown = await get('/api/v1/templates/01890a5d-ac96-774b-bcce-b302099a8057', tenant);
    assert.equal(unknown.statusCode, 404);
    const bad = await get('/api/v1/templates/not-a-uuid', tenant);
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json().error.details.issues[0].path, ['id']);
  });
});

describe('caching: ETag, Cache-Control, If-None-Match', () => {
  let tenant: Tenant;

  before(async () => {
    tenant = await createTenant(t.deps);
  });

  for (const which of ['list', 'read'] as const) {
    const url = () => (which === 'list' ? '/api/v1/templates' : `/api/v1/templates/${tenant.templateId}`);

    it(`${which}: ETag and Cache-Control: private, max-age=60`, async () => {
      const res = await get(url(), tenant);
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers.etag), /^"[^"]+"$/);
      assert.equal(res.headers['cache-control'], 'private, max-age=60');
      // Stable: the same state gives the same ETag.
      assert.equal((await get(url(), tenant)).headers.etag, res.headers.etag);
    });

    it(`${which}: a matching If-None-Match gives 304 with an empty body`, async () => {
      const etag = String((await get(url(), tenant)).headers.etag);
      const res = await get(url(), tenant, { 'if-none-match': etag });
      assert.equal(res.statusCode, 304);
      assert.equal(res.body, '');
      assert.equal(res.headers.etag, etag);
      assert.equal(res.headers['cache-control'], 'private, max-age=60');
      // One of several tags matching is enough.
      const several = await get(url(), tenant, { 'if-none-match': `"nope", ${etag}` });
      assert.equal(several.statusCode, 304);
    });

    it(`${which}: a non-matching If-None-Match gives 200 with the body`, async () => {
      const res = await get(url(), tenant, { 'if-none-match': '"something-else"' });
      assert.equal(res.statusCode, 200);
      assert.ok(res.json().data);
    });
  }

  it('the list ETag changes when a template is added, and the old one no longer matches', async () => {
    const before = String((await get('/api/v1/templates', tenant)).headers.etag);
    await t.deps.services.templates.create(SYSTEM, tenant.accountId, design('Added later'));
    const after = await get('/api/v1/templates', tenant, { 'if-none-match': before });
    assert.equal(after.statusCode, 200);
    assert.notEqual(after.headers.etag, before);
    assert.equal(after.json().pagination.total, 2);
  });

  it('ETags differ between accounts with the same-looking data', async () => {
    const other = await createTenant(t.deps);
    const a = (await get(`/api/v1/templates/${tenant.templateId}`, tenant)).headers.etag;
    const b = (await get(`/api/v1/templates/${other.templateId}`, other)).headers.etag;
    assert.notEqual(a, b);
  });
});

describe('design validation at creation', () => {
  let accountId: string;

  before(async () => {
    accountId = (await t.deps.services.accounts.create({ name: 'Designer', plan: 'Business' })).id;
  });

  async function rejects(
    service: Pick<ReturnType<typeof createTemplatesService>, 'create'>,
    input: unknown,
    path: (string | number)[],
    message?: RegExp,
  ) {
    await assert.rejects(service.create(SYSTEM, accountId, input), (err: unknown) => {
      assert.ok(err instanceof ValidationError, `expected a ValidationError, got ${String(err)}`);
      const issue = err.issues.find((i) => JSON.stringify(i.path) === JSON.stringify(path));
      assert.ok(issue, `no issue at ${JSON.stringify(path)}: ${JSON.stringify(err.issues)}`);
      if (message) assert.match(issue.message, message);
      return true;
    });
  }

  it('the sample designs are valid', async () => {
    const tpl = await t.deps.services.templates.create(
      SYSTEM,
      accountId,
      await readDesignFile(DEMO_DESIGN.pathname),
    );
    assert.equal(tpl.name, 'Course completion');
  });

  it('schema errors: unknown field, bad colour, bad element, missing page, bad field key', async () => {
    const s = t.deps.services.templates;
    await rejects(s, design('X', { colour: 'red' }), ['colour']);
    await rejects(s, design('X', { background: { color: 'red' } }), ['background', 'color']);
    await rejects(
      s,
      design('X', { elements: [{ type: 'text', text: 'Hi', x: 1, y: 1, width: 100, color: '#12345' }] }),
      ['elements', 0, 'color'],
    );
    await rejects(s, design('X', { elements: [{ type: 'text', text: 'Hi', x: -1, y: 1, width: 100 }] }), [
      'elements',
      0,
      'x',
    ]);
    const noPage: Record<string, unknown> = design('X');
    delete noPage.page;
    await rejects(s, noPage, ['page']);
    await rejects(s, design('X', { elements: [{ type: 'circle', x: 1, y: 1 }] }), ['elements', 0, 'type']);
    await rejects(s, design('X', { elements: [{ type: 'qr', x: 1, y: 1, size: 10 }] }), [
      'elements',
      0,
      'size',
    ]);
    await rejects(s, design('X', { fields: [{ key: '1bad', label: 'Bad', required: true }] }), [
      'fields',
      0,
      'key',
    ]);
    await rejects(s, design(''), ['name']);
  });

  it('duplicate field keys are refused', async () => {
    const fields = [
      { key: 'course', label: 'Course', required: true },
      { key: 'course', label: 'Again', required: false },
    ];
    await rejects(t.deps.services.templates, design('X', { fields }), ['fields'], /duplicate/);
  });

  it('an unknown account: not found', async () => {
    await assert.rejects(
      t.deps.services.templates.create(SYSTEM, '01890a5d-ac96-774b-bcce-b302099a8057', design('X')),
      /Account not found/,
    );
  });

  // What designIssues (src/pdf) reports, through a templates service that uses it.
  const checked = () => createTemplatesService({ db: t.deps.db, checkDesign: designIssues });
  const badDesigns: [string, Record<string, unknown>, (string | number)[], RegExp][] = [
    [
      'an unknown placeholder',
      { elements: [{ type: 'text', text: 'Hi {{data.nope}}', x: 10, y: 10, width: 300 }] },
      ['elements', 0, 'text'],
      /data\.nope/,
    ],
    [
      'a placeholder of an unknown source',
      { elements: [{ type: 'text', text: 'Hi {{recipient.shoeSize}}', x: 10, y: 10, width: 300 }] },
      ['elements', 0, 'text'],
      /unknown placeholder/,
    ],
    [
      'an element past the right edge',
      { elements: [{ type: 'rect', x: 800, y: 10, width: 100, height: 10, fill: '#000000' }] },
      ['elements', 0, 'x'],
      /right edge/,
    ],
    [
      'a QR code past the bottom edge',
      { elements: [{ type: 'qr', x: 10, y: 560, size: 96 }] },
      ['elements', 0, 'y'],
      /bottom edge/,
    ],
    [
      'an image that is not a PNG',
      {
        elements: [{ type: 'image', src: 'data:image/png;base64,AAAA', x: 10, y: 10, width: 50, height: 50 }],
      },
      ['elements', 0, 'src'],
      /./,
    ],
  ];

  for (const [what, extra, path, message] of badDesigns) {
    it(`designIssues: ${what} is a ValidationError at ${JSON.stringify(path)}`, async () => {
      await rejects(checked(), design('X', extra), path, message);
    });
  }

  it('the app’s templates service checks designs with designIssues (an unknown placeholder is refused)', async () => {
    await rejects(
      t.deps.services.templates,
      design('X', { elements: [{ type: 'text', text: 'Hi {{data.nope}}', x: 10, y: 10, width: 300 }] }),
      ['elements', 0, 'text'],
      /data\.nope/,
    );
  });
});
