import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { cleanPdfTools, pdfsig, tempFile } from '../credentials/pdf-tools.js';
import { signedInUser, uploadCsv } from '../imports/support.js';
import { SYSTEM } from '../../src/platform/principal.js';
import { ValidationError } from '../../src/platform/errors.js';
import type { Design } from '../../src/pdf/design.schema.js';
import { statementDesign } from './statement-design.js';

// docs/design-format.md, Pages and the table (decisions 24): a design of two pages whose second
// page holds a table filled from a list field, one row per item, run onto further pages when long;
// the list given as JSON data through the API or as CSV columns units[i].col; the whole file signed.

const GRADES = ['Distinction', 'Merit', 'Pass'];

function units(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    name: i === 7 ? `การยกของอย่างปลอดภัย ${i + 1}` : `Unit${i + 1} Manual handling`,
    hours: 100 + i,
    grade: `${GRADES[i % 3]!}${i + 1}`,
  }));
}

function pageCount(pdf: Buffer): number {
  const info = execFileSync('pdfinfo', [tempFile(pdf)], { encoding: 'utf8' });
  return Number(/^Pages:\s+(\d+)$/m.exec(info)?.[1]);
}

function pageText(pdf: Buffer, page: number): string {
  const file = tempFile(pdf);
  return execFileSync('pdftotext', ['-f', String(page), '-l', String(page), '-enc', 'UTF-8', file, '-'], {
    encoding: 'utf8',
  });
}

function assertUnits(pdf: Buffer, list: ReturnType<typeof units>): void {
  const text = [1, 2, 3].map((p) => pageText(pdf, p)).join('\n');
  for (const u of list) {
    assert.ok(text.includes(u.name), `${u.name} in the PDF`);
    assert.ok(text.includes(String(u.hours)), `${u.hours} in the PDF`);
    assert.ok(text.includes(u.grade), `${u.grade} in the PDF`);
  }
}

