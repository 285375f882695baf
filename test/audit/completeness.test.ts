import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import path from 'node:path';
import { SYSTEM } from '../../src/platform/principal.js';
import {
  createTenant,
  issueCertificate,
  startTestApp,
  testDatabaseUrl,
  type Tenant,
  type TestApp,
} from '../helpers/app.js';
import { cliEnv, REPO_ROOT, runCli } from '../cli/run-cli.js';
import { formClient, signInWith, type FormClient } from '../dashboard/form-client.js';

// The audit completeness sweep (issue 29): every state-changing API route, dashboard form and CLI
// command, run once, writes exactly the audit rows its entry names (one per certificate for a
// batch), with the right actor. A new POST/PUT/PATCH/DELETE route under /api/v1 without an entry in
// API_CHANGES fails the first test by name. Another change path: add a row to the table it belongs to.

interface Ctx {
  t: TestApp;
  tenant: Tenant;
  owner: FormClient;
  ownerEmail: string;
  cli: (...args: string[]) => Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** A fresh Issued certificate of the tenant (issued before the row counts start). */
  certificate: () => Promise<{ id: string; uniqueCode: string }>;
  templateId: () => Promise<string>;
}

interface Change {
  /** What the run writes: each action and how many rows of it. */
  expect: Record<string, number>;
  actor: 'api_key' | 'user' | 'cli' | 'system';
  /** Made before the rows are counted (what the change acts on). */
  prepare?: (ctx: Ctx) => Promise<unknown>;
  run: (ctx: Ctx, prepared: any) => Promise<unknown>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

const RECIPIENT = { name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'Engines' } };
const DESIGN = path.join(REPO_ROOT, 'examples/designs/course-completion.json');

function api(ctx: Ctx, method: 'POST', url: string, payload?: Record<string, unknown>) {
  return ctx.t.app
    .inject({ method, url, headers: ctx.tenant.auth, ...(payload === undefined ? {} : { payload }) })
    .then((res) => {
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
      return res;
    });
}

async function formOk(res: Promise<{ statusCode: number; body: string }>) {
  const r = await res;
  assert.ok(r.statusCode < 400, `${r.statusCode} ${r.body.slice(0, 500)}`);
  return r;
}

// Every state-changing API route, keyed as the OpenAPI description names it.
const API_CHANGES: Record<string, Change> = {
  'POST /api/v1/certificates': {
    actor: 'api_key',
    expect: { 'certificate.issued': 4 },
    run: async (ctx) => {
      await api(ctx, 'POST', '/api/v1/certificates', {
        templateId: ctx.tenant.templateId,
        recipient: RECIPIENT,
      });
      const recipients = [1, 2, 3].map((i) => ({ ...RECIPIENT, email: `ada${i}@example.com` }));
      await api(ctx, 'POST', '/api/v1/certificates', { templateId: ctx.tenant.templateId, recipients });
    },
  },
  'POST /api/v1/certificates/{id}/revoke': {
    actor: 'api_key',
    expect: { 'certificate.revoked': 1 },
    prepare: (ctx) => ctx.certificate(),
    run: (ctx, c) => api(ctx, 'POST', `/api/v1/certificates/${c.id}/revoke`, { reason: 'test' }),
  },
  'POST /api/v1/certificates/{id}/reissue': {
    actor: 'api_key',
    expect: { 'certificate.reissued': 1 },
    prepare: (ctx) => ctx.certificate(),
    run: (ctx, c) =>
      api(ctx, 'POST', `/api/v1/certificates/${c.id}/reissue`, {
        recipient: { ...RECIPIENT, name: 'Ada King' },
      }),
  },
  'POST /api/v1/certificates/{id}/send': {
    actor: 'api_key',
    expect: { 'certificate.sent': 1 },
    prepare: (ctx) => ctx.certificate(),
    run: (ctx, c) => api(ctx, 'POST', `/api/v1/certificates/${c.id}/send`, {}),
  },
};

const CSV = (rows: number) =>
  [
    'name,email,course',
    ...Array.from({ length: rows }, (_, i) => `Person ${i},p${i}@example.com,Engines`),
  ].join('\n');

