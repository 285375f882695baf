import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SYSTEM } from '../../src/platform/principal.js';
import { statementDesign } from '../certificates/statement-design.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { signedInMember, type FormClient } from './form-client.js';

// Issue 30, item 10 in the dashboard's issue form: a list field (the table of a statement of
// attainment) is a text area, one item per line, its values separated by semicolons in the order of
// the table's columns, which the form names.

describe('dashboard: a list field on the issue form', () => {
  let t: TestApp;
  let tenant: Tenant;
  let client: FormClient;
  let templateId: string;

  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
    tenant = await createTenant(t.deps, { monthlyLimit: 100_000 });
    const template = await t.deps.services.templates.create(SYSTEM, tenant.accountId, statementDesign());
    templateId = template.id;
    client = await signedInMember(t, tenant.accountId);
  });
  after(async () => {
    await t?.close();
  });

  const issued = async () => (await t.deps.services.certificates.list(tenant.accountId, {})).pagination.total;
  const issue = async (units: string) => {
    await client.get(`/dashboard/certificates/new?templateId=${templateId}`);
    return client.post('/dashboard/certificates/new', {
      templateId,
      name: 'Grace Hopper',
      email: 'grace@example.com',
      'data.course': 'Safe lifting',
      'data.units': units,
    });
  };

  it('asks for one item per line, in the order of the columns of the table that shows the list', async () => {
    const res = await client.get(`/dashboard/certificates/new?templateId=${templateId}`);
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /<textarea\s+id="data-units"\s+name="data.units"/);
    assert.match(res.body, /One item per line, its values separated by semicolons: Unit; Hours; Grade\./);
  });

  it('issues the items as the list, skipping empty lines and empty values', async () => {
    const res = await issue('Manual handling; 6; Merit\n\nRisk assessment;4\n  Lifting aids ; ; Pass  \n');
    assert.equal(res.statusCode, 303, res.body.slice(0, 800));
    const id = /\/dashboard\/certificates\/([0-9a-f-]{36})$/.exec(String(res.headers.location))?.[1];
    const certificate = await t.deps.services.certificates.get(tenant.accountId, id!);
    assert.deepEqual((certificate.data as Record<string, unknown>).units, [
      { name: 'Manual handling', hours: '6', grade: 'Merit' },
      { name: 'Risk assessment', hours: '4' },
      { name: 'Lifting aids', grade: 'Pass' },
    ]);
  });

  it('refuses a line with more values than columns, saying so beside the field, and issues nothing', async () => {
    const before = await issued();
    const res = await issue('Manual handling; 6; Merit; extra');
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /line 1 has 4 values; there are 3 columns \(Unit; Hours; Grade\)/);
    assert.match(res.body, /id="data-units"\s+name="data.units"[^>]*\srequired aria-invalid="true"/);
    assert.match(res.body, /Manual handling; 6; Merit; extra<\/textarea/);
    assert.equal(await issued(), before);
  });

  it('refuses an empty required list with the API’s own message', async () => {
    const before = await issued();
    const res = await issue('   ');
    assert.equal(res.statusCode, 422);
    assert.match(res.body, /aria-invalid="true"/);
    assert.equal(await issued(), before);
  });
});
