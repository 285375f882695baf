import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import type { Queryable } from '../../src/platform/db/db.js';
import { uniqueCode, uuidv7 } from '../../src/platform/ids.js';
import {
  insertIssued,
  listCertificates,
  type ListFilter,
} from '../../src/modules/certificates/certificates.repository.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { issue, issueOne, recipient, recipients } from './support.js';

// The lists stay cheap as an account grows: the polling call reads its page from an index in order
// (no sort, no scan of the account) and its total from list_counts; template totals are counters too
// (migration 008). Plans are read with EXPLAIN on an account of 3,000 certificates.
let t: TestApp;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
});
after(() => t.close());

const totalOf = async (tenant: Tenant, url: string) => {
  const res = await t.app.inject({ url, headers: tenant.auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json().pagination.total as number;
};

// The statements the repository sends, run for real and kept for EXPLAIN.
function recording(db: Queryable) {
  const sent: { text: string; values: unknown[] }[] = [];
  const query = (text: string | { text: string; values?: unknown[] }, values?: unknown[]) => {
    const q =
      typeof text === 'string'
        ? { text, values: values ?? [] }
        : { text: text.text, values: text.values ?? [] };
    sent.push(q);
    return db.query(q.text, q.values);
  };
  return { db: { query } as unknown as Queryable, sent };
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

async function plansOf(accountId: string, filter: ListFilter) {
  const { db, sent } = recording(t.deps.db);
  await listCertificates(db, accountId, filter);
  return Promise.all(
    sent.map(async (q) => {
      const { rows } = await t.deps.db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
        `EXPLAIN (FORMAT JSON) ${q.text}`,
        q.values,
      );
      return nodes(rows[0]!['QUERY PLAN'][0]!.Plan);
    }),
  );
}

describe('list plans and counters', () => {
  it('the polling call reads its page in index order and its total from the counters', async () => {
    const a = await createTenant(t.deps);
    const pdf = Buffer.from('%PDF-1.7 stand-in: the list never reads PDFs');
    for (let b = 0; b < 3; b++) {
      const at = Date.now() - (3 - b) * 60_000;
      const items = Array.from({ length: 1000 }, (_, i) => ({
        id: uuidv7(at),
        uniqueCode: uniqueCode(),
        recipientName: `Person ${b * 1000 + i}`,
        recipientEmail: `p${b * 1000 + i}@example.com`,
        title: 'Lists',
        data: {},
        pdf,
        sha256: '0'.repeat(64),
      }));
      await t.deps.db.transaction((tx) =>
        insertIssued(tx, {
          accountId: a.accountId,
          templateId: a.templateId,
          templateVersion: 1,
          issuedAt: new Date(at),
          items,
        }),
      );
    }
    await t.deps.db.query('ANALYZE certificates');
    for (const filter of [
      { status: 'Issued' as const, limit: 100, offset: 0 },
      { limit: 100, offset: 0 },
      { status: 'Issued' as const, templateId: a.templateId, limit: 100, offset: 0 },
    ]) {
      const [page, total] = await plansOf(a.accountId, filter);
      const label = JSON.stringify(filter);
      // The page's ids: a Limit over an index read in the list's order, with no sort and no scan of
      // the account below it. (The outer query then sorts just those rows.)
      const limit = page!.find((n) => n['Node Type'] === 'Limit');
      assert.ok(limit, `${label}: the page is a Limit`);
      const below = nodes(limit);
      assert.ok(!below.some((n) => n['Node Type'] === 'Sort'), `${label}: no sort below the Limit`);
      assert.ok(
        !below.some((n) => n['Node Type'] === 'Seq Scan' || n['Node Type'] === 'Bitmap Heap Scan'),
        `${label}: no scan of the account below the Limit`,
      );
      assert.ok(
        below.some((n) => n['Index Name']?.startsWith('certificates_account')),
        label,
      );
      for (const sort of page!.filter((n) => n['Node Type'] === 'Sort')) {
        assert.ok(nodes(sort).includes(limit), `${label}: only the page's rows are sorted`);
      }
      assert.ok(
        total!.every((n) => n['Relation Name'] === undefined || n['Relation Name'] === 'list_counts'),
        `${label}: the total reads list_counts only`,
      );
    }
    assert.equal(await totalOf(a, '/api/v1/certificates?status=Issued&page=1&perPage=100'), 3000);
  });

  it('template totals follow issues and revocations per template, and come from the counters', async () => {
    const a = await createTenant(t.deps);
    const other = await t.deps.services.templates.create(
      SYSTEM,
      a.accountId,
      await readDesignFile(DEMO_DESIGN.pathname),
    );
    const batch = await issue(t, a, { templateId: a.templateId, recipients: recipients(5) });
    assert.equal(batch.statusCode, 201);
    const id = batch.json().data.results[0].certificate.id as string;
    await issue(t, a, { templateId: other.id, recipients: recipients(2, 10) });
    const revoked = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${id}/revoke`,
      headers: a.auth,
    });
    assert.equal(revoked.statusCode, 200);
    const url = (template: string, status?: string) =>
      `/api/v1/certificates?templateId=${template}${status ? `&status=${status}` : ''}`;
    assert.equal(await totalOf(a, url(a.templateId)), 5);
    assert.equal(await totalOf(a, url(a.templateId, 'Issued')), 4);
    assert.equal(await totalOf(a, url(a.templateId, 'Revoked')), 1);
    assert.equal(await totalOf(a, url(other.id)), 2);
    assert.equal(await totalOf(a, url(other.id.toUpperCase(), 'Revoked')), 0);
    // Another account's template: nothing, whatever its counters say.
    const b = await createTenant(t.deps);
    await issueOne(t, b, recipient(1));
    assert.equal(await totalOf(a, url(b.templateId)), 0);
    // Moving a counter behind the rows' back shows that the total is read, not counted.
    await t.deps.db.query(`UPDATE list_counts SET n = n + 100 WHERE account_id = $1 AND list = $2`, [
      a.accountId,
      `certificates:Issued:template:${other.id}`,
    ]);
    assert.equal(await totalOf(a, url(other.id)), 102);
  });
});
