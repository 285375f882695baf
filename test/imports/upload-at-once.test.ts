import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { signedInUser, uploadCsv } from './support.js';

// Issue 28, one CSV path: every dashboard upload is an import. One of at most 500 rows is issued in
// the request (its import done before the answer, nothing left for a worker) and answered on the
// upload's results page (a larger one goes to the workers: imports.test.ts).

function csv(rows: number) {
  const lines = Array.from({ length: rows }, (_, i) => `Learner ${i},l${i}@example.com,Course ${i}`);
  return `name,email,course\n${lines.join('\n')}\n`;
}

describe('dashboard uploads: one path through the imports', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  });
  after(async () => {
    await t?.close();
  });

  const signedIn = (opts: { monthlyLimit?: number } = {}) => signedInUser(t, opts);
  const upload = uploadCsv;

  it('issues 500 rows in the request as an import already done, answered on the results page', async () => {
    const { tenant, client } = await signedIn();
    const res = await upload(client, tenant, csv(500));
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    const m = /^\/dashboard\/certificates\/upload\/results\/([0-9a-f-]{36})$/.exec(
      String(res.headers.location),
    );
    assert.ok(m, String(res.headers.location));
    const imp = await t.deps.services.imports.get(tenant.accountId, m[1]!);
    assert.deepEqual([imp.state, imp.rows, imp.done, imp.created], ['done', 500, 500, 500]);
    assert.equal(await t.deps.services.imports.runChunk(imp.id), false, 'nothing left for a worker');
    const page = await client.get(String(res.headers.location));
    assert.match(page.body, /id="created-count">500</);
  });

  it('leaves no table of its own: dashboard_uploads is gone', async () => {
    const { rows } = await t.deps.db.query(`SELECT to_regclass('dashboard_uploads') AS t`);
    assert.equal(rows[0]!.t, null);
  });
});
