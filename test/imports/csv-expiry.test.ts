import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import { SYSTEM } from '../../src/platform/principal.js';
import type { Design } from '../../src/pdf/design.schema.js';
import { readRecipientsCsv } from '../../src/modules/imports/recipients-csv.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { signedInUser, uploadCsv } from './support.js';

// Issue 30, item 9 (decisions 24): a CSV's `expiresAt` column sets each row's expiry: a date is the
// end of that day in UTC, a date-time is taken as the API takes it, empty is the template's validity;
// a bad or past value fails its row with a clear reason and issues nothing for it.

const FIELDS = [{ key: 'course', required: true }];

const FILE = [
  'name,email,course,ExpiresAt',
  'Ada Day,ada@example.com,Engines,2029-01-31',
  'Bo Offset,bo@example.com,Engines,2029-02-01T00:30:00+01:00',
  'Cy Empty,cy@example.com,Engines,',
  'Di Bad,di@example.com,Engines,31/01/2029',
  'Ed Past,ed@example.com,Engines,2020-01-01',
  'Fay Feb30,fay@example.com,Engines,2029-02-30',
  'Gus Zulu,gus@example.com,Engines, 2029-03-01T12:00:00Z ',
].join('\n');

const CELL_REASON =
  'expiresAt: must be a date (YYYY-MM-DD: the end of that day, UTC) or a date-time with Z or an offset, such as 2028-11-26T17:00:00+01:00';

