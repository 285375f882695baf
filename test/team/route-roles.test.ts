import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomUUID } from 'node:crypto';
import { ROLES, can, type Permission, type Role } from '../../src/modules/shared/roles.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { formClient, signInWith, type FormClient } from '../dashboard/form-client.js';

// Issue 29: every dashboard route and form x every role. The routes come from Fastify's own route
// tree, so a new route without a row here fails this test by name. A role the permission allows gets
// the page or form's normal answer; any other gets the 403 page, with the account's data unchanged
// (checked in the database), though the request names real rows and carries a valid CSRF token.

type Access = Permission | 'signed-in' | 'public';

interface Fixtures {
  tenant: Tenant;
  certificateId: string;
  importId: string;
  keyId: string;
  victimId: string;
  invitationId: string;
}

interface Row {
  access: Access;
  /** The path with real ids (the refused request, and the allowed GETs). */
  path?: (f: Fixtures) => string;
  /** An allowed POST's path: ids that exist nowhere, so the fixtures stay (a 404 is its normal answer). */
  harmless?: string;
  /** The fields of the refused POST: what would change something if the check were missing. */
  fields?: (f: Fixtures) => Record<string, string | string[]>;
}

const none = randomUUID();
const TABLE: Record<string, Row> = {
  'GET /dashboard': { access: 'public' },
  'GET /dashboard/': { access: 'public' },
  // The bundled scripts of src/browser/ and the stylesheet under their hashed names (dashboard-<HASH>.js, studio-<HASH>.js, dashboard-<HASH>.css).
  'GET /dashboard/assets/:file': { access: 'public' },
  'POST /dashboard/sign-in': { access: 'public' },
  'POST /dashboard/sign-out': { access: 'signed-in' },
  'GET /dashboard/invitations/:token': { access: 'public' },
  'POST /dashboard/invitations/:token': { access: 'public' },
  'GET /dashboard/reset-password/:token': { access: 'public' },
  'POST /dashboard/reset-password/:token': { access: 'public' },

  'GET /dashboard/settings': { access: 'read' },
  'GET /dashboard/settings/api-keys': { access: 'keys' },
  'POST /dashboard/settings/api-keys': {
    access: 'keys',
    fields: () => ({ name: 'sneaky', scopes: ['certificates:read'] }),
  },
  'GET /dashboard/settings/api-keys/:id/revoke': {
    access: 'keys',
    path: (f) => `/dashboard/settings/api-keys/${f.keyId}/revoke`,
  },
  'POST /dashboard/settings/api-keys/:id/revoke': {
    access: 'keys',
    path: (f) => `/dashboard/settings/api-keys/${f.keyId}/revoke`,
    harmless: `/dashboard/settings/api-keys/${none}/revoke`,
  },
  'GET /dashboard/settings/sharing': { access: 'organisation' },
  'POST /dashboard/settings/sharing': {
    access: 'organisation',
    fields: () => ({ linkedinOrganizationId: '1337', publicDownload: 'on' }),
  },
  'GET /dashboard/settings/team': { access: 'team' },
  'POST /dashboard/settings/team/invitations': {
    access: 'team',
    fields: () => ({ email: `sneaky-${randomUUID()}@academy.test`, role: 'admin' }),
  },
  'POST /dashboard/settings/team/invitations/:id/resend': {
    access: 'team',
    path: (f) => `/dashboard/settings/team/invitations/${f.invitationId}/resend`,
    harmless: `/dashboard/settings/team/invitations/${none}/resend`,
  },
  'POST /dashboard/settings/team/invitations/:id/cancel': {
    access: 'team',
    path: (f) => `/dashboard/settings/team/invitations/${f.invitationId}/cancel`,
    harmless: `/dashboard/settings/team/invitations/${none}/cancel`,
  },
  'POST /dashboard/settings/team/:id/role': {
    access: 'team',
    path: (f) => `/dashboard/settings/team/${f.victimId}/role`,
    harmless: `/dashboard/settings/team/${none}/role`,
    fields: () => ({ role: 'admin' }),
  },
  'GET /dashboard/settings/team/:id/remove': {
    access: 'team',
    path: (f) => `/dashboard/settings/team/${f.victimId}/remove`,
  },
  'POST /dashboard/settings/team/:id/remove': {
    access: 'team',
    path: (f) => `/dashboard/settings/team/${f.victimId}/remove`,
    harmless: `/dashboard/settings/team/${none}/remove`,
  },

  'GET /dashboard/templates': { access: 'read' },
  'GET /dashboard/templates/new': { access: 'design' },
  'POST /dashboard/templates/new': {
    access: 'design',
    fields: () => ({ design: 'course-completion' }),
    harmless: '/dashboard/templates/new',
  },
  'GET /dashboard/templates/gallery/:slug/preview.pdf': {
    access: 'design',
    path: () => '/dashboard/templates/gallery/course-completion/preview.pdf',
  },
  'GET /dashboard/templates/:id/edit': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/edit`,
  },
  'POST /dashboard/templates/:id/edit': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/edit`,
    harmless: `/dashboard/templates/${none}/edit`,
    fields: () => ({ design: '{}' }),
  },
  'POST /dashboard/templates/:id/publish': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/publish`,
    harmless: `/dashboard/templates/${none}/publish`,
  },
  'GET /dashboard/templates/:id/preview.pdf': {
    access: 'read',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/preview.pdf`,
  },
  'POST /dashboard/templates/:id/preview.pdf': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/preview.pdf`,
    harmless: `/dashboard/templates/${none}/preview.pdf`,
  },
  'POST /dashboard/templates/:id/draft': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/draft`,
    harmless: `/dashboard/templates/${none}/draft`,
    fields: () => ({ design: '{}' }),
  },
  'POST /dashboard/templates/:id/draft/discard': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/draft/discard`,
    harmless: `/dashboard/templates/${none}/draft/discard`,
  },
  'POST /dashboard/templates/:id/uploads': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/uploads`,
    harmless: `/dashboard/templates/${none}/uploads`,
  },
  'POST /dashboard/templates/:id/badge': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/badge`,
    harmless: `/dashboard/templates/${none}/badge`,
  },
  'POST /dashboard/templates/:id/badge/remove': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/badge/remove`,
    harmless: `/dashboard/templates/${none}/badge/remove`,
  },
  'GET /dashboard/templates/:id/badge': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/badge`,
  },
  'GET /dashboard/templates/:id/history': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/history`,
  },
  'POST /dashboard/templates/:id/versions/:version/restore': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/versions/1/restore`,
    harmless: `/dashboard/templates/${none}/versions/1/restore`,
  },
  'POST /dashboard/templates/:id/duplicate': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/duplicate`,
    harmless: `/dashboard/templates/${none}/duplicate`,
  },
  'GET /dashboard/templates/:id/archive': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/archive`,
  },
  'POST /dashboard/templates/:id/archive': {
    access: 'design',
    path: (f) => `/dashboard/templates/${f.tenant.templateId}/archive`,
    harmless: `/dashboard/templates/${none}/archive`,
  },

  'GET /dashboard/certificates': { access: 'read' },
  'GET /dashboard/certificates/pdfs.zip': { access: 'issue' },
  'GET /dashboard/certificates/new': { access: 'issue' },
  'POST /dashboard/certificates/new': {
    access: 'issue',
    harmless: '/dashboard/certificates/new',
    fields: (f) => ({
      templateId: f.tenant.templateId,
      name: 'Sneaky',
      email: 'sneaky@example.com',
      course: 'X',
    }),
  },
  'GET /dashboard/certificates/upload': { access: 'issue' },
  'POST /dashboard/certificates/upload': {
    access: 'issue',
    harmless: '/dashboard/certificates/upload',
    fields: (f) => ({ templateId: f.tenant.templateId }),
  },
  'GET /dashboard/certificates/upload/results/:id': {
    access: 'issue',
    path: (f) => `/dashboard/certificates/upload/results/${f.importId}`,
  },
  'POST /dashboard/certificates/upload/results/:id/email': {
    access: 'issue',
    path: (f) => `/dashboard/certificates/upload/results/${f.importId}/email`,
    harmless: `/dashboard/certificates/upload/results/${none}/email`,
  },
  'GET /dashboard/certificates/upload/results/:id/pdfs.zip': {
    access: 'issue',
    path: (f) => `/dashboard/certificates/upload/results/${f.importId}/pdfs.zip`,
  },
  'GET /dashboard/certificates/upload/results/:id/results.csv': {
    access: 'issue',
    path: (f) => `/dashboard/certificates/upload/results/${f.importId}/results.csv`,
  },
  'GET /dashboard/certificates/:id': {
    access: 'read',
    path: (f) => `/dashboard/certificates/${f.certificateId}`,
  },
  'GET /dashboard/certificates/:id/credential': {
    access: 'read',
    path: (f) => `/dashboard/certificates/${f.certificateId}/credential`,
  },
  'GET /dashboard/certificates/:id/badge': {
    access: 'read',
    path: (f) => `/dashboard/certificates/${f.certificateId}/badge`,
  },
  'GET /dashboard/certificates/:id/pdf': {
    access: 'read',
    path: (f) => `/dashboard/certificates/${f.certificateId}/pdf`,
  },
  'POST /dashboard/certificates/:id/send': {
    access: 'issue',
    path: (f) => `/dashboard/certificates/${f.certificateId}/send`,
    harmless: `/dashboard/certificates/${none}/send`,
  },
  'POST /dashboard/certificates/:id/revoke': {
    access: 'issue',
    path: (f) => `/dashboard/certificates/${f.certificateId}/revoke`,
    harmless: `/dashboard/certificates/${none}/revoke`,
    fields: () => ({ reason: 'Sneaky' }),
  },
  'POST /dashboard/certificates/:id/reissue': {
    access: 'issue',
    path: (f) => `/dashboard/certificates/${f.certificateId}/reissue`,
    harmless: `/dashboard/certificates/${none}/reissue`,
    fields: () => ({ name: 'Sneaky Name' }),
  },
  // Issue 31: the recipients' correction requests (no request exists: the refusal comes first).
  'GET /dashboard/certificates/corrections': { access: 'read' },
  'POST /dashboard/certificates/corrections/:id/approve': {
    access: 'issue',
    path: () => `/dashboard/certificates/corrections/${none}/approve`,
    harmless: `/dashboard/certificates/corrections/${none}/approve`,
  },
  'POST /dashboard/certificates/corrections/:id/reject': {
    access: 'issue',
    path: () => `/dashboard/certificates/corrections/${none}/reject`,
    harmless: `/dashboard/certificates/corrections/${none}/reject`,
    fields: () => ({ reason: 'Sneaky' }),
  },

  'GET /dashboard/imports': { access: 'read' },
  'GET /dashboard/imports/:id': { access: 'read', path: (f) => `/dashboard/imports/${f.importId}` },
  'GET /dashboard/imports/:id/progress.json': {
    access: 'read',
    path: (f) => `/dashboard/imports/${f.importId}/progress.json`,
  },
  'GET /dashboard/imports/:id/pdfs.zip': {
    access: 'issue',
    path: (f) => `/dashboard/imports/${f.importId}/pdfs.zip`,
  },
  'GET /dashboard/imports/:id/results.csv': {
    access: 'read',
    path: (f) => `/dashboard/imports/${f.importId}/results.csv`,
  },
  'POST /dashboard/imports/:id/cancel': {
    access: 'issue',
    path: (f) => `/dashboard/imports/${f.importId}/cancel`,
    harmless: `/dashboard/imports/${none}/cancel`,
  },
  'POST /dashboard/imports/:id/email': {
    access: 'issue',
    path: (f) => `/dashboard/imports/${f.importId}/email`,
    harmless: `/dashboard/imports/${none}/email`,
  },

  // Sign-in's second step, forgotten passwords and single sign-on: before anyone is signed in.
  'GET /dashboard/sign-in/code': { access: 'public' },
  'POST /dashboard/sign-in/code': { access: 'public' },
  'GET /dashboard/forgot-password': { access: 'public' },
  'POST /dashboard/forgot-password': { access: 'public' },
  'GET /dashboard/sso': { access: 'public' },
  'GET /dashboard/sso/callback': { access: 'public' },
  'GET /dashboard/sso/:accountId/start': { access: 'public' },

  // One's own profile: every role.
  'GET /dashboard/settings/profile': { access: 'read' },
  'GET /dashboard/settings/profile/two-factor/confirm': { access: 'read' },
  'POST /dashboard/settings/profile/two-factor/confirm': { access: 'read' },
  'POST /dashboard/settings/profile/two-factor/start': { access: 'read' },
  'POST /dashboard/settings/profile/two-factor/disable': { access: 'read' },
  'POST /dashboard/settings/profile/password': { access: 'read' },
  // Owners only, checked by the route itself (test/dashboard/profile.test.ts).
  'POST /dashboard/settings/profile/require-two-factor': { access: 'signed-in' },

  'GET /dashboard/settings/organisation': { access: 'organisation' },
  'POST /dashboard/settings/organisation': {
    access: 'organisation',
    fields: () => ({ name: 'Sneaky Academy', website: 'https://sneaky.example' }),
  },
  'GET /dashboard/settings/organisation/logo': { access: 'organisation' },
  'GET /dashboard/settings/sign-in': { access: 'organisation' },
  // Owners only, checked by the route itself (test/dashboard/sso.test.ts): its provider can sign in as anyone.
  'POST /dashboard/settings/sign-in': { access: 'signed-in' },
  'POST /dashboard/settings/sign-in/remove': { access: 'organisation' },
  'GET /dashboard/settings/audit': { access: 'audit' },
  'GET /dashboard/settings/audit.csv': { access: 'audit' },

  // The quota in view: a held upload, and retrying an import's failed rows.
  'GET /dashboard/certificates/upload/held/:id': {
    access: 'issue',
    path: () => `/dashboard/certificates/upload/held/${none}`,
  },
  'POST /dashboard/certificates/upload/held/:id/start': {
    access: 'issue',
    path: () => `/dashboard/certificates/upload/held/${none}/start`,
    fields: () => ({ limit: '1' }),
  },
  'POST /dashboard/certificates/upload/held/:id/cancel': {
    access: 'issue',
    path: () => `/dashboard/certificates/upload/held/${none}/cancel`,
  },
  'POST /dashboard/imports/:id/retry': {
    access: 'issue',
    path: (f) => `/dashboard/imports/${f.importId}/retry`,
    harmless: `/dashboard/imports/${none}/retry`,
  },
};

// Public files of the studio (pdf.js, versioned paths): public like the other assets.
const PUBLIC_PATTERNS = [/^GET \/dashboard\/assets\/pdfjs\/[^/]+\/[\w.]+\.mjs$/];

// Every (method, path) under /dashboard, from Fastify's route tree (HEAD follows GET).
function dashboardRoutes(t: TestApp): string[] {
  const tree = t.app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^(.*?)(?:├── |└── )(.+?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    const full = (depth > 0 ? stack[depth - 1]! : '') + m[2]!;
    stack[depth] = full;
    stack.length = depth + 1;
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim())) {
      if (method && method !== 'HEAD' && full.startsWith('/dashboard')) routes.push(`${method} ${full}`);
    }
  }
  return routes;
}

async function fingerprint(t: TestApp, accountId: string): Promise<unknown> {
  const { rows } = await t.deps.db.query(
    `SELECT
       (SELECT json_agg(json_build_array(id, status, download_count) ORDER BY id) FROM certificates WHERE account_id = $1) AS certificates,
       (SELECT count(*) FROM email_sends WHERE account_id = $1) AS sends,
       (SELECT json_agg(json_build_array(id, status, version, latest_version, name) ORDER BY id) FROM templates WHERE account_id = $1) AS templates,
       (SELECT count(*) FROM template_versions WHERE account_id = $1) AS versions,
       (SELECT json_agg(json_build_array(id, revoked_at) ORDER BY id) FROM api_keys WHERE account_id = $1) AS keys,
       (SELECT json_agg(json_build_array(id, role, password_hash) ORDER BY id) FROM users WHERE account_id = $1) AS users,
       (SELECT json_agg(json_build_array(id, encode(token_hash, 'hex'), expires_at, cancelled_at, accepted_at) ORDER BY id)
          FROM invitations WHERE account_id = $1) AS invitations,
       (SELECT json_agg(json_build_array(id, state, emailed_at) ORDER BY id) FROM imports WHERE account_id = $1) AS imports,
       (SELECT row_to_json(a) FROM accounts a WHERE id = $1) AS account,
       (SELECT count(*) FROM audit_events WHERE account_id = $1) AS audit`,
    [accountId],
  );
  return rows[0];
}

describe('every dashboard route x every role', () => {
  let t: TestApp;
  let f: Fixtures;
  const clients = new Map<Role, FormClient>();
  const password = 'correct horse battery staple';

  async function member(role: Role): Promise<{ id: string; client: FormClient }> {
    const email = `${role}-${randomUUID()}@academy.test`;
    const { user } = await t.deps.services.users.create({
      accountId: f.tenant.accountId,
      email,
      password,
      role,
    });
    const client = formClient(t);
    await signInWith(client, email, password);
    return { id: user.id, client };
  }

  before(async () => {
    t = await startTestApp();
    const tenant = await createTenant(t.deps);
    f = { tenant } as Fixtures;
    for (const role of ROLES) clients.set(role, (await member(role)).client);
    f.certificateId = (await issueCertificate(t.app, tenant)).id;
    const owner = clients.get('owner')!;
    await owner.get(`/dashboard/certificates/upload?templateId=${tenant.templateId}`);
    const upload = await owner.upload(
      '/dashboard/certificates/upload',
      { templateId: tenant.templateId },
      { name: 'recipients.csv', content: 'name,email,course\nKatherine Johnson,kj@example.com,Orbits\n' },
    );
    assert.equal(upload.statusCode, 303, upload.body.slice(0, 300));
    f.importId = String(upload.headers.location).split('/').pop()!;
    f.keyId = tenant.keyId;
    f.victimId = (await member('viewer')).id;
    const invited = await t.deps.services.team.invite(
      tenant.accountId,
      { actor: { type: 'system', id: null, label: null }, role: 'owner' },
      { email: `invited-${randomUUID()}@academy.test`, role: 'issuer' },
    );
    f.invitationId = invited.id;
  });
  after(() => t?.close());

  it('has a row for every route under /dashboard', () => {
    const missing = dashboardRoutes(t).filter((r) => !TABLE[r] && !PUBLIC_PATTERNS.some((p) => p.test(r)));
    assert.deepEqual(
      missing,
      [],
      `These dashboard routes have no row in test/team/route-roles.test.ts (say who may use them): ${missing.join(', ')}`,
    );
    const gone = Object.keys(TABLE).filter((r) => !dashboardRoutes(t).includes(r));
    assert.deepEqual(gone, [], `Rows for routes that no longer exist: ${gone.join(', ')}`);
  });

  for (const role of ROLES) {
    it(`${role}: refused routes answer 403 and change nothing; allowed ones answer as usual`, async () => {
      const client = clients.get(role)!;
      for (const [route, row] of Object.entries(TABLE)) {
        if (row.access === 'public' || row.access === 'signed-in') continue;
        const [method, pattern] = route.split(' ') as ['GET' | 'POST', string];
        const path = row.path ? row.path(f) : pattern;
        await client.get('/dashboard'); // a fresh CSRF token, so a 403 can only be the role's
        if (!can(role, row.access)) {
          const before = await fingerprint(t, f.tenant.accountId);
          const res =
            method === 'GET' ? await client.get(path) : await client.post(path, row.fields?.(f) ?? {});
          assert.equal(res.statusCode, 403, `${role} ${route}: ${res.statusCode}`);
          assert.match(res.body, /does not allow this/, `${role} ${route}: the role's 403 page`);
          assert.deepEqual(
            await fingerprint(t, f.tenant.accountId),
            before,
            `${role} ${route} changed something`,
          );
        } else {
          const target = method === 'POST' ? (row.harmless ?? path) : path;
          const res = method === 'GET' ? await client.get(target) : await client.post(target, {});
          assert.ok(
            res.statusCode !== 403 && res.statusCode < 500,
            `${role} ${route} (${target}): allowed, answered ${res.statusCode} ${res.body.slice(0, 200)}`,
          );
        }
      }
    });
  }

  it('signing out works for every role', async () => {
    for (const role of ROLES) {
      const { client } = await member(role);
      await client.get('/dashboard');
      const res = await client.post('/dashboard/sign-out', {});
      assert.equal(res.statusCode, 303, role);
      assert.equal((await client.get('/dashboard/settings')).statusCode, 303, `${role} is signed out`);
    }
  });
});
