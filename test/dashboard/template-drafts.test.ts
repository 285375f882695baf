import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { signedInMember, type FormClient } from './form-client.js';

// The studio's autosaved drafts over HTTP (issue 30, item 8): per template and user, the design's
// shape and size checked (a refusal is the error envelope and keeps the draft before), another
// account's template not found, no audit event and no version; Save clears the draft.

describe('dashboard: template drafts', () => {
  let t: TestApp;
  let tenant: Tenant;
  let client: FormClient;
  let other: FormClient;
  before(async () => {
    t = await startTestApp();
    tenant = await createTenant(t.deps);
    client = await signedInMember(t, tenant.accountId);
    other = await signedInMember(t, tenant.accountId);
  });
  after(async () => {
    await t?.close();
  });

  const url = () => `/dashboard/templates/${tenant.templateId}`;
  const draftOf = async (c: FormClient) => {
    await c.get(`${url()}/edit`);
    return c;
  };
  const postDraft = (c: FormClient, design: unknown) =>
    t.app.inject({
      method: 'POST',
      url: `${url()}/draft`,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-csrf-token': c.csrf,
        cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      payload: JSON.stringify({ design }),
    });
  const counts = async () =>
    (
      await t.deps.db.query<{ audit: string; versions: string }>(
        `SELECT (SELECT count(*) FROM audit_events WHERE account_id = $1) AS audit,
                (SELECT count(*) FROM template_versions WHERE template_id = $2) AS versions`,
        [tenant.accountId, tenant.templateId],
      )
    ).rows[0];

  it('stores a draft per user without an audit event or a version; refuses a bad shape or size with the envelope, keeping the draft', async () => {
    const working = await t.deps.services.templates.working(tenant.accountId, tenant.templateId);
    const design = structuredClone(working.design);
    design.name = 'Draft name';
    const before = await counts();
    await draftOf(client);
    const ok = await postDraft(client, design);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.match((JSON.parse(ok.body) as { savedAt: string }).savedAt, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(await counts(), before);

    // Offered to its user only, on the editor page.
    assert.match((await client.get(`${url()}/edit`)).body, /Restore unsaved changes from/);
    assert.doesNotMatch((await other.get(`${url()}/edit`)).body, /Restore unsaved changes from/);

    const wrong = await postDraft(client, { ...design, elements: 'none' });
    assert.equal(wrong.statusCode, 422);
    const envelope = JSON.parse(wrong.body) as { error: { code: string; details: { issues: unknown[] } } };
    assert.equal(envelope.error.code, 'validation_error');
    assert.ok(envelope.error.details.issues.length > 0);
    const huge = await postDraft(client, { ...design, description: 'x'.repeat(2.5 * 1024 * 1024) });
    assert.ok([413, 422].includes(huge.statusCode), `${huge.statusCode}`);
    const restored = await client.get(`${url()}/edit?draft=1`);
    assert.equal(restored.statusCode, 200);
    assert.match(restored.body, /Draft name/);
    assert.match(restored.body, /are restored: save them to keep them/);

    // Another account's template: not found; nothing stored.
    const foreign = await createTenant(t.deps);
    const res = await t.app.inject({
      method: 'POST',
      url: `/dashboard/templates/${foreign.templateId}/draft`,
      headers: {
        'content-type': 'application/json',
        'x-csrf-token': client.csrf,
        cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      payload: JSON.stringify({ design }),
    });
    assert.equal(res.statusCode, 404);
    const stored = await t.deps.db.query('SELECT 1 FROM template_drafts WHERE template_id = $1', [
      foreign.templateId,
    ]);
    assert.equal(stored.rowCount, 0);
  });

  it('Save clears the draft; without the CSRF token nothing is stored', async () => {
    const working = await t.deps.services.templates.working(tenant.accountId, tenant.templateId);
    const design = structuredClone(working.design);
    design.name = 'Second draft';
    await draftOf(client);
    assert.equal((await postDraft(client, design)).statusCode, 200);
    await client.get(`${url()}/edit`);
    const saved = await client.post(`${url()}/edit`, { intent: 'save', design: JSON.stringify(design) });
    assert.equal(saved.statusCode, 303, saved.body);
    const left = await t.deps.db.query('SELECT 1 FROM template_drafts WHERE template_id = $1', [
      tenant.templateId,
    ]);
    assert.equal(left.rowCount, 0);
    assert.doesNotMatch((await client.get(`${url()}/edit`)).body, /Restore unsaved changes from/);

    const forged = await t.app.inject({
      method: 'POST',
      url: `${url()}/draft`,
      headers: {
        'content-type': 'application/json',
        cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      },
      payload: JSON.stringify({ design }),
    });
    assert.equal(forged.statusCode, 403);
    const none = await t.deps.db.query('SELECT 1 FROM template_drafts WHERE template_id = $1', [
      tenant.templateId,
    ]);
    assert.equal(none.rowCount, 0);
  });
});