// The dashboard forms (and counted downloads) that change something.
const DASHBOARD_CHANGES: Record<string, Change> = {
  'POST /dashboard/certificates/new': {
    actor: 'user',
    expect: { 'certificate.issued': 1 },
    run: (ctx) =>
      formOk(
        ctx.owner.post('/dashboard/certificates/new', {
          templateId: ctx.tenant.templateId,
          name: 'Grace Hopper',
          email: 'grace@example.com',
          'data.course': 'Compilers',
        }),
      ),
  },
  'POST /dashboard/certificates/:id/send': {
    actor: 'user',
    expect: { 'certificate.sent': 1 },
    prepare: (ctx) => ctx.certificate(),
    run: (ctx, c) => formOk(ctx.owner.post(`/dashboard/certificates/${c.id}/send`, {})),
  },
  'POST /dashboard/certificates/:id/revoke': {
    actor: 'user',
    expect: { 'certificate.revoked': 1 },
    prepare: (ctx) => ctx.certificate(),
    run: (ctx, c) => formOk(ctx.owner.post(`/dashboard/certificates/${c.id}/revoke`, { confirm: 'yes' })),
  },
  'POST /dashboard/certificates/:id/reissue': {
    actor: 'user',
    expect: { 'certificate.reissued': 1 },
    prepare: (ctx) => ctx.certificate(),
    run: (ctx, c) =>
      formOk(
        ctx.owner.post(`/dashboard/certificates/${c.id}/reissue`, {
          name: 'Ada King',
          email: 'ada@example.com',
          'data.course': 'Engines',
        }),
      ),
  },
  'POST /dashboard/certificates/upload (at once)': {
    actor: 'system',
    expect: { 'certificate.issued': 3, 'import.started': 1 },
    run: (ctx) =>
      formOk(
        ctx.owner.upload(
          '/dashboard/certificates/upload',
          { templateId: ctx.tenant.templateId },
          {
            name: 'three.csv',
            content: CSV(3),
          },
        ),
      ),
  },
  'POST /dashboard/certificates/upload (import) and POST /dashboard/imports/:id/cancel': {
    actor: 'user',
    expect: { 'import.started': 1, 'import.cancelled': 1 },
    run: async (ctx) => {
      const res = await formOk(
        ctx.owner.upload(
          '/dashboard/certificates/upload',
          { templateId: ctx.tenant.templateId },
          {
            name: 'many.csv',
            content: CSV(501),
          },
        ),
      );
      const id = /\/dashboard\/imports\/([0-9a-f-]{36})/.exec(String((res as any).headers.location))![1]; // eslint-disable-line @typescript-eslint/no-explicit-any
      await formOk(ctx.owner.get(`/dashboard/imports/${id}`));
      await formOk(ctx.owner.post(`/dashboard/imports/${id}/cancel`, {}));
    },
  },
  'POST /dashboard/certificates/upload/results/:id/email (Email all)': {
    actor: 'user',
    expect: { 'certificate.sent': 2 },
    prepare: async (ctx) => {
      const res = await formOk(
        ctx.owner.upload(
          '/dashboard/certificates/upload',
          { templateId: ctx.tenant.templateId },
          { name: 'two.csv', content: CSV(2) },
        ),
      );
      return /results\/([0-9a-f-]{36})/.exec(String((res as any).headers.location))![1]; // eslint-disable-line @typescript-eslint/no-explicit-any
    },
    run: (ctx, id) => formOk(ctx.owner.post(`/dashboard/certificates/upload/results/${id}/email`, {})),
  },
  'GET /dashboard/certificates/pdfs.zip': {
    actor: 'user',
    expect: { 'certificate.downloaded': 1 },
    prepare: (ctx) => ctx.certificate(),
    run: (ctx) => formOk(ctx.owner.get('/dashboard/certificates/pdfs.zip')),
  },
  'POST /dashboard/templates/new': {
    actor: 'user',
    expect: { 'template.saved': 1 },
    run: (ctx) => formOk(ctx.owner.post('/dashboard/templates/new', { design: 'course-completion' })),
  },
  'POST /dashboard/templates/:id/publish': {
    actor: 'user',
    expect: { 'template.published': 1 },
    prepare: (ctx) => ctx.templateId(),
    run: (ctx, id) => formOk(ctx.owner.post(`/dashboard/templates/${id}/publish`, {})),
  },
  'POST /dashboard/templates/:id/duplicate': {
    actor: 'user',
    expect: { 'template.saved': 1 },
    prepare: (ctx) => ctx.templateId(),
    run: (ctx, id) => formOk(ctx.owner.post(`/dashboard/templates/${id}/duplicate`, {})),
  },
  'POST /dashboard/templates/:id/versions/:version/restore': {
    actor: 'user',
    expect: { 'template.saved': 1 },
    prepare: (ctx) => ctx.templateId(),
    run: (ctx, id) => formOk(ctx.owner.post(`/dashboard/templates/${id}/versions/1/restore`, {})),
  },
  'POST /dashboard/templates/:id/archive': {
    actor: 'user',
    expect: { 'template.archived': 1 },
    prepare: (ctx) => ctx.templateId(),
    run: (ctx, id) => formOk(ctx.owner.post(`/dashboard/templates/${id}/archive`, {})),
  },
  'POST /dashboard/settings/sharing': {
    actor: 'user',
    expect: { 'account.updated': 1 },
    run: (ctx) =>
      formOk(
        ctx.owner.post('/dashboard/settings/sharing', {
          linkedinOrganizationId: '12345',
          publicDownload: 'on',
        }),
      ),
  },
  'GET /dashboard/settings/audit.csv': {
    actor: 'user',
    expect: { 'audit.exported': 1 },
    run: (ctx) => formOk(ctx.owner.get('/dashboard/settings/audit.csv')),
  },
};

