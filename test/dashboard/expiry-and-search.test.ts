import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import { addDuration } from '../../src/platform/duration.js';
import { SYSTEM } from '../../src/platform/principal.js';
import type { Design } from '../../src/pdf/design.schema.js';
import type { Queryable } from '../../src/platform/db/db.js';
import { listCertificates, matchingIds } from '../../src/modules/certificates/certificates.repository.js';
import { codeOfText } from '../../src/modules/shared/certificate-links.js';
import { formatDateUtc } from '../../src/modules/verify/verify-page.dates.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { signedInMember, type FormClient } from './form-client.js';

// Issue 30, item 9: the dashboard's issue form sets an expiry (a day: its end, UTC), saying what the
// template's validity gives when it is left empty; the certificate search finds a certificate by its
// code, in any case, with or without dashes; the ZIP of the search reads the same search.

const dir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-expiry-search-'));

describe('dashboard: expiry on the issue form, search by code', () => {
  let t: TestApp;
  let tenant: Tenant;
  let client: FormClient;
  let twoYears: string;

  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
    tenant = await createTenant(t.deps, { monthlyLimit: 100_000 });
    const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
    const template = await t.deps.services.templates.create(SYSTEM, tenant.accountId, {
      ...design,
      name: 'Two-year course',
      validity: 'P2Y',
    });
    twoYears = template.id;
    client = await signedInMember(t, tenant.accountId);
  });
  after(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const count = async () => (await t.deps.services.certificates.list(tenant.accountId, {})).pagination.total;
  const issueForm = async (templateId: string, fields: Record<string, string>) => {
    await client.get(`/dashboard/certificates/new?templateId=${templateId}`);
    return client.post('/dashboard/certificates/new', {
      templateId,
      name: 'Grace Hopper',
      email: 'grace@example.com',
      'data.course': 'Compilers',
      ...fields,
    });
  };
  const certificateOf = async (res: {
    statusCode: number;
    headers: Record<string, unknown>;
    body: string;
  }) => {
    assert.equal(res.statusCode, 303, res.body.slice(0, 500));
    const id = /\/dashboard\/certificates\/([0-9a-f-]{36})$/.exec(String(res.headers.location))?.[1];
    assert.ok(id, String(res.headers.location));
    return t.deps.services.certificates.get(tenant.accountId, id);
  };

  it("says what the template's validity gives when the expiry is left empty", async () => {
    const withValidity = await client.get(`/dashboard/certificates/new?templateId=${twoYears}`);
    assert.equal(withValidity.statusCode, 200);
    assert.match(withValidity.body, /<input\s+type="date"\s+id="expiresOn"\s+name="expiresOn"/);
    const inTwoYears = addDuration(new Date(), { years: 2, months: 0, weeks: 0, days: 0 }).toISOString();
    const hint = /id="expiry-default">([\s\S]*?)<\/p>/.exec(withValidity.body)?.[1]?.replace(/<[^>]+>/g, '');
    assert.equal(hint, `Leave empty: expires on ${formatDateUtc(inTwoYears)} (template: 2 years).`);
    const without = await client.get(`/dashboard/certificates/new?templateId=${tenant.templateId}`);
    assert.match(
      without.body,
      /id="expiry-default">Leave empty: does not expire \(the template sets no validity\)\./,
    );
  });

  it('issues with the day chosen: it expires at the end of that day (UTC), as verification shows', async () => {
    const certificate = await certificateOf(await issueForm(twoYears, { expiresOn: '2029-03-15' }));
    assert.equal(certificate.expiresAt, '2029-03-15T23:59:59.999Z');
    const page = await client.get(`/dashboard/certificates/${certificate.id}`);
    assert.match(
      page.body,
      /id="expires-at"><time datetime="2029-03-15T23:59:59.999Z">15 March 2029, 23:59 UTC/,
    );
    const verify = await t.app.inject({ method: 'GET', url: `/verify/${certificate.uniqueCode}` });
    assert.equal(verify.statusCode, 200);
    assert.match(
      verify.body,
      /id="expires-at"><time datetime="2029-03-15T23:59:59.999Z">15 March 2029<\/time>/,
    );
    const api = await t.app.inject({ method: 'GET', url: `/api/v1/verify/${certificate.uniqueCode}` });
    assert.equal(api.json().data.expiresAt, '2029-03-15T23:59:59.999Z');
    assert.equal(api.json().data.expired, false);
  });

  it("issues with the template's validity when the expiry is left empty", async () => {
    const before = Date.now();
    const certificate = await certificateOf(await issueForm(twoYears, { expiresOn: '' }));
    const expected = addDuration(new Date(before), { years: 2, months: 0, weeks: 0, days: 0 });
    const got = new Date(certificate.expiresAt!).getTime();
    assert.ok(got >= expected.getTime() && got < expected.getTime() + 60_000, certificate.expiresAt!);
    const none = await certificateOf(await issueForm(tenant.templateId, {}));
    assert.equal(none.expiresAt, null);
  });

  it('answers a bad or past day with the form again and its message, issuing nothing', async () => {
    const n = await count();
    for (const [day, message] of [
      ['2020-01-01', 'must be today or a later day'],
      ['2029-02-30', 'must be a date, such as 2028-11-27'],
      ['next year', 'must be a date, such as 2028-11-27'],
    ] as const) {
      const res = await issueForm(twoYears, { expiresOn: day });
      assert.equal(res.statusCode, 422, day);
      assert.match(res.body, /id="form-error">The certificate was not issued: correct the fields below\./);
      const error = /id="expiresOn-error">([^<]*)</.exec(res.body)?.[1];
      assert.ok(error?.startsWith(message), `${day}: ${error}`);
      assert.match(res.body, /aria-describedby="expiresOn-error"/);
      // What was typed is kept.
      assert.match(res.body, new RegExp(`name="name"\\s+value="Grace Hopper"`));
    }
    assert.equal(await count(), n, 'nothing was issued');
  });

  it('finds a certificate by its code in any case, with or without dashes, and names and emails still', async () => {
    const own = await createTenant(t.deps, { monthlyLimit: 100_000 });
    const member = await signedInMember(t, own.accountId);
    const target = await issueCertificate(t.app, own, {
      name: 'Katherine Johnson',
      email: 'katherine@example.com',
      data: { course: 'Orbits' },
    });
    for (let i = 0; i < 3; i++) {
      await issueCertificate(t.app, own, {
        name: `Other ${i}`,
        email: `o${i}@example.com`,
        data: { course: 'X' },
      });
    }
    const code = target.uniqueCode;
    const dashed = code.match(/.{4}/g)!.join('-');
    const ids = async (q: string) => {
      const res = await member.get(`/dashboard/certificates?q=${encodeURIComponent(q)}`);
      assert.equal(res.statusCode, 200);
      return [...res.body.matchAll(/href="\/dashboard\/certificates\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
    };
    for (const spelling of [code.toLowerCase(), dashed.toUpperCase(), ` ${dashed.toLowerCase()} `, code]) {
      assert.deepEqual(await ids(spelling), [target.id], spelling);
    }
    assert.deepEqual(await ids('katherine JOHN'), [target.id]);
    assert.deepEqual(await ids('KATHERINE@example.com'), [target.id]);
    assert.equal((await ids('Other')).length, 3);
    // One character off is no code, and no name holds it.
    assert.deepEqual(await ids(`${code.slice(0, 15)}`), []);
    // Text that reads as a code but is no certificate's code is a name search.
    const named = await issueCertificate(t.app, own, {
      name: 'Berta Vanderzwaag',
      email: 'berta@example.com',
      data: { course: 'X' },
    });
    assert.equal(codeOfText('berta vanderzwaag'), 'BERTAVANDERZWAAG');
    assert.deepEqual(await ids('berta vanderzwaag'), [named.id]);
    // Another account's code is not found.
    const other = await issueCertificate(t.app, tenant);
    assert.deepEqual(await ids(other.uniqueCode), []);

    // Through the unique index of codes, never a walk through the account's certificates: the plans
    // of the list's and the ZIP's queries for an account of 5,000 certificates (made in a transaction
    // that is rolled back).
    const plans: string[] = [];
    await t.deps.db
      .transaction(async (tx) => {
        await tx.query(`SET LOCAL statement_timeout = '120s'`);
        await tx.query(
          `INSERT INTO certificates
           SELECT (jsonb_populate_record(c, jsonb_build_object(
                     'id', gen_random_uuid(), 'unique_code', 'F' || lpad(n::text, 15, '0'),
                     'search_name', 'filler ' || n, 'created_at', c.created_at - n * interval '1 second'))).*
             FROM certificates c, generate_series(1, 5000) n WHERE c.id = $1`,
          [target.id],
        );
        await tx.query('ANALYZE certificates');
        const explaining = {
          query: async (text: string, params: unknown[]) => {
            const r = await tx.query(`EXPLAIN ${text}`, params);
            plans.push(r.rows.map((row: Record<string, string>) => row['QUERY PLAN']!).join('\n'));
            return { rows: [{ n: 0 }] };
          },
        } as unknown as Queryable;
        await matchingIds(explaining, own.accountId, { uniqueCode: code }, 10);
        await listCertificates(explaining, own.accountId, { uniqueCode: code, limit: 25, offset: 0 });
        throw new Error('roll back');
      })
      .catch((err: Error) => assert.equal(err.message, 'roll back'));
    assert.equal(plans.length, 3);
    for (const plan of plans) {
      assert.match(plan, /certificates_unique_code_key/, plan);
      assert.doesNotMatch(plan, /Seq Scan on certificates|Scan (using|on) certificates_account/, plan);
    }

    // The ZIP of the search holds exactly that certificate's PDF.
    const zip = await member.get(
      `/dashboard/certificates/pdfs.zip?q=${encodeURIComponent(dashed.toLowerCase())}`,
    );
    assert.equal(zip.statusCode, 200);
    const file = path.join(dir, 'search.zip');
    writeFileSync(file, zip.rawPayload);
    const names = execFileSync('unzip', ['-Z1', file], { encoding: 'utf8' }).trim().split('\n');
    assert.deepEqual(names, [`Katherine Johnson-${code}.pdf`]);
  });
});
