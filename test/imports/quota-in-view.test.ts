import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_PLANS } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { signedInUser, uploadCsv } from './support.js';

// Issue 29, the quota in view (docs/dashboard.md, Uploads and the quota): an upload with more rows
// than the period has left is held until the user issues the first N or cancels; the import's page
// counts its failures per reason; "Retry the failed rows" issues exactly them, once.

const PLANS = [
  ...DEFAULT_PLANS,
  { name: 'Term', apiAccess: false, emailDelivery: false, monthlyLimit: 1_944 },
  { name: 'Campus', apiAccess: false, emailDelivery: false, monthlyLimit: 10_000 },
];

function csv(rows: number, row: (i: number) => string = (i) => `Learner ${i},l${i}@example.com,Course ${i}`) {
  return `name,email,course\n${Array.from({ length: rows }, (_, i) => row(i)).join('\n')}\n`;
}

// A page's text on one line: the templates wrap their sentences.
const flat = (body: string) => body.replace(/\s+/g, ' ');
const HELD = /^\/dashboard\/certificates\/upload\/held\/[0-9a-f-]{36}$/;

describe('the quota in view', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000', PLANS_JSON: JSON.stringify(PLANS) });
  });
  after(async () => {
    await t?.close();
  });

  async function drain() {
    while (await t.deps.services.imports.runChunk());
  }

  const redirect = (res: { statusCode: number; headers: Record<string, unknown>; body: string }) => {
    assert.equal(res.statusCode, 303, res.body.slice(0, 600));
    return String(res.headers.location);
  };
  const importId = (location: string) => {
    const m = /^\/dashboard\/imports\/([0-9a-f-]{36})$/.exec(location);
    assert.ok(m, location);
    return m[1]!;
  };

  const counts = async (accountId: string) =>
    (
      await t.deps.db.query<{ certificates: number; recipients: number; imports: number; holds: number }>(
        `SELECT (SELECT count(*)::int FROM certificates WHERE account_id = $1) AS certificates,
                (SELECT count(DISTINCT recipient_email)::int FROM certificates WHERE account_id = $1) AS recipients,
                (SELECT count(*)::int FROM imports WHERE account_id = $1) AS imports,
                (SELECT count(*)::int FROM import_holds WHERE account_id = $1) AS holds`,
        [accountId],
      )
    ).rows[0]!;

  it('5,000 rows with 1,944 left: "Issue the first 1,944", the reason named, the rest retried once', async () => {
    const { tenant, client } = await signedInUser(t, { plan: 'Term' });
    const upload = await client.get(`/dashboard/certificates/upload?templateId=${tenant.templateId}`);
    assert.match(flat(upload.body), /at most 50,000 rows and 20 MB/);
    assert.match(flat(upload.body), /This period has <strong>1,944<\/strong> certificates left/);

    const holdUrl = redirect(await uploadCsv(client, tenant, csv(5_000)));
    assert.match(holdUrl, HELD);
    assert.deepEqual(await counts(tenant.accountId), {
      certificates: 0,
      recipients: 0,
      imports: 0,
      holds: 1,
    });
    const held = await client.get(holdUrl);
    held.body = flat(held.body);
    assert.equal(held.statusCode, 200);
    assert.match(held.body, /id="held-rows">5,000<\/strong> rows/);
    assert.match(held.body, /id="quota-left">1,944<\/strong>/);
    assert.match(held.body, /<button type="submit" id="issue-first">Issue the first 1,944<\/button>/);
    assert.match(held.body, />Cancel<\/button>/);
    assert.match(held.body, /Campus<\/bdi> 10,000/, 'how to get more: the configured plans');

    const id = importId(redirect(await client.post(`${holdUrl}/start`, { limit: '1944' })));
    // A second click finds the hold gone: nothing starts twice.
    assert.equal((await client.post(`${holdUrl}/start`, { limit: '1944' })).statusCode, 404);
    await drain();
    const imp = await t.deps.services.imports.get(tenant.accountId, id);
    assert.deepEqual([imp.state, imp.rows, imp.created, imp.failed], ['done', 5_000, 1_944, 3_056]);
    assert.deepEqual(await counts(tenant.accountId), {
      ...{ certificates: 1_944, recipients: 1_944, imports: 1, holds: 0 },
    });

    const page = await client.get(`/dashboard/imports/${id}`);
    const summary = /<div class="notice warn" role="status" id="failure-summary">[\s\S]*?<\/div>/.exec(
      page.body,
    )?.[0];
    assert.ok(summary, 'the failures are stated at the top');
    assert.match(
      summary.replace(/\s+/g, ' '),
      /3,056 rows failed:<\/strong> <span class="reason">3,056 over the monthly quota<\/span>/,
    );
    assert.ok(page.body.indexOf('failure-summary') < page.body.indexOf('import-bar'));
    assert.match(page.body, /<button type="submit">Retry the failed rows<\/button>/);

    // The quota raised (a larger plan): the retry issues exactly the rest, once.
    await t.deps.services.accounts.setPlan(tenant.accountId, 'Campus');
    const retryId = importId(redirect(await client.post(`/dashboard/imports/${id}/retry`, {})));
    assert.notEqual(retryId, id);
    assert.equal(importId(redirect(await client.post(`/dashboard/imports/${id}/retry`, {}))), retryId);
    await drain();
    const retry = await t.deps.services.imports.get(tenant.accountId, retryId);
    assert.deepEqual([retry.state, retry.rows, retry.created, retry.failed], ['done', 3_056, 3_056, 0]);
    assert.equal(retry.retryOf, id);
    const { rows } = await t.deps.db.query<{ first: number; last: number; n: number }>(
      'SELECT min(line)::int AS first, max(line)::int AS last, count(*)::int AS n FROM import_rows WHERE import_id = $1',
      [retryId],
    );
    assert.deepEqual(
      rows[0],
      { first: 1_946, last: 5_001, n: 3_056 },
      'the file lines after the first 1,944',
    );
    assert.deepEqual(await counts(tenant.accountId), {
      ...{ certificates: 5_000, recipients: 5_000, imports: 2, holds: 0 },
    });
    const original = await client.get(`/dashboard/imports/${id}`);
    assert.doesNotMatch(original.body, /Retry the failed rows<\/button>/);
    assert.match(original.body, /id="retried-by"/);
    // A third try after the retry ended still answers the same import.
    assert.equal(importId(redirect(await client.post(`/dashboard/imports/${id}/retry`, {}))), retryId);
    assert.equal((await counts(tenant.accountId)).certificates, 5_000);
  });

  it('counts validation failures per reason; the retry holds only the failed rows', async () => {
    const { tenant, client } = await signedInUser(t);
    const bad = new Set([2, 5, 7]);
    const body = csv(10, (i) => (bad.has(i) ? `Bad ${i},not-an-email,C` : `Fine ${i},f${i}@example.com,C`));
    const results = redirect(await uploadCsv(client, tenant, body));
    assert.match(results, /^\/dashboard\/certificates\/upload\/results\/[0-9a-f-]{36}$/);
    const id = results.split('/').pop()!;
    const page = await client.get(results);
    assert.match(
      page.body.replace(/\s+/g, ' '),
      /3 rows failed:<\/strong> <span class="reason">3 rejected: email: [^<]+<\/span>/,
    );
    const retryId = importId(redirect(await client.post(`/dashboard/imports/${id}/retry`, {})));
    await drain();
    const retry = await t.deps.services.imports.get(tenant.accountId, retryId);
    assert.deepEqual([retry.rows, retry.created, retry.failed], [3, 0, 3]);
    const lines = await t.deps.db.query<{ line: number }>(
      'SELECT line FROM import_rows WHERE import_id = $1 ORDER BY row_no',
      [retryId],
    );
    assert.deepEqual(
      lines.rows.map((r) => r.line),
      [4, 7, 9],
    );
    assert.equal((await counts(tenant.accountId)).certificates, 7);
    // An import with nothing failed, or one not ended, offers no retry and refuses one.
    const { tenant: other, client: otherClient } = await signedInUser(t);
    const clean = redirect(await uploadCsv(otherClient, other, csv(3)))
      .split('/')
      .pop()!;
    const refused = await otherClient.post(`/dashboard/imports/${clean}/retry`, {});
    assert.equal(redirect(refused), `/dashboard/imports/${clean}`);
    assert.match(
      (await otherClient.get(`/dashboard/imports/${clean}`)).body,
      /Not retried: Only an import that has ended with failed rows/,
    );
    assert.equal((await counts(other.accountId)).imports, 1);
  });

  it('a held upload can be cancelled; a bad count is refused; a contract never asks', async () => {
    const { tenant, client } = await signedInUser(t, { monthlyLimit: 4 });
    const holdUrl = redirect(await uploadCsv(client, tenant, csv(6)));
    assert.match(holdUrl, HELD);
    const refused = await client.post(`${holdUrl}/start`, { limit: '7' });
    assert.equal(refused.statusCode, 422);
    assert.match(refused.body, /a whole number from 1 to 6/);
    assert.equal(
      redirect(await client.post(`${holdUrl}/cancel`, {})),
      `/dashboard/certificates/upload?templateId=${tenant.templateId}`,
    );
    assert.match(
      (await client.get(`/dashboard/certificates/upload?templateId=${tenant.templateId}`)).body,
      /is cancelled: nothing was issued/,
    );
    assert.equal((await client.get(holdUrl)).statusCode, 404);
    assert.deepEqual(await counts(tenant.accountId), {
      certificates: 0,
      recipients: 0,
      imports: 0,
      holds: 0,
    });

    // A file that fits starts at once, as before.
    assert.match(redirect(await uploadCsv(client, tenant, csv(4))), /\/upload\/results\//);
    // A partner contract has no limit: no question, whatever the plan's limit.
    await t.deps.services.contracts.create({
      accountId: tenant.accountId,
      startsAt: new Date(Date.now() - 60_000),
    });
    assert.match(redirect(await uploadCsv(client, tenant, csv(6))), /\/upload\/results\//);
    assert.equal((await counts(tenant.accountId)).certificates, 10);
  });
});
