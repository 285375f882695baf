import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import path from 'node:path';
import os from 'node:os';
import { mkdtemp, writeFile } from 'node:fs/promises';
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
import { codeAt, newOperator, operatorSignIn } from '../admin/support.js';
import { linkInMail } from '../team/support.js';
import { createResetLink } from '../../src/modules/users/password-resets.js';
import { upsertSso } from '../../src/modules/sso/sso.repository.js';

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
  /** A new user of the tenant (owner unless told), signed in on a form client of their own. */
  member: (role?: string) => Promise<Member>;
  /** The instance's operator, signed in to the console with two-factor (one for the whole file). */
  operator: () => Promise<{ client: FormClient; email: string }>;
}

interface Member {
  id: string;
  email: string;
  client: FormClient;
}

type ActorType = 'api_key' | 'user' | 'cli' | 'system' | 'operator';

interface Change {
  /** What the run writes: each action and how many rows of it. */
  expect: Record<string, number>;
  actor: ActorType;
  /** Actions written by another actor than the change's (a CLI import's worker is the system). */
  actors?: Record<string, ActorType>;
  /** The actor's label when it is not the signed-in owner (a member, an invitee, nobody). */
  label?: (ctx: Ctx, prepared: any) => string | null; // eslint-disable-line @typescript-eslint/no-explicit-any
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

const PASSWORD = 'correct horse battery staple';
let invitations = 0;
const invitee = () => `invitee-${process.pid}-${++invitations}@academy.test`;

// An invitation sent from Settings > Team: its id and address.
async function invite(ctx: Ctx): Promise<{ id: string; email: string }> {
  const email = invitee();
  await formOk(ctx.owner.post('/dashboard/settings/team/invitations', { email, role: 'issuer' }));
  const { invitations: pending } = await ctx.t.deps.services.team.list(ctx.tenant.accountId);
  return { id: pending.find((i) => i.email === email)!.id, email };
}

const setLimit = (ctx: Ctx, limit: number | null) =>
  ctx.t.deps.db.query('UPDATE accounts SET monthly_limit = $2 WHERE id = $1', [ctx.tenant.accountId, limit]);

// An upload of four rows while the period has two left: held (nothing written yet).
async function heldUpload(ctx: Ctx): Promise<string> {
  await setLimit(ctx, 1_000_000);
  const page = await ctx.owner.get(`/dashboard/certificates/upload?templateId=${ctx.tenant.templateId}`);
  const left = Number(/This period has <strong>([\d,]+)<\/strong>/.exec(page.body)![1]!.replace(/,/g, ''));
  await setLimit(ctx, 1_000_000 - left + 2);
  const res = await ctx.owner.upload(
    '/dashboard/certificates/upload',
    { templateId: ctx.tenant.templateId },
    { name: 'four.csv', content: CSV(4) },
  );
  const location = String(res.headers.location);
  assert.match(location, /^\/dashboard\/certificates\/upload\/held\/[0-9a-f-]{36}$/, res.body.slice(0, 500));
  return location;
}

// "Issue the first 2" of a held upload; the quota lifted again afterwards. The import's id.
async function startHeld(ctx: Ctx, holdUrl: string): Promise<string> {
  const res = await formOk(ctx.owner.post(`${holdUrl}/start`, { limit: '2' }));
  await setLimit(ctx, null);
  return /\/([0-9a-f-]{36})$/.exec(String((res as any).headers.location))![1]!; // eslint-disable-line @typescript-eslint/no-explicit-any
}

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
  // Issue 31: a recipient's correction request (asked before the count), approved or rejected.
  'POST /dashboard/certificates/corrections/:id/approve': {
    actor: 'user',
    expect: { 'certificate.reissued': 1, 'correction.approved': 1 },
    prepare: async (ctx) => {
      const c = await ctx.certificate();
      return ctx.t.deps.services.corrections.request(c.id, { name: 'Ada King' }, 'claim');
    },
    run: (ctx, r) => formOk(ctx.owner.post(`/dashboard/certificates/corrections/${r.id}/approve`, {})),
  },
  'POST /dashboard/certificates/corrections/:id/reject': {
    actor: 'user',
    expect: { 'correction.rejected': 1 },
    prepare: async (ctx) => {
      const c = await ctx.certificate();
      return ctx.t.deps.services.corrections.request(c.id, { name: 'Ada King' }, 'my');
    },
    run: (ctx, r) =>
      formOk(ctx.owner.post(`/dashboard/certificates/corrections/${r.id}/reject`, { reason: 'As enrolled' })),
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
  'POST /dashboard/templates/:id/badge and POST /dashboard/templates/:id/badge/remove': {
    actor: 'user',
    expect: { 'template.badge_changed': 2 },
    prepare: (ctx) => ctx.templateId(),
    run: async (ctx, id) => {
      const svg = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="4" height="4"/></svg>';
      await formOk(ctx.owner.upload(`/dashboard/templates/${id}/badge`, {}, { name: 'b.svg', content: svg }));
      await formOk(ctx.owner.post(`/dashboard/templates/${id}/badge/remove`, {}));
    },
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
  'POST /dashboard/settings/team/invitations': {
    actor: 'user',
    expect: { 'user.invited': 1 },
    run: (ctx) => invite(ctx),
  },
  'POST /dashboard/settings/team/invitations/:id/resend': {
    actor: 'user',
    expect: { 'user.invited': 1 },
    prepare: (ctx) => invite(ctx),
    run: (ctx, i) => formOk(ctx.owner.post(`/dashboard/settings/team/invitations/${i.id}/resend`, {})),
  },
  // Cancelling writes nothing by design: the invitation never became a user.
  'POST /dashboard/settings/team/invitations/:id/cancel': {
    actor: 'user',
    expect: {},
    prepare: (ctx) => invite(ctx),
    run: (ctx, i) => formOk(ctx.owner.post(`/dashboard/settings/team/invitations/${i.id}/cancel`, {})),
  },
  'POST /dashboard/invitations/:token (accept)': {
    actor: 'user',
    label: (_ctx, i) => i.email,
    expect: { 'user.joined': 1 },
    prepare: async (ctx) => {
      const i = await invite(ctx);
      return { ...i, link: await linkInMail(ctx.t.deps.config.dataDir, i.email) };
    },
    run: async (ctx, i) => {
      const client = formClient(ctx.t, '10.9.1.1');
      await formOk(client.get(i.link));
      await formOk(client.post(i.link, { password: PASSWORD }));
    },
  },
  'POST /dashboard/settings/team/:id/role': {
    actor: 'user',
    expect: { 'user.role_changed': 1 },
    prepare: (ctx) => ctx.member('issuer'),
    run: (ctx, m) => formOk(ctx.owner.post(`/dashboard/settings/team/${m.id}/role`, { role: 'designer' })),
  },
  'POST /dashboard/settings/team/:id/remove': {
    actor: 'user',
    expect: { 'user.removed': 1 },
    prepare: (ctx) => ctx.member('issuer'),
    run: (ctx, m) => formOk(ctx.owner.post(`/dashboard/settings/team/${m.id}/remove`, {})),
  },
  'POST /dashboard/reset-password/:token': {
    actor: 'user',
    label: (_ctx, m) => m.email,
    expect: { 'user.password_changed': 1 },
    prepare: async (ctx) => {
      const m = await ctx.member('viewer');
      return { ...m, link: (await createResetLink(ctx.t.deps.db, m.id, new Date())).path };
    },
    run: async (ctx, m) => {
      const client = formClient(ctx.t, '10.9.1.2');
      await formOk(client.get(m.link));
      await formOk(client.post(m.link, { password: 'a new password for the sweep' }));
    },
  },
  'POST /dashboard/settings/api-keys': {
    actor: 'user',
    expect: { 'key.created': 1 },
    run: (ctx) =>
      formOk(
        ctx.owner.post('/dashboard/settings/api-keys', { name: 'Sweep', scopes: ['certificates:read'] }),
      ),
  },
  'POST /dashboard/settings/api-keys/:id/revoke': {
    actor: 'user',
    expect: { 'key.revoked': 1 },
    prepare: (ctx) => ctx.t.deps.services.keys.create(ctx.tenant.accountId, { name: 'To revoke' }),
    run: (ctx, key) => formOk(ctx.owner.post(`/dashboard/settings/api-keys/${key.id}/revoke`, {})),
  },
  'POST /dashboard/settings/profile/password': {
    actor: 'user',
    label: (_ctx, m) => m.email,
    expect: { 'user.password_changed': 1 },
    prepare: (ctx) => ctx.member('viewer'),
    run: (_ctx, m) =>
      formOk(
        m.client.post('/dashboard/settings/profile/password', {
          current: PASSWORD,
          password: 'another password for the sweep',
          again: 'another password for the sweep',
        }),
      ),
  },
  'POST /dashboard/settings/profile/two-factor/confirm': {
    actor: 'user',
    label: (_ctx, m) => m.email,
    expect: { 'user.two_factor_enabled': 1 },
    prepare: async (ctx) => {
      const m: Member = await ctx.member('viewer');
      await formOk(m.client.post('/dashboard/settings/profile/two-factor/start', {}));
      const page = await m.client.get('/dashboard/settings/profile');
      return { ...m, secret: /data-testid="totp-secret">([A-Z2-7]+)</.exec(page.body)![1]! };
    },
    run: (_ctx, m) =>
      formOk(
        m.client.post('/dashboard/settings/profile/two-factor/confirm', {
          code: codeAt(m.secret, new Date()),
        }),
      ),
  },
  // Off, so that the owner's session goes on without setting two-factor up.
  'POST /dashboard/settings/profile/require-two-factor': {
    actor: 'user',
    expect: { 'account.updated': 1 },
    run: (ctx) => formOk(ctx.owner.post('/dashboard/settings/profile/require-two-factor', {})),
  },
  'POST /dashboard/settings/organisation': {
    actor: 'user',
    expect: { 'account.updated': 1 },
    run: (ctx) =>
      formOk(
        ctx.owner.post('/dashboard/settings/organisation', {
          name: 'Test Academy',
          website: 'https://academy.example',
          contactEmail: 'office@academy.example',
          defaultLanguage: 'en',
        }),
      ),
  },
  // Saving asks the issuer for its discovery document (test/dashboard/sso.test.ts has a real
  // provider); the sweep turns off a configuration stored as the save would store it.
  'POST /dashboard/settings/sign-in/remove': {
    actor: 'user',
    expect: { 'sso.updated': 1 },
    prepare: (ctx) =>
      upsertSso(ctx.t.deps.db, {
        account_id: ctx.tenant.accountId,
        issuer_url: 'https://id.academy.example',
        client_id: 'certsvc',
        client_secret: Buffer.from('sealed'),
        allowed_domains: [],
        default_role: 'viewer',
        role_claim: null,
        role_map: {},
        password_sign_in: true,
        updated_at: new Date(),
      }),
    run: (ctx) => formOk(ctx.owner.post('/dashboard/settings/sign-in/remove', {})),
  },
  'POST /dashboard/sign-in': {
    actor: 'user',
    label: (_ctx, m) => m.email,
    expect: { 'user.signed_in': 1 },
    prepare: (ctx) => ctx.member('viewer'),
    run: (ctx, m) => signInWith(formClient(ctx.t, '10.9.1.3'), m.email, PASSWORD),
  },
  // A wrong password for a known user: recorded in their account, by nobody known.
  'POST /dashboard/sign-in (refused)': {
    actor: 'user',
    label: () => null,
    expect: { 'user.sign_in_failed': 1 },
    prepare: (ctx) => ctx.member('viewer'),
    run: async (ctx, m) => {
      const client = formClient(ctx.t, '10.9.1.4');
      await client.get('/dashboard');
      const res = await client.post('/dashboard/sign-in', { email: m.email, password: 'not the password' });
      assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${res.statusCode}`);
    },
  },
  'POST /dashboard/certificates/upload/held/:id/start': {
    actor: 'system',
    expect: { 'import.started': 1, 'certificate.issued': 2 },
    prepare: (ctx) => heldUpload(ctx),
    run: (ctx, holdUrl) => startHeld(ctx, holdUrl),
  },
  'POST /dashboard/imports/:id/retry (and its import run)': {
    actor: 'system',
    expect: { 'import.started': 1, 'certificate.issued': 2 },
    prepare: async (ctx) => startHeld(ctx, await heldUpload(ctx)),
    run: async (ctx, id) => {
      await formOk(ctx.owner.post(`/dashboard/imports/${id}/retry`, {}));
      while (await ctx.t.deps.services.imports.runChunk());
    },
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
  'user create': {
    actor: 'cli',
    expect: { 'user.joined': 1 },
    run: async (ctx) =>
      assert.equal(
        (await ctx.cli('user', 'create', ctx.tenant.accountId, '--email', invitee(), '--role', 'issuer'))
          .code,
        0,
      ),
  },
  'user role': {
    actor: 'cli',
    expect: { 'user.role_changed': 1 },
    prepare: (ctx) => ctx.member('issuer'),
    run: async (ctx, m) =>
      assert.equal(
        (await ctx.cli('user', 'role', ctx.tenant.accountId, '--email', m.email, '--role', 'designer')).code,
        0,
      ),
  },
  'user remove': {
    actor: 'cli',
    expect: { 'user.removed': 1 },
    prepare: (ctx) => ctx.member('issuer'),
    run: async (ctx, m) =>
      assert.equal((await ctx.cli('user', 'remove', ctx.tenant.accountId, '--email', m.email)).code, 0),
  },
  'key create': {
    actor: 'cli',
    expect: { 'key.created': 1 },
    run: async (ctx) =>
      assert.equal((await ctx.cli('key', 'create', ctx.tenant.accountId, '--name', 'From the CLI')).code, 0),
  },
  'key revoke': {
    actor: 'cli',
    expect: { 'key.revoked': 1 },
    prepare: (ctx) => ctx.t.deps.services.keys.create(ctx.tenant.accountId, { name: 'To revoke' }),
    run: async (ctx, key) => assert.equal((await ctx.cli('key', 'revoke', key.id)).code, 0),
  },
  'account update': {
    actor: 'cli',
    expect: { 'account.updated': 1 },
    run: async (ctx) =>
      assert.equal(
        (await ctx.cli('account', 'update', ctx.tenant.accountId, '--website', 'https://www.academy.example'))
          .code,
        0,
      ),
  },
  'account set-plan': {
    actor: 'cli',
    expect: { 'account.updated': 1 },
    run: async (ctx) =>
      assert.equal((await ctx.cli('account', 'set-plan', ctx.tenant.accountId, 'Business')).code, 0),
  },
  // The CLI starts the import; its rows are the worker's (system) work, done by the same process.
  import: {
    actor: 'cli',
    actors: { 'certificate.issued': 'system' },
    expect: { 'import.started': 1, 'certificate.issued': 2 },
    prepare: async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'certsvc-sweep-'));
      await writeFile(path.join(dir, 'two.csv'), CSV(2));
      return path.join(dir, 'two.csv');
    },
    run: async (ctx, file) => {
      const res = await ctx.cli(
        'import',
        ctx.tenant.accountId,
        '--template',
        ctx.tenant.templateId,
        '--csv',
        file,
      );
      assert.equal(res.code, 0, res.stderr);
    },
  },
};

// The operator console's changes (/admin): events of the account touched, by the operator.
const OPERATOR_CHANGES: Record<string, Change> = {
  'POST /admin/accounts/:id/plan': {
    actor: 'operator',
    label: (_ctx, op) => op.email,
    expect: { 'account.updated': 1 },
    prepare: (ctx) => ctx.operator(),
    run: (ctx, op) =>
      formOk(op.client.post(`/admin/accounts/${ctx.tenant.accountId}/plan`, { plan: 'Business' })),
  },
  'POST /admin/accounts/:id/contract': {
    actor: 'operator',
    label: (_ctx, op) => op.email,
    expect: { 'account.updated': 1 },
    prepare: (ctx) => ctx.operator(),
    run: (ctx, op) =>
      formOk(op.client.post(`/admin/accounts/${ctx.tenant.accountId}/contract`, { ends: '' })),
  },
  'POST /admin/accounts/:id/contract/end': {
    actor: 'operator',
    label: (_ctx, op) => op.email,
    expect: { 'account.updated': 1 },
    prepare: (ctx) => ctx.operator(),
    run: (ctx, op) => formOk(op.client.post(`/admin/accounts/${ctx.tenant.accountId}/contract/end`, {})),
  },
  'POST /admin/accounts/:id/suspend': {
    actor: 'operator',
    label: (ctx, op) => op.email,
    expect: { 'account.suspended': 1 },
    prepare: (ctx) => ctx.operator(),
    run: (ctx, op) => formOk(op.client.post(`/admin/accounts/${ctx.tenant.accountId}/suspend`, {})),
  },
  'POST /admin/accounts/:id/resume': {
    actor: 'operator',
    label: (ctx, op) => op.email,
    expect: { 'account.resumed': 1 },
    prepare: (ctx) => ctx.operator(),
    run: (ctx, op) => formOk(op.client.post(`/admin/accounts/${ctx.tenant.accountId}/resume`, {})),
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
    const password = PASSWORD;
    let members = 0;
    let operator: Promise<{ client: FormClient; email: string }> | undefined;
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
      member: async (role = 'owner') => {
        const email = `member-${process.pid}-${++members}@academy.test`;
        const { user } = await t.deps.services.users.create({
          accountId: tenant.accountId,
          email,
          password,
          role,
        });
        const client = formClient(t, `10.9.0.${members}`);
        await signInWith(client, email, password);
        return { id: user.id, email, client };
      },
      operator: () =>
        (operator ??= (async () => {
          const op = await newOperator(t);
          const client = formClient(t, '10.8.0.1');
          await operatorSignIn(client, op, new Date());
          return { client, email: op.email };
        })()),
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
      const actor =
        change.actors?.[r.action] ??
        (change.actor === 'system' && r.action === 'import.started' ? 'user' : change.actor);
      assert.equal(r.actor_type, actor, `${name}: ${r.action} by ${r.actor_type}`);
      const label = change.label ? change.label(ctx, prepared) : ctx.ownerEmail;
      if (actor === 'api_key') assert.equal(r.actor_label, key.prefix, name);
      if (actor === 'user' || actor === 'operator') assert.equal(r.actor_label, label, name);
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

  it('every operator console action writes its event in the account touched', async () => {
    for (const [name, change] of Object.entries(OPERATOR_CHANGES)) await sweep(name, change);
  });
});
