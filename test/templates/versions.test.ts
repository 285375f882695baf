import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { pdfText } from '../pdf/pdf-helpers.js';
import { ConflictError, NotFoundError } from '../../src/platform/errors.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { signedInMember } from '../dashboard/form-client.js';

// Template versions and drafts (issue 18, migration 012): every saved design is a version, a draft
// is invisible to the API until published, and issued certificates keep their frozen PDFs.

let t: TestApp;
let tenant: Tenant;

before(async () => {
  t = await startTestApp();
  tenant = await createTenant(t.deps);
});
after(() => t.close());

function design(name: string, words = 'completed') {
  return {
    name,
    fields: [{ key: 'course', label: 'Course', required: true }],
    page: { width: 842, height: 595 },
    elements: [
      { type: 'text', text: `{{recipient.name}} ${words} {{data.course}}`, x: 40, y: 40, width: 700 },
    ],
  };
}

const api = (url: string, method: 'GET' | 'POST' = 'GET', payload?: unknown) =>
  t.app.inject({ method, url, headers: tenant.auth, ...(payload ? { payload } : {}) });

async function listedIds(): Promise<{ ids: string[]; total: number }> {
  const res = await api('/api/v1/templates?perPage=100');
  assert.equal(res.statusCode, 200);
  return { ids: res.json().data.map((d: { id: string }) => d.id), total: res.json().pagination.total };
}

async function pdfOf(certificateId: string): Promise<{ sha: string; body: Buffer }> {
  const res = await api(`/api/v1/certificates/${certificateId}/pdf`);
  assert.equal(res.statusCode, 200);
  return { sha: createHash('sha256').update(res.rawPayload).digest('hex'), body: res.rawPayload };
}