describe('two pages and a table from a list field', () => {
  let t: TestApp;
  let tenant: Tenant;
  let templateId: string;

  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
    tenant = await createTenant(t.deps, { monthlyLimit: 100_000 });
    templateId = (await t.deps.services.templates.create(SYSTEM, tenant.accountId, statementDesign())).id;
  });
  after(async () => {
    await t?.close();
    cleanPdfTools();
  });

  const issue = (recipient: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: { templateId, recipient },
    });
  const pdfOf = async (id: string) => {
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/certificates/${id}/pdf`,
      headers: tenant.auth,
    });
    assert.equal(res.statusCode, 200);
    return res.rawPayload;
  };

  it('issues 40 units through the API onto three pages, every unit readable, signed as a whole', async () => {
    const list = units(40);
    const res = await issue({
      name: 'Zoë Ångström',
      email: 'zoe@example.com',
      data: { course: 'Safe Lifting', units: list },
    });
    assert.equal(res.statusCode, 201, res.body);
    const { id, uniqueCode } = res.json().data as { id: string; uniqueCode: string };
    const pdf = await pdfOf(id);
    assert.equal(pageCount(pdf), 3);
    const sizes = execFileSync('pdfinfo', ['-f', '1', '-l', '3', tempFile(pdf)], { encoding: 'utf8' });
    assert.equal(sizes.match(/Page\s+\d+ size:\s+842 x 595 pts/g)?.length, 3, sizes);
    assertUnits(pdf, list);
    // Page 1 is the certificate; pages 2 and 3 repeat page 2 (its texts, the header) with the next rows.
    assert.match(pageText(pdf, 1), /completed Safe Lifting/);
    assert.doesNotMatch(pageText(pdf, 1), /Unit1 /);
    for (const p of [2, 3]) {
      const text = pageText(pdf, p);
      assert.match(text, /Units of Zoë Ångström/);
      assert.match(text, /Unit\s+Hours\s+Grade|Unit\nHours\nGrade|Hours/);
      assert.ok(text.includes(`Code ${uniqueCode}`), text);
    }
    assert.ok(pageText(pdf, 2).includes('Unit1 Manual handling'));
    assert.ok(!pageText(pdf, 2).includes('Unit40 Manual handling'));
    assert.ok(pageText(pdf, 3).includes('Unit40 Manual handling'));
    const out = pdfsig(pdf);
    assert.match(out, /Signature Validation: Signature is Valid\./, out);
    assert.match(out, /Total document signed/, out);
  });

  it('a short list is two pages; an empty optional list leaves the header alone', async () => {
    const res = await issue({
      name: 'Ada Lee',
      email: 'ada@example.com',
      data: { course: 'X', units: units(3) },
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(pageCount(await pdfOf(res.json().data.id)), 2);
  });

  it('refuses list data that does not fit its field with 422 naming the path, and issues nothing', async () => {
    const cases: [unknown, (string | number)[]][] = [
      [{ course: 'X', units: 'Manual handling' }, ['recipient', 'data', 'units']],
      [{ course: [{ name: 'a' }], units: units(1) }, ['recipient', 'data', 'course']],
      [{ course: 'X', units: [] }, ['recipient', 'data', 'units']],
      [{ course: 'X', units: [{ name: { deep: 1 } }] }, ['recipient', 'data', 'units', 0, 'name']],
      [{ course: 'X', units: [{ name: 'x'.repeat(1001) }] }, ['recipient', 'data', 'units', 0, 'name']],
      [{ course: 'X', units: units(501) }, ['recipient', 'data', 'units']],
      [{ course: 'X', units: [{ name: 'Emoji 🎓' }] }, ['recipient', 'data', 'units', 0, 'name']],
    ];
    const before = await t.deps.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM certificates WHERE account_id = $1',
      [tenant.accountId],
    );
    for (const [data, path] of cases) {
      const res = await issue({ name: 'Bad Data', email: 'bad@example.com', data });
      assert.equal(res.statusCode, 422, `${JSON.stringify(path)}: ${res.body.slice(0, 300)}`);
      const body = res.json() as { error: { code: string; details: { issues: { path: unknown[] }[] } } };
      assert.equal(body.error.code, 'validation_error');
      assert.ok(
        body.error.details.issues.some((i) => JSON.stringify(i.path) === JSON.stringify(path)),
        `${JSON.stringify(path)} in ${res.body.slice(0, 400)}`,
      );
    }
    const after = await t.deps.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM certificates WHERE account_id = $1',
      [tenant.accountId],
    );
    assert.equal(after.rows[0]!.n, before.rows[0]!.n);
  });

  it('reads units[i].col columns of a CSV upload into the list, gaps and empty items dropped', async () => {
    const { tenant: owner, client } = await signedInUser(t);
    const id = (await t.deps.services.templates.create(SYSTEM, owner.accountId, statementDesign())).id;
    const list = units(40);
    const header = [
      'name',
      'email',
      'course',
      ...list.flatMap((_, i) => ['name', 'hours', 'grade'].map((k) => `units[${i}].${k}`)),
    ];
    // A gap (item 41 empty, item 42 filled) and an empty trailing item in the second row.
    header.push('units[41].name', 'units[42].name', 'units[43].name');
    const cells = (u: typeof list) => u.flatMap((x) => [x.name, String(x.hours), x.grade]);
    const rows = [
      ['Zoë Ångström', 'zoe@example.com', 'Safe Lifting', ...cells(list), '', '', ''],
      [
        'Ada Lee',
        'ada@example.com',
        'Safe Lifting',
        ...cells(list.slice(0, 2)),
        ...Array(38 * 3).fill(''),
        '',
        'Extra unit',
        '',
      ],
    ];
    const csv = [header, ...rows].map((r) => r.map((c) => `"${c}"`).join(',')).join('\n') + '\n';
    const res = await uploadCsv(client, { ...owner, templateId: id }, csv);
    assert.equal(res.statusCode, 303, res.body.slice(0, 500));
    assert.match(String(res.headers.location), /\/upload\/results\//);
    const { rows: issued } = await t.deps.db.query<{
      id: string;
      recipient_email: string;
      data: { units: unknown[] };
    }>('SELECT id, recipient_email, data FROM certificates WHERE account_id = $1 ORDER BY recipient_email', [
      owner.accountId,
    ]);
    assert.equal(issued.length, 2);
    const [ada, zoe] = issued;
    assert.deepEqual(ada!.data.units, [
      { name: list[0]!.name, hours: String(list[0]!.hours), grade: list[0]!.grade },
      { name: list[1]!.name, hours: String(list[1]!.hours), grade: list[1]!.grade },
      { name: 'Extra unit' },
    ]);
    assert.equal(zoe!.data.units.length, 40);
    const res2 = await t.app.inject({
      method: 'GET',
      url: `/api/v1/certificates/${zoe!.id}/pdf`,
      headers: owner.auth,
    });
    assert.equal(res2.statusCode, 200);
    const bytes = res2.rawPayload;
    assert.equal(pageCount(bytes), 3);
    assertUnits(bytes, list);
  });

  it('refuses a CSV whose list columns are malformed, naming the column', async () => {
    const { tenant: owner, client } = await signedInUser(t);
    const id = (await t.deps.services.templates.create(SYSTEM, owner.accountId, statementDesign())).id;
    for (const [column, message] of [
      ['units[x].name', /units\[x\]\.name is not a column of the list units/],
      ['units[0]', /units\[0\] is not a column of the list units/],
      ['units', /units is a list field/],
      ['units[500].name', /index from 0 to 499/],
      ['course[0].name', /course is a text field/],
    ] as const) {
      const res = await uploadCsv(
        client,
        { ...owner, templateId: id },
        `name,email,course,${column}\nA,a@example.com,C,v\n`,
      );
      assert.equal(res.statusCode, 422, `${column}: ${res.statusCode}`);
      assert.match(res.body.replaceAll('&#91;', '[').replaceAll('&#93;', ']'), message);
    }
    const { rows } = await t.deps.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM certificates WHERE account_id = $1',
      [owner.accountId],
    );
    assert.equal(rows[0]!.n, 0);
  });

  it('checks the pages and the table when a template is saved', async () => {
    const refused = async (change: (d: Design) => void): Promise<string[]> => {
      const design = statementDesign();
      change(design);
      try {
        await t.deps.services.templates.create(SYSTEM, tenant.accountId, design);
      } catch (err) {
        assert.ok(err instanceof ValidationError, String(err));
        return err.issues.map((i) => `${i.path.join('.')} ${i.message}`);
      }
      assert.fail('the design was accepted');
    };
    const table = (d: Design) =>
      d.elements.find((e) => e.type === 'table')! as Extract<Design['elements'][number], { type: 'table' }>;
    assert.match(
      (await refused((d) => delete d.pages)).join('\n'),
      /elements\.3\.page Text 4: is on page 2, but the design has one page/,
    );
    assert.match(
      (await refused((d) => (d.fields[1]!.type = 'text'))).join('\n'),
      /elements\.4\.field Table 5: "units" is a text field/,
    );
    assert.match(
      (await refused((d) => (table(d).field = 'modules'))).join('\n'),
      /elements\.4\.field Table 5: "modules" is not a declared field/,
    );
    assert.match(
      (await refused((d) => (table(d).columns[0]!.width = 500))).join('\n'),
      /elements\.4\.columns Table 5: its columns are 800 pt wide in all/,
    );
    assert.match(
      (await refused((d) => (table(d).x = 200))).join('\n'),
      /elements\.4\.x Table 5: reaches past the right edge by 78 pt/,
    );
    assert.match(
      (await refused((d) => (table(d).height = 20))).join('\n'),
      /elements\.4\.height Table 5: leaves no room for a row/,
    );
    assert.match(
      (await refused((d) => d.elements.push({ ...table(d) }))).join('\n'),
      /elements\.6 Table 7: is a second table/,
    );
    assert.match(
      (
        await refused((d) =>
          d.elements.push({ type: 'text', text: '{{data.units}}', x: 10, y: 10, width: 100 }),
        )
      ).join('\n'),
      /elements\.6\.text Text 7: \{\{data\.units\}\} is a list field/,
    );
  });
});
