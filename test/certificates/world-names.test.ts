import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { worldNames } from '../helpers/world-names.js';
import { readsBack } from '../pdf/name-text.js';
import { issue, recipient, type BatchItem } from './support.js';

// Names in every covered writing system, through the API: issued (201) and, read back from the
// frozen PDF with pdftotext (a Nastaliq name from its /ActualText, see name-text.ts), holding every
// character of the name.

let t: TestApp;
let tenant: Tenant;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  tenant = await createTenant(t.deps);
});
after(() => t.close());

async function pdfOf(id: string): Promise<Buffer> {
  const res = await t.app.inject({ url: `/api/v1/certificates/${id}/pdf`, headers: tenant.auth });
  assert.equal(res.statusCode, 200);
  return res.rawPayload;
}

describe('names in every covered writing system', () => {
  for (const { script, name } of worldNames) {
    it(`single: ${script} (${name})`, async () => {
      const res = await issue(t, tenant, {
        templateId: tenant.templateId,
        recipient: recipient(0, { name }),
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.ok(readsBack(await pdfOf(res.json().data.id), name), name);
    });
  }

  it('batch: all of them in one request', async () => {
    const batch = worldNames.map(({ name }, i) => recipient(i, { name }));
    const res = await issue(t, tenant, { templateId: tenant.templateId, recipients: batch });
    assert.equal(res.statusCode, 201, res.body);
    const { created, results } = res.json().data;
    assert.equal(created, worldNames.length);
    for (const [i, result] of (results as BatchItem[]).entries()) {
      const name = worldNames[i]!.name;
      assert.equal(result.status, 'created', name);
      assert.ok(readsBack(await pdfOf(result.certificate!.id), name), name);
    }
  });
});