describe('template versions and drafts', () => {
  const templates = () => t.deps.services.templates;

  it('template create (the CLI) makes a published template whose design is version 1', async () => {
    const made = await templates().create(SYSTEM, tenant.accountId, design('Published at once'));
    const working = await templates().working(tenant.accountId, made.id);
    assert.equal(working.status, 'active');
    assert.equal(working.version, 1);
    assert.equal(working.latestVersion, 1);
    const history = await templates().versions(tenant.accountId, made.id);
    assert.deepEqual(
      history.map((v) => [v.version, v.note, v.name]),
      [[1, 'created', 'Published at once']],
    );
    assert.ok((await listedIds()).ids.includes(made.id));
  });

  it('a draft is not listed, reads 404 and cannot be issued through the API until it is published', async () => {
    const before = await listedIds();
    const draft = await templates().createDraft(SYSTEM, tenant.accountId, design('Still a draft'));
    assert.equal(draft.status, 'draft');
    const after = await listedIds();
    assert.ok(!after.ids.includes(draft.id));
    assert.equal(after.total, before.total, 'the total counts active templates only');
    assert.equal((await api(`/api/v1/templates/${draft.id}`)).statusCode, 404);
    const issue = await api('/api/v1/certificates', 'POST', {
      templateId: draft.id,
      recipient: { name: 'Ada', email: 'ada@example.com', data: { course: 'X' } },
    });
    assert.equal(issue.statusCode, 404);
    // The dashboard sees it.
    const working = await templates().listWorking(tenant.accountId, 100);
    assert.equal(working.find((w) => w.id === draft.id)?.status, 'draft');

    // Saving a draft moves its design along; publishing makes it a template of the API.
    const saved = await templates().saveVersion(
      SYSTEM,
      tenant.accountId,
      draft.id,
      design('Draft, second save'),
    );
    assert.deepEqual(
      [saved.status, saved.version, saved.latestVersion, saved.name],
      ['draft', 2, 2, 'Draft, second save'],
    );
    const published = await templates().publish(SYSTEM, tenant.accountId, draft.id);
    assert.deepEqual([published.status, published.version], ['active', 2]);
    const listed = await listedIds();
    assert.ok(listed.ids.includes(draft.id));
    assert.equal(listed.total, before.total + 1);
    const read = await api(`/api/v1/templates/${draft.id}`);
    assert.equal(read.json().data.name, 'Draft, second save');
  });

  it('saving an active template keeps issuing the published version until Publish; certificates keep their PDFs', async () => {
    const made = await templates().create(SYSTEM, tenant.accountId, design('Live', 'completed'));
    const owner = { ...tenant, templateId: made.id };
    const first = await issueCertificate(t.app, owner);
    const frozen = await pdfOf(first.id);
    assert.match(pdfText(frozen.body), /Ada Lovelace completed/);

    const saved = await templates().saveVersion(
      SYSTEM,
      tenant.accountId,
      made.id,
      design('Live, edited', 'mastered'),
    );
    assert.deepEqual(
      [saved.status, saved.version, saved.latestVersion, saved.name],
      ['active', 1, 2, 'Live'],
    );
    assert.equal((await templates().working(tenant.accountId, made.id)).design.name, 'Live, edited');
    assert.equal((await api(`/api/v1/templates/${made.id}`)).json().data.name, 'Live');

    await templates().publish(SYSTEM, tenant.accountId, made.id);
    assert.equal((await api(`/api/v1/templates/${made.id}`)).json().data.name, 'Live, edited');
    const second = await issueCertificate(t.app, owner);
    assert.match(pdfText((await pdfOf(second.id)).body), /Ada Lovelace mastered/);
    assert.equal((await pdfOf(first.id)).sha, frozen.sha, 'the issued certificate keeps its frozen PDF');

    // Each certificate records the design version it was issued from; the dashboard names it.
    const certificates = t.deps.services.certificates;
    assert.equal(await certificates.templateVersion(tenant.accountId, first.id), 1);
    assert.equal(await certificates.templateVersion(tenant.accountId, second.id), 2);
    const client = await signedInMember(t, tenant.accountId);
    const named = async (id: string, version: number) =>
      new RegExp(`href="/dashboard/templates/${made.id}/history"\\s*>design version ${version}<`).test(
        (await client.get(`/dashboard/certificates/${id}`)).body,
      );
    assert.ok(await named(first.id, 1));
    assert.ok(await named(second.id, 2));
  });

  it('saving the newest design again makes no version', async () => {
    const made = await templates().create(SYSTEM, tenant.accountId, design('Unchanged'));
    const again = await templates().saveVersion(SYSTEM, tenant.accountId, made.id, design('Unchanged'));
    assert.deepEqual([again.saved, again.latestVersion], [false, 1]);
  });

  it('restore copies an old version as the newest; any version can be read; history only grows', async () => {
    const made = await templates().create(SYSTEM, tenant.accountId, design('Version one'));
    await templates().saveVersion(SYSTEM, tenant.accountId, made.id, design('Version two'), {
      publish: true,
    });
    const restored = await templates().restore(SYSTEM, tenant.accountId, made.id, 1);
    assert.deepEqual([restored.version, restored.latestVersion], [2, 3]);
    const history = await templates().versions(tenant.accountId, made.id);
    assert.deepEqual(
      history.map((v) => [v.version, v.name, v.note]),
      [
        [3, 'Version one', 'restored from version 1'],
        [2, 'Version two', 'saved'],
        [1, 'Version one', 'created'],
      ],
    );
    assert.equal((await templates().version(tenant.accountId, made.id, 2)).design.name, 'Version two');
    await templates().publish(SYSTEM, tenant.accountId, made.id, 3);
    assert.equal((await api(`/api/v1/templates/${made.id}`)).json().data.name, 'Version one');
    await assert.rejects(templates().version(tenant.accountId, made.id, 9), NotFoundError);
  });

  it('duplicate makes a draft copy; archive hides a template from the API and stops changes', async () => {
    const made = await templates().create(SYSTEM, tenant.accountId, design('Original'));
    const copy = await templates().duplicate(SYSTEM, tenant.accountId, made.id);
    assert.deepEqual([copy.status, copy.name, copy.version], ['draft', 'Copy of Original', 1]);
    assert.notEqual(copy.id, made.id);

    await templates().archiveOwned(SYSTEM, tenant.accountId, made.id);
    assert.equal((await api(`/api/v1/templates/${made.id}`)).statusCode, 404);
    assert.ok(!(await listedIds()).ids.includes(made.id));
    // Archived is gone for the dashboard (404); the CLI says why it refuses.
    await assert.rejects(
      templates().saveVersion(SYSTEM, tenant.accountId, made.id, design('Too late')),
      NotFoundError,
    );
    await assert.rejects(templates().update(SYSTEM, made.id, design('Too late')), ConflictError);
    await assert.rejects(templates().working(tenant.accountId, made.id), NotFoundError);
    await assert.rejects(templates().archiveOwned(SYSTEM, tenant.accountId, made.id), NotFoundError);
  });

  it("another account's template is not found by any of them", async () => {
    const other = await createTenant(t.deps);
    const id = other.templateId;
    await assert.rejects(templates().working(tenant.accountId, id), NotFoundError);
    await assert.rejects(
      templates().saveVersion(SYSTEM, tenant.accountId, id, design('Mine now')),
      NotFoundError,
    );
    await assert.rejects(templates().publish(SYSTEM, tenant.accountId, id), NotFoundError);
    await assert.rejects(templates().restore(SYSTEM, tenant.accountId, id, 1), NotFoundError);
    await assert.rejects(templates().duplicate(SYSTEM, tenant.accountId, id), NotFoundError);
    await assert.rejects(templates().archiveOwned(SYSTEM, tenant.accountId, id), NotFoundError);
    await assert.rejects(templates().versions(tenant.accountId, id), NotFoundError);
  });

  it('certsvc template update makes a new version issued at once, and keeps a draft a draft', async () => {
    const made = await templates().create(SYSTEM, tenant.accountId, design('By the CLI'));
    await templates().update(SYSTEM, made.id, design('By the CLI, again'));
    const working = await templates().working(tenant.accountId, made.id);
    assert.deepEqual([working.status, working.version, working.latestVersion], ['active', 2, 2]);
    const draft = await templates().createDraft(SYSTEM, tenant.accountId, design('Draft by the CLI'));
    await templates().update(SYSTEM, draft.id, design('Draft by the CLI, again'));
    const still = await templates().working(tenant.accountId, draft.id);
    assert.deepEqual([still.status, still.version, still.name], ['draft', 2, 'Draft by the CLI, again']);
  });
});