// The CLI commands that change an account.
const CLI_CHANGES: Record<string, Change> = {
  'template create': {
    actor: 'cli',
    expect: { 'template.saved': 1 },
    run: async (ctx) =>
      assert.equal((await ctx.cli('template', 'create', ctx.tenant.accountId, '--file', DESIGN)).code, 0),
  },
  'template update': {
    actor: 'cli',
    expect: { 'template.published': 1 },
    prepare: (ctx) => ctx.templateId(),
    run: async (ctx, id) => assert.equal((await ctx.cli('template', 'update', id, '--file', DESIGN)).code, 0),
  },
  'template archive': {
    actor: 'cli',
    expect: { 'template.archived': 1 },
    prepare: (ctx) => ctx.templateId(),
    run: async (ctx, id) => assert.equal((await ctx.cli('template', 'archive', id)).code, 0),
  },
  'account settings': {
    actor: 'cli',
    expect: { 'account.updated': 1 },
    run: async (ctx) =>
      assert.equal(
        (await ctx.cli('account', 'settings', ctx.tenant.accountId, '--public-download', 'off')).code,
        0,
      ),
  },
  // A new credential key, and a new self-signed PDF certificate: two keys, two events.
  'signing-key rotate': {
    actor: 'cli',
    expect: { 'signing_key.rotated': 2 },
    run: async (ctx) => assert.equal((await ctx.cli('signing-key', 'rotate', ctx.tenant.accountId)).code, 0),
  },
};

describe('audit completeness: every change writes its events', () => {
  let t: TestApp;
  let superuser: pg.Client;
  let ctx: Ctx;
  before(async () => {
    t = await startTestApp();
    superuser = new pg.Client({ connectionString: testDatabaseUrl() });
    await superuser.connect();
    const tenant = await createTenant(t.deps, { plan: 'Business' });
    const ownerEmail = `owner-${process.pid}@academy.test`;
    const password = 'correct horse battery staple';
    await t.deps.services.users.create({ accountId: tenant.accountId, email: ownerEmail, password });
    const owner = formClient(t);
    await signInWith(owner, ownerEmail, password);
    const env = cliEnv({ DATABASE_URL: testDatabaseUrl() });
    ctx = {
      t,
      tenant,
      owner,
      ownerEmail,
      cli: (...args) => runCli(args, env),
      certificate: () => issueCertificate(t.app, tenant),
      templateId: async () => {
        const design = await import('../../src/cli/design-file.js').then((m) => m.readDesignFile(DESIGN));
        return (await t.deps.services.templates.create(SYSTEM, tenant.accountId, design)).id;
      },
    };
  });
  after(async () => {
    await superuser.end();
    await t.close();
  });

  async function lastSeq(): Promise<number> {
    const { rows } = await superuser.query('SELECT seq FROM audit_heads WHERE account_id = $1', [
      ctx.tenant.accountId,
    ]);
    return Number(rows[0].seq);
  }

  async function sweep(name: string, change: Change) {
    const prepared = await change.prepare?.(ctx);
    const from = await lastSeq();
    await change.run(ctx, prepared);
    const { rows } = await superuser.query(
      'SELECT action, actor_type, actor_id, actor_label FROM audit_events WHERE account_id = $1 AND seq > $2 ORDER BY seq',
      [ctx.tenant.accountId, from],
    );
    const counts: Record<string, number> = {};
    for (const r of rows) counts[r.action] = (counts[r.action] ?? 0) + 1;
    assert.deepEqual(counts, change.expect, `${name}: ${JSON.stringify(rows)}`);
    const key = (await t.deps.services.keys.list(ctx.tenant.accountId))[0]!;
    for (const r of rows) {
      // A dashboard upload issued at once: the import's rows are the service's (system) work.
      const actor = change.actor === 'system' && r.action === 'import.started' ? 'user' : change.actor;
      assert.equal(r.actor_type, actor, `${name}: ${r.action} by ${r.actor_type}`);
      if (actor === 'api_key') assert.equal(r.actor_label, key.prefix, name);
      if (actor === 'user') assert.equal(r.actor_label, ctx.ownerEmail, name);
      if (actor === 'cli') assert.ok(r.actor_label, name);
    }
  }

  it('every state-changing API route has an entry, and writes it', async () => {
    const doc = t.app.swagger() as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths).flatMap(([p, ops]) =>
      Object.keys(ops)
        .filter((m) => ['post', 'put', 'patch', 'delete'].includes(m) && p.startsWith('/api/v1/'))
        .map((m) => `${m.toUpperCase()} ${p}`),
    );
    const missing = routes.filter((r) => !(r in API_CHANGES));
    assert.deepEqual(missing, [], `routes without an audit entry: ${missing.join(', ')}`);
    for (const [name, change] of Object.entries(API_CHANGES)) await sweep(name, change);
  });

  it('every dashboard form wired writes its events', async () => {
    for (const [name, change] of Object.entries(DASHBOARD_CHANGES)) await sweep(name, change);
  });

  it('every CLI command wired writes its events', async () => {
    for (const [name, change] of Object.entries(CLI_CHANGES)) await sweep(name, change);
  });
});
