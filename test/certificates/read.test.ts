import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { pdfText } from '../pdf/pdf-helpers.js';
import {
  certificateCount,
  insertDraft,
  issue,
  issueOne,
  randomCode,
  recipient,
  usageOf,
  usedInDb,
} from './support.js';

let t: TestApp;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
});
after(() => t.close());

const get = (tenant: Tenant, url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ url, headers: { ...tenant.auth, ...headers } });

const revoke = (tenant: Tenant, id: string, payload?: unknown, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/certificates/${id}/revoke`,
    headers: { ...tenant.auth, ...headers },
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

async function countersOf(tenant: Tenant, id: string) {
  const c = (await get(tenant, `/api/v1/certificates/${id}`)).json().data;
  return { downloadCount: c.downloadCount, emailCount: c.emailCount, verificationCount: c.verificationCount };
}

describe('GET /certificates', () => {
  it('newest first, in the pagination envelope, with pages past the end empty', async () => {
    const tenant = await createTenant(t.deps);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await issueOne(t, tenant, recipient(i))).id);
    const newestFirst = [...ids].reverse();

    const all = await get(tenant, '/api/v1/certificates');
    assert.equal(all.statusCode, 200);
    assert.deepEqual(Object.keys(all.json()).sort(), ['data', 'pagination']);
    assert.deepEqual(all.json().pagination, { page: 1, perPage: 20, total: 5, totalPages: 1 });
    assert.deepEqual(
      all.json().data.map((c: { id: string }) => c.id),
      newestFirst,
    );

    const pages = [];
    for (let page = 1; page <= 4; page++) {
      const res = await get(tenant, `/api/v1/certificates?page=${page}&perPage=2`);
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json().pagination, { page, perPage: 2, total: 5, totalPages: 3 });
      pages.push(res.json().data.map((c: { id: string }) => c.id));
    }
    assert.deepEqual(pages, [newestFirst.slice(0, 2), newestFirst.slice(2, 4), newestFirst.slice(4), []]);

    const hundred = await get(tenant, '/api/v1/certificates?status=Issued&page=1&perPage=100');
    assert.equal(hundred.statusCode, 200);
    assert.deepEqual(hundred.json().pagination, { page: 1, perPage: 100, total: 5, totalPages: 1 });
  });

  it('status filter: Issued, Revoked, Draft; an unknown status is 422 at ["status"]', async () => {
    const tenant = await createTenant(t.deps);
    const a = await issueOne(t, tenant, recipient(1));
    const b = await issueOne(t, tenant, recipient(2));
    assert.equal((await revoke(tenant, a.id)).statusCode, 200);
    const ids = async (status: string) =>
      (await get(tenant, `/api/v1/certificates?status=${status}`))
        .json()
        .data.map((c: { id: string }) => c.id);
    assert.deepEqual(await ids('Issued'), [b.id]);
    assert.deepEqual(await ids('Revoked'), [a.id]);
    assert.deepEqual(await ids('Draft'), []);
    const draft = await insertDraft(t, tenant, randomCode());
    assert.deepEqual(await ids('Draft'), [draft]);
    for (const bad of ['issued', 'Deleted', '']) {
      const res = await get(tenant, `/api/v1/certificates?status=${bad}`);
      assert.equal(res.statusCode, 422, bad);
      assert.equal(res.json().error.code, 'validation_error');
      assert.deepEqual(res.json().error.details.issues[0].path, ['status'], bad);
    }
  });

  it('GET /certificates/:id reads one; a non-UUID id is 422 at ["id"]; unknown is 404', async () => {
    const tenant = await createTenant(t.deps);
    const c = await issueOne(t, tenant);
    const res = await get(tenant, `/api/v1/certificates/${c.id}`);
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json().data, c);
    assert.equal((await get(tenant, `/api/v1/certificates/${c.id.toUpperCase()}`)).json().data.id, c.id);
    const bad = await get(tenant, '/api/v1/certificates/not-a-uuid');
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json().error.details.issues[0].path, ['id']);
    const unknown = await get(tenant, '/api/v1/certificates/0190a0b0-0000-7000-8000-000000000000');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.code, 'not_found');
  });
});

describe('GET /certificates/:id/pdf', () => {
  it('the frozen PDF: headers, ETag = sha256 = pdfSha256, same bytes, 304 and HEAD not counted', async () => {
    const tenant = await createTenant(t.deps);
    const c = await issueOne(t, tenant);
    const url = `/api/v1/certificates/${c.id}/pdf`;
    const first = await get(tenant, url);
    assert.equal(first.statusCode, 200);
    assert.equal(first.headers['content-type'], 'application/pdf');
    assert.equal(
      first.headers['content-disposition'],
      `attachment; filename="certificate-${c.uniqueCode}.pdf"`,
    );
    const bytes = first.rawPayload;
    assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
    const sha = createHash('sha256').update(bytes).digest('hex');
    assert.equal(first.headers.etag, `"${sha}"`);
    assert.ok(first.headers['x-ratelimit-remaining'] !== undefined);

    const verification = await t.app.inject({
      url: `/api/v1/verify/${c.uniqueCode}`,
      remoteAddress: '198.51.100.201',
    });
    assert.equal(verification.json().data.pdfSha256, sha);

    for (let i = 0; i < 3; i++)
      assert.ok((await get(tenant, url)).rawPayload.equals(bytes), 'same bytes on every download');
    assert.equal((await countersOf(tenant, c.id)).downloadCount, 4);

    const notModified = await get(tenant, url, { 'if-none-match': `"${sha}"` });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.body, '');
    assert.equal(notModified.headers.etag, `"${sha}"`);
    const listed = await get(tenant, url, { 'if-none-match': `"nope", W/"${sha}"` });
    assert.equal(listed.statusCode, 304);
    const stale = await get(tenant, url, { 'if-none-match': '"0000"' });
    assert.equal(stale.statusCode, 200, 'a different ETag gets the bytes');
    assert.ok(stale.rawPayload.equals(bytes));

    const head = await t.app.inject({ method: 'HEAD', url, headers: tenant.auth });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-type'], 'application/pdf');
    assert.equal(head.body, '');

    // 4 downloads before, then 1 (stale ETag); the two 304s and the HEAD are not downloads.
    assert.deepEqual(await countersOf(tenant, c.id), {
      downloadCount: 5,
      emailCount: 0,
      verificationCount: 1,
    });
  });

  it('the PDF reads back the name with diacritics, Greek and Cyrillic names, the course and the hours', async () => {
    const tenant = await createTenant(t.deps);
    const names = ['Zoë Ångström-Łukasiewicz', 'Αλέξανδρος Παπαδόπουλος', 'Анна Каренина-Щукина'];
    for (const [i, name] of names.entries()) {
      const c = await issueOne(
        t,
        tenant,
        recipient(i, { name, data: { course: `Čeština für Anfänger ${i}`, hours: 36 + i } }),
      );
      const text = pdfText((await get(tenant, `/api/v1/certificates/${c.id}/pdf`)).rawPayload).normalize(
        'NFC',
      );
      assert.ok(text.includes(name), `${name} in:\n${text}`);
      assert.ok(text.includes(`Čeština für Anfänger ${i}`), text);
      assert.ok(text.includes(`Hours of instruction: ${36 + i}`), text);
      assert.ok(text.includes(c.uniqueCode), text);
    }
  });

  it('stays frozen when the template changes; a new certificate uses the new design', async () => {
    const tenant = await createTenant(t.deps);
    const old = await issueOne(t, tenant);
    const url = `/api/v1/certificates/${old.id}/pdf`;
    const before = (await get(tenant, url)).rawPayload;
    assert.ok(pdfText(before).includes('Certificate of Completion'));

    const { rows } = await t.deps.db.query<{ design: { elements: { type: string; text?: string }[] } }>(
      'SELECT design FROM templates WHERE id = $1',
      [tenant.templateId],
    );
    const design = rows[0]!.design;
    const title = design.elements.find((e) => e.text === 'Certificate of Completion');
    assert.ok(title);
    title.text = 'Diploma of Distinction';
    await t.deps.db.query('UPDATE templates SET design = $2 WHERE id = $1', [
      tenant.templateId,
      JSON.stringify(design),
    ]);

    const after = (await get(tenant, url)).rawPayload;
    assert.ok(after.equals(before), 'identical bytes after the template changed');
    const fresh = await issueOne(t, tenant, recipient(2));
    const freshText = pdfText((await get(tenant, `/api/v1/certificates/${fresh.id}/pdf`)).rawPayload);
    assert.ok(freshText.includes('Diploma of Distinction'), freshText);
    assert.ok(!freshText.includes('Certificate of Completion'), freshText);
  });
});

describe('POST /certificates/:id/revoke', () => {
  it('200 Revoked with revokedAt and reason; again 409; PDF still downloadable; no quota back', async () => {
    const tenant = await createTenant(t.deps);
    const c = await issueOne(t, tenant);
    const pdfBefore = (await get(tenant, `/api/v1/certificates/${c.id}/pdf`)).rawPayload;
    const res = await revoke(tenant, c.id, { reason: 'Issued to the wrong person' });
    assert.equal(res.statusCode, 200, res.body);
    const r = res.json().data;
    assert.equal(r.status, 'Revoked');
    assert.match(r.revokedAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(r.revocationReason, 'Issued to the wrong person');
    assert.deepEqual(
      { ...r, status: c.status, revokedAt: null, revocationReason: null, downloadCount: 0 },
      c,
    );
    assert.deepEqual((await get(tenant, `/api/v1/certificates/${c.id}`)).json().data, r);

    const again = await revoke(tenant, c.id, { reason: 'twice' });
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().error.code, 'conflict');
    assert.equal(
      (await get(tenant, `/api/v1/certificates/${c.id}`)).json().data.revocationReason,
      'Issued to the wrong person',
    );

    const pdf = await get(tenant, `/api/v1/certificates/${c.id}/pdf`);
    assert.equal(pdf.statusCode, 200);
    assert.ok(pdf.rawPayload.equals(pdfBefore));
    assert.equal((await usageOf(t, tenant)).used, 1, 'revocation gives no quota back');
  });

  it('no body, an empty JSON body and {} are fine (reason null)', async () => {
    const tenant = await createTenant(t.deps);
    for (const variant of ['none', 'empty json', '{}'] as const) {
      const c = await issueOne(t, tenant);
      const res =
        variant === 'none'
          ? await revoke(tenant, c.id)
          : variant === 'empty json'
            ? await revoke(tenant, c.id, '', { 'content-type': 'application/json' })
            : await revoke(tenant, c.id, {});
      assert.equal(res.statusCode, 200, `${variant}: ${res.body}`);
      assert.equal(res.json().data.status, 'Revoked');
      assert.equal(res.json().data.revocationReason, null);
    }
  });

  it('bad bodies: 422 at the field, and nothing is revoked', async () => {
    const tenant = await createTenant(t.deps);
    const c = await issueOne(t, tenant);
    for (const [label, body, path] of [
      ['reason of 501 chars', { reason: 'r'.repeat(501) }, ['reason']],
      ['empty reason', { reason: '' }, ['reason']],
      ['reason not a string', { reason: 5 }, ['reason']],
      ['unknown field', { reason: 'x', notify: true }, ['notify']],
      ['not an object', ['x'], []],
    ] as const) {
      const res = await revoke(tenant, c.id, body);
      assert.equal(res.statusCode, 422, label);
      assert.equal(res.json().error.code, 'validation_error');
      assert.deepEqual(res.json().error.details.issues[0].path, path, label);
    }
    const malformed = await revoke(tenant, c.id, '{"reason":', { 'content-type': 'application/json' });
    assert.equal(malformed.statusCode, 422);
    assert.equal((await get(tenant, `/api/v1/certificates/${c.id}`)).json().data.status, 'Issued');
    const ok = await revoke(tenant, c.id, { reason: 'r'.repeat(500) });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.json().data.revocationReason, 'r'.repeat(500));
  });

  it('a Draft certificate: 409', async () => {
    const tenant = await createTenant(t.deps);
    const draft = await insertDraft(t, tenant, randomCode());
    const res = await revoke(tenant, draft);
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().error.code, 'conflict');
    const { rows } = await t.deps.db.query('SELECT status FROM certificates WHERE id = $1', [draft]);
    assert.equal(rows[0].status, 'Draft');
  });

  it('unknown id 404, non-UUID 422 at ["id"]', async () => {
    const tenant = await createTenant(t.deps);
    assert.equal((await revoke(tenant, '0190a0b0-0000-7000-8000-000000000000')).statusCode, 404);
    const bad = await revoke(tenant, '12345');
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json().error.details.issues[0].path, ['id']);
  });
});

describe('tenant isolation', () => {
  it("another account's certificate is not found anywhere, and nothing changes", async () => {
    const owner = await createTenant(t.deps);
    const stranger = await createTenant(t.deps);
    await issueOne(t, stranger, recipient(7));
    const c = await issueOne(t, owner);

    const spec = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
    const paths = Object.keys(spec.paths);
    const requests: { method: 'GET' | 'POST'; url: string; payload?: object }[] = [
      { method: 'GET', url: `/api/v1/certificates/${c.id}` },
      { method: 'GET', url: `/api/v1/certificates/${c.id}/pdf` },
      { method: 'POST', url: `/api/v1/certificates/${c.id}/revoke`, payload: { reason: 'mine now' } },
    ];
    if (paths.includes('/api/v1/certificates/{id}/send')) {
      requests.push({ method: 'POST', url: `/api/v1/certificates/${c.id}/send`, payload: {} });
    }
    if (paths.includes('/api/v1/certificates/{id}/emails')) {
      requests.push({ method: 'GET', url: `/api/v1/certificates/${c.id}/emails` });
    }
    for (const r of requests) {
      const res = await t.app.inject({ ...r, headers: stranger.auth });
      assert.equal(res.statusCode, 404, `${r.method} ${r.url}: ${res.body}`);
      assert.equal(res.json().error.code, 'not_found');
      assert.ok(!res.body.includes(c.uniqueCode));
    }
    const list = await get(stranger, '/api/v1/certificates?perPage=100');
    assert.ok(!list.json().data.some((x: { id: string }) => x.id === c.id));
    assert.equal(list.json().pagination.total, 1);
    for (const status of ['Issued', 'Revoked']) {
      const filtered = await get(stranger, `/api/v1/certificates?status=${status}`);
      assert.ok(!filtered.json().data.some((x: { id: string }) => x.id === c.id));
    }
    const after = (await get(owner, `/api/v1/certificates/${c.id}`)).json().data;
    assert.deepEqual(after, c, 'the owner sees it unchanged: not revoked, not downloaded, not emailed');
    assert.equal(await certificateCount(t, owner.accountId), 1);
    assert.equal(await usedInDb(t, stranger.accountId), 1);
    void issue;
  });
});
