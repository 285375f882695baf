import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Role } from '../../src/modules/shared/roles.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { formClient, signInWith, type FormClient } from '../dashboard/form-client.js';

// Issue 29: menus and buttons show only what the role may do (the routes refuse the rest:
// route-roles.test.ts).
describe('menus and buttons by role', () => {
  let t: TestApp;
  let tenant: Tenant;
  let certificateId: string;
  const password = 'correct horse battery staple';

  async function as(role: Role): Promise<FormClient> {
    const email = `${role}-${randomUUID()}@academy.test`;
    await t.deps.services.users.create({ accountId: tenant.accountId, email, password, role });
    const client = formClient(t);
    await signInWith(client, email, password);
    return client;
  }

  before(async () => {
    t = await startTestApp();
    tenant = await createTenant(t.deps);
    certificateId = (await issueCertificate(t.app, tenant)).id;
  });
  after(() => t.close());

  const issueOne = /href="\/dashboard\/certificates\/new/;
  const revoke = /action="\/dashboard\/certificates\/[^"]+\/revoke"/;
  const edit = /href="\/dashboard\/templates\/[^"]+\/edit"/;
  const keys = /href="\/dashboard\/settings\/api-keys"/;

  it('a viewer sees the certificates and templates but no button that changes them', async () => {
    const viewer = await as('viewer');
    const home = (await viewer.get('/dashboard')).body;
    assert.doesNotMatch(home, issueOne);
    assert.doesNotMatch(home, keys);
    const cert = (await viewer.get(`/dashboard/certificates/${certificateId}`)).body;
    assert.match(cert, /View PDF/);
    assert.doesNotMatch(cert, revoke);
    assert.doesNotMatch(cert, /Correct and reissue/);
    const templates = (await viewer.get('/dashboard/templates')).body;
    assert.doesNotMatch(templates, edit);
    assert.doesNotMatch(templates, issueOne);
    assert.doesNotMatch(templates, /New template/);
    const settings = (await viewer.get('/dashboard/settings')).body;
    assert.match(settings, /Your profile/);
    assert.doesNotMatch(settings, /Team|Audit log|API keys|Organisation/);
  });

  it('an issuer gets the issue buttons, a designer the studio, and an owner everything', async () => {
    const issuer = await as('issuer');
    assert.match((await issuer.get('/dashboard/templates')).body, issueOne);
    assert.doesNotMatch((await issuer.get('/dashboard/templates')).body, edit);
    assert.match((await issuer.get(`/dashboard/certificates/${certificateId}`)).body, revoke);

    const designer = await as('designer');
    assert.match((await designer.get('/dashboard/templates')).body, edit);
    assert.doesNotMatch((await designer.get('/dashboard/templates')).body, issueOne);
    assert.doesNotMatch((await designer.get(`/dashboard/certificates/${certificateId}`)).body, revoke);

    const owner = await as('owner');
    const settings = (await owner.get('/dashboard/settings')).body;
    for (const page of [
      'Your profile',
      'Organisation',
      'Team',
      'Sign-in',
      'Sharing',
      'API keys',
      'Audit log',
    ]) {
      assert.match(settings, new RegExp(page), page);
    }
    assert.match((await owner.get('/dashboard')).body, keys);
  });
});