describe('CSV: the expiresAt column', () => {
  it('reads dates as the end of that day (UTC) and passes date-times and bad values as written', async () => {
    const rows = await readRecipientsCsv(Buffer.from(FILE), FIELDS);
    assert.deepEqual(
      rows.map((r) => r.recipient.expiresAt),
      [
        '2029-01-31T23:59:59.999Z',
        '2029-02-01T00:30:00+01:00',
        undefined,
        '31/01/2029',
        '2020-01-01T23:59:59.999Z',
        '2029-02-30',
        '2029-03-01T12:00:00Z',
      ],
    );
    // The column is no data field.
    assert.deepEqual(rows[0]!.recipient.data, { course: 'Engines' });
    // A template with a field of that key keeps its field.
    const own = await readRecipientsCsv(Buffer.from('name,email,expiresAt\nA,a@example.com,soon\n'), [
      { key: 'expiresAt', required: false },
    ]);
    assert.deepEqual(own[0]!.recipient, { name: 'A', email: 'a@example.com', data: { expiresAt: 'soon' } });
  });

  describe('issued from the dashboard', () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
    });
    after(async () => {
      await t?.close();
    });

    it('sets each row its expiry, and fails the bad and past ones with their reasons', async () => {
      const { tenant, client } = await signedInUser(t);
      const page = await client.get(`/dashboard/certificates/upload?templateId=${tenant.templateId}`);
      assert.match(page.body, /id="csv-expiry">\s*Optional: a column <code>expiresAt<\/code>/);
      const res = await uploadCsv(client, tenant, FILE);
      assert.equal(res.statusCode, 303, res.body.slice(0, 300));
      const id = /results\/([0-9a-f-]{36})$/.exec(String(res.headers.location))![1]!;
      const imp = await t.deps.services.imports.get(tenant.accountId, id);
      assert.deepEqual([imp.created, imp.failed], [4, 3]);
      const rows = await t.deps.services.imports.rows(tenant.accountId, id, 100);
      const failed = rows.filter((r) => r.status === 'failed');
      assert.deepEqual(
        failed.map((r) => r.line),
        [5, 6, 7],
      );
      assert.equal(failed[0]!.reason, CELL_REASON);
      assert.match(failed[1]!.reason ?? '', /^expiresAt: must be after the issue time \(/);
      assert.equal(failed[2]!.reason, CELL_REASON);
      const expiry = async (line: number) => {
        const row = rows.find((r) => r.line === line)!;
        return (await t.deps.services.certificates.get(tenant.accountId, row.certificateId!)).expiresAt;
      };
      assert.deepEqual(await expiry(2), '2029-01-31T23:59:59.999Z');
      assert.deepEqual(await expiry(3), '2029-01-31T23:30:00.000Z');
      assert.deepEqual(await expiry(4), null, 'empty: the template has no validity');
      assert.deepEqual(await expiry(8), '2029-03-01T12:00:00.000Z');
      // The day shown is the day written: 1 February for 2029-02-01T00:30:00+01:00.
      const bo = rows.find((r) => r.line === 3)!;
      const page3 = await t.app.inject({ method: 'GET', url: `/verify/${bo.uniqueCode}` });
      assert.match(page3.body, /id="expires-at"><time datetime="2029-01-31T23:30:00.000Z">1 February 2029</);
      const ada = rows.find((r) => r.line === 2)!;
      const page2 = await t.app.inject({ method: 'GET', url: `/verify/${ada.uniqueCode}` });
      assert.match(page2.body, /id="expires-at"><time datetime="2029-01-31T23:59:59.999Z">31 January 2029</);
      // Nothing was issued for the failed rows.
      const list = await t.deps.services.certificates.list(tenant.accountId, { perPage: 100 });
      assert.deepEqual(list.data.map((c) => c.recipientName).sort(), [
        'Ada Day',
        'Bo Offset',
        'Cy Empty',
        'Gus Zulu',
      ]);
    });

    it("empty is the template's validity; the expiry survives a held upload and a retry", async () => {
      const { tenant, client } = await signedInUser(t, { monthlyLimit: 1 });
      const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
      const template = await t.deps.services.templates.create(SYSTEM, tenant.accountId, {
        ...design,
        name: 'One-year course',
        validity: 'P1Y',
      });
      await client.get(`/dashboard/certificates/upload?templateId=${template.id}`);
      const held = await client.upload(
        '/dashboard/certificates/upload',
        { templateId: template.id },
        {
          name: 'two.csv',
          content: 'name,email,course,expiresAt\nA,a@example.com,C,\nB,b@example.com,C,2030-06-30\n',
        },
      );
      assert.equal(held.statusCode, 303, held.body.slice(0, 300));
      const holdId = /held\/([0-9a-f-]{36})$/.exec(String(held.headers.location))![1]!;
      const principalOf = () => t.deps.services.accounts.actingPrincipal(tenant.accountId, 'test', SYSTEM);
      const imp = await t.deps.services.imports.startHeld(
        await principalOf(),
        tenant.accountId,
        holdId,
        1,
        'test',
      );
      const rows = await t.deps.services.imports.rows(tenant.accountId, imp.id, 10);
      const a = await t.deps.services.certificates.get(tenant.accountId, rows[0]!.certificateId!);
      const inAYear = new Date(a.issuedAt!);
      inAYear.setUTCFullYear(inAYear.getUTCFullYear() + 1);
      assert.equal(a.expiresAt, inAYear.toISOString());
      assert.equal(rows[1]!.status, 'failed');
      // More quota, then the failed row again: with its own expiry.
      await t.deps.services.contracts.create({
        accountId: tenant.accountId,
        startsAt: new Date(Date.now() - 60_000),
      });
      const retry = await t.deps.services.imports.retryFailed(
        await principalOf(),
        tenant.accountId,
        imp.id,
        'test',
      );
      const again = await t.deps.services.imports.rows(tenant.accountId, retry.id, 10);
      if (again[0]!.status !== 'created') await t.deps.services.imports.runChunk(retry.id);
      const retried = await t.deps.services.imports.rows(tenant.accountId, retry.id, 10);
      assert.equal(retried[0]!.status, 'created', retried[0]!.reason ?? '');
      const b = await t.deps.services.certificates.get(tenant.accountId, retried[0]!.certificateId!);
      assert.equal(b.expiresAt, '2030-06-30T23:59:59.999Z');
    });
  });
});
