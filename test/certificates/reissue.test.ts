import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import type { Design } from '../../src/pdf/design.schema.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { pdfText } from '../pdf/pdf-helpers.js';
import { CROCKFORD_16, certificateCount, issueOne, recipient, usedInDb } from './support.js';

// Issue 19 part 3 (decisions 19): POST /api/v1/certificates/:id/reissue.

let t: TestApp;
let tenant: Tenant;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  tenant = await createTenant(t.deps, { name: 'Correcting Academy' });
});
after(() => t.close());

const reissue = (owner: Tenant, id: string, payload: unknown, key?: string) =>
  t.app.inject({
    method: 'POST',
    url: `/api/v1/certificates/${id}/reissue`,
    headers: { ...owner.auth, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload: payload as object,
  });

const corrected = {
  name: 'Zoë Ångström',
  email: 'zoe.angstrom@example.com',
  data: { course: 'Safe Lifting', hours: 14 },
};

describe('POST /api/v1/certificates/:id/reissue', () => {
  it('issues a new certificate with its own code, PDF and credential; the old one is Revoked "Superseded by <code>" and links it; no quota', async () => {
    const old = await issueOne(t, tenant, recipient(0, { name: 'Zoe Angstrom', email: 'zoe@example.com' }));
    const used = await usedInDb(t, tenant.accountId);

    const res = await reissue(tenant, old.id, { recipient: corrected });
    assert.equal(res.statusCode, 201, res.body);
    const fresh = res.json().data;
    assert.notEqual(fresh.id, old.id);
    assert.match(fresh.uniqueCode, CROCKFORD_16);
    assert.notEqual(fresh.uniqueCode, old.uniqueCode);
    assert.equal(fresh.status, 'Issued');
    assert.equal(fresh.recipientName, 'Zoë Ångström');
    assert.equal(fresh.recipientEmail, 'zoe.angstrom@example.com');
    assert.deepEqual(fresh.data, corrected.data);
    assert.equal(fresh.templateId, tenant.templateId);
    assert.equal(await usedInDb(t, tenant.accountId), used);
    const usage = await t.app.inject({ url: '/api/v1/usage', headers: tenant.auth });
    assert.equal(usage.json().data.certificates.used, used);

    const oldRead = await t.app.inject({ url: `/api/v1/certificates/${old.id}`, headers: tenant.auth });
    assert.equal(oldRead.json().data.status, 'Revoked');
    assert.equal(oldRead.json().data.revocationReason, `Superseded by ${fresh.uniqueCode}`);

    const oldVerify = (await t.app.inject({ url: `/api/v1/verify/${old.uniqueCode}` })).json().data;
    assert.equal(oldVerify.valid, false);
    assert.equal(oldVerify.supersededBy, fresh.verificationUrl);
    const oldPage = await t.app.inject({ url: `/verify/${old.uniqueCode}` });
    assert.match(oldPage.body, new RegExp(`<a id="superseded-by" href="${fresh.verificationUrl}">`));
    assert.match(oldPage.body, new RegExp(`Superseded by ${fresh.uniqueCode}`));

    const newVerify = (await t.app.inject({ url: `/api/v1/verify/${fresh.uniqueCode}` })).json().data;
    assert.equal(newVerify.valid, true);
    assert.equal(newVerify.recipientName, 'Zoë Ångström');
    assert.equal(newVerify.signed, true);
    assert.equal(newVerify.pdfSigned, true);
    assert.equal(newVerify.supersededBy, null);

    const pdf = await t.app.inject({ url: `/api/v1/certificates/${fresh.id}/pdf`, headers: tenant.auth });
    assert.equal(pdf.statusCode, 200);
    const text = pdfText(pdf.rawPayload);
    assert.match(text, /Zoë Ångström/);
    assert.match(text, new RegExp(fresh.uniqueCode));
    const credential = await t.app.inject({
      url: `/api/v1/certificates/${fresh.id}/credential`,
      headers: tenant.auth,
    });
    assert.equal(credential.json().credentialSubject.identifier[0].identityHash, 'Zoë Ångström');

    // Reissuing the old (now Revoked) one again: 409, nothing made.
    const count = await certificateCount(t, tenant.accountId);
    const again = await reissue(tenant, old.id, { recipient: corrected });
    assert.equal(again.statusCode, 409, again.body);
    assert.equal(again.json().error.code, 'conflict');
    assert.equal(await certificateCount(t, tenant.accountId), count);
  });

  it('works with the quota used up', async () => {
    const owner = await createTenant(t.deps, { monthlyLimit: 1 });
    const old = await issueOne(t, owner, recipient(1));
    const res = await reissue(owner, old.id, { recipient: { ...corrected, data: { course: 'Corrected' } } });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(await usedInDb(t, owner.accountId), 1);
  });

  it('an Idempotency-Key retry gets the same new certificate and makes nothing more', async () => {
    const old = await issueOne(t, tenant, recipient(2));
    const first = await reissue(tenant, old.id, { recipient: corrected }, 'reissue-2');
    assert.equal(first.statusCode, 201, first.body);
    const count = await certificateCount(t, tenant.accountId);
    const retry = await reissue(tenant, old.id, { recipient: corrected }, 'reissue-2');
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(retry.headers['idempotent-replayed'], 'true');
    assert.deepEqual(retry.json().data, first.json().data);
    assert.equal(await certificateCount(t, tenant.accountId), count);
    // The same key on another body: 422 at ["Idempotency-Key"].
    const other = await reissue(tenant, old.id, { recipient: { ...corrected, name: 'Other' } }, 'reissue-2');
    assert.equal(other.statusCode, 422);
    assert.deepEqual(other.json().error.details.issues[0].path, ['Idempotency-Key']);
  });

  it('404 for an unknown or foreign id, then 422 for the body, then 409; the scope is certificates:write', async () => {
    const stranger = await createTenant(t.deps);
    const mine = await issueOne(t, tenant, recipient(3));
    const foreign = await reissue(stranger, mine.id, { recipient: corrected });
    assert.equal(foreign.statusCode, 404);
    const unknown = await reissue(tenant, '0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6e', { recipient: 'x' });
    assert.equal(unknown.statusCode, 404);
    const badId = await reissue(tenant, 'not-a-uuid', { recipient: corrected });
    assert.equal(badId.statusCode, 422);

    const paths = async (payload: unknown) => {
      const res = await reissue(tenant, mine.id, payload);
      assert.equal(res.statusCode, 422, res.body);
      return res.json().error.details.issues.map((i: { path: unknown[] }) => i.path);
    };
    assert.deepEqual(await paths({ recipient: { ...corrected, nickname: 'Z' } }), [
      ['recipient', 'nickname'],
    ]);
    assert.deepEqual(await paths({ recipient: { ...corrected, data: {} } }), [
      ['recipient', 'data', 'course'],
    ]);
    assert.deepEqual(await paths({ recipient: corrected, templateId: tenant.templateId }), [['templateId']]);
    assert.deepEqual(await paths({ recipient: { ...corrected, expiresAt: '2001-01-01T00:00:00Z' } }), [
      ['recipient', 'expiresAt'],
    ]);
    assert.deepEqual(await paths({}), [['recipient']]);
    const revoke = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${mine.id}/revoke`,
      headers: tenant.auth,
      payload: {},
    });
    assert.equal(revoke.statusCode, 200);
    assert.equal((await reissue(tenant, mine.id, { recipient: corrected })).statusCode, 409);

    const readOnly = await createTenant(t.deps, { scopes: ['certificates:read', 'templates:read'] });
    const theirs = await issueOne(t, tenant, recipient(4));
    const refused = await reissue(readOnly, theirs.id, { recipient: corrected });
    assert.equal(refused.statusCode, 403);
    assert.equal(refused.json().error.code, 'insufficient_scope');
  });

  it("keeps the old expiry and only the reminders still ahead; the recipient's expiresAt replaces both", async () => {
    const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
    const template = await t.deps.services.templates.create(SYSTEM, tenant.accountId, {
      ...design,
      name: 'Reminded course',
      validity: 'P1Y',
      remindBeforeDays: [30, 7],
    });
    const expiresAt = new Date(Date.now() + 10 * 86_400_000).toISOString();
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/certificates',
      headers: tenant.auth,
      payload: { templateId: template.id, recipient: { ...recipient(6), expiresAt } },
    });
    const old = res.json().data as { id: string };
    const reminders = async (id: string) =>
      (
        await t.deps.db.query<{ reminders: number[] | null; expires_at: Date }>(
          'SELECT reminders, expires_at FROM certificates WHERE id = $1',
          [id],
        )
      ).rows[0]!;
    // Issued 10 days before expiry: the 30-day reminder (due at once) and the 7-day one.
    assert.deepEqual((await reminders(old.id)).reminders, [30, 7]);
    const kept = (await reissue(tenant, old.id, { recipient: corrected })).json().data;
    assert.equal(kept.expiresAt, expiresAt);
    assert.deepEqual((await reminders(kept.id)).reminders, [7]);
    assert.equal((await reminders(old.id)).reminders, null);

    const later = new Date(Date.now() + 100 * 86_400_000).toISOString();
    const moved = (await reissue(tenant, kept.id, { recipient: { ...corrected, expiresAt: later } })).json()
      .data;
    assert.equal(moved.expiresAt, later);
    assert.deepEqual((await reminders(moved.id)).reminders, [30, 7]);
  });

  it('two concurrent reissues of one certificate: one 201, one 409, one replacement', async () => {
    const old = await issueOne(t, tenant, recipient(5));
    const count = await certificateCount(t, tenant.accountId);
    const [a, b] = await Promise.all([
      reissue(tenant, old.id, { recipient: corrected }),
      reissue(tenant, old.id, { recipient: { ...corrected, name: 'Another Name' } }),
    ]);
    assert.deepEqual([a.statusCode, b.statusCode].sort(), [201, 409]);
    assert.equal(await certificateCount(t, tenant.accountId), count + 1);
  });
});
