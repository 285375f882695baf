import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import { mintClaimToken } from '../../src/modules/shared/claim-tokens.js';
import type { Design } from '../../src/pdf/design.schema.js';
import { ConflictError } from '../../src/platform/errors.js';
import { SYSTEM } from '../../src/platform/principal.js';
import { createTenant, issueCertificate, type Tenant, type TestApp } from '../helpers/app.js';
import { formClient, signedInMember, type FormClient } from '../dashboard/form-client.js';
import type { TestSmtpServer } from '../emails/smtp-test-server.js';
import { codeInMessage, waitFor, startMailingApp, type MailingApp } from '../emails/support.js';
import { mailTo, newAddress, signInAsRecipient } from './support.js';

// Correction requests (issue 31 item 5, decisions 22): asked on the claim page or in My certificates,
// one open per certificate; approved in the dashboard as a reissue (no quota, old one superseded, the
// new one emailed as a reissue is) or rejected with a reason; the recipient is emailed either way.

let mailing: MailingApp;
let smtp: TestSmtpServer;
let t: TestApp;
let tenant: Tenant;
let member: FormClient;

before(async () => {
  mailing = await startMailingApp({ EMAIL_RETRY_BASE_MS: '100' });
  ({ smtp, t } = mailing);
  tenant = await createTenant(t.deps, { name: 'Academy of Engines' });
  // The template emails each certificate on issue (and so on reissue).
  const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
  const emailing = await t.deps.services.templates.create(SYSTEM, tenant.accountId, {
    ...design,
    name: 'Emailed course',
    emailOnIssue: true,
  });
  tenant = { ...tenant, templateId: emailing.id };
  member = await signedInMember(t, tenant.accountId);
});
after(async () => {
  await mailing?.close();
});

async function issue(email: string, name = 'Ada Lovelce') {
  return issueCertificate(t.app, tenant, { name, email, data: { course: 'Analytical Engines', hours: 3 } });
}
const claimPath = async (certificateId: string) =>
  `/claim/${await mintClaimToken(t.deps.db, certificateId, new Date())}/correction`;
const requestRow = async (certificateId: string) =>
  (
    await t.deps.db.query(
      'SELECT id, status, requested_name, requested_data, note, via, reason, new_certificate_id FROM correction_requests WHERE certificate_id = $1 ORDER BY created_at DESC',
      [certificateId],
    )
  ).rows[0];
const apiCertificate = async (id: string) =>
  (await t.app.inject({ url: `/api/v1/certificates/${id}`, headers: tenant.auth })).json().data;
const actions = async () =>
  (
    await t.deps.db.query<{ action: string }>(
      'SELECT action FROM audit_events WHERE account_id = $1 ORDER BY seq',
      [tenant.accountId],
    )
  ).rows.map((r) => r.action);
const used = async () =>
  (
    await t.deps.db.query<{ used: number }>(
      'SELECT COALESCE(sum(used), 0)::int AS used FROM usage_periods WHERE account_id = $1',
      [tenant.accountId],
    )
  ).rows[0]!.used;

describe('correction requests', () => {
  it('asked on the claim page, approved: a new certificate with the corrected name, the old one superseded, no quota, emails sent', async () => {
    const email = newAddress('ada');
    const old = await issue(email);
    const path = await claimPath(old.id);
    const recipient = formClient(t);
    const form = await recipient.get(path);
    assert.equal(form.statusCode, 200, form.body);
    assert.match(form.body, /id="name"\s+name="name"\s+value="Ada Lovelce"/);
    assert.match(form.body, /name="data\.course"\s+value="Analytical Engines"/);

    const asked = await recipient.post(path, {
      name: 'Ada Lovelace',
      'data.course': 'Analytical Engines',
      'data.hours': '3',
      note: 'My name is misspelt.',
    });
    assert.equal(asked.statusCode, 201, asked.body);
    assert.match(asked.body, /Your correction request was sent to the issuer/);
    const row = await requestRow(old.id);
    assert.equal(row.status, 'open');
    assert.equal(row.requested_name, 'Ada Lovelace');
    assert.deepEqual(row.requested_data, {});
    assert.equal(row.via, 'claim');

    // A second open request for the same certificate: refused, clearly, and nothing recorded.
    const second = await recipient.post(path, { name: 'Ada King', note: 'Again' });
    assert.equal(second.statusCode, 409);
    assert.match(second.body, /already asked for and is waiting for the issuer/);
    const count = await t.deps.db.query('SELECT 1 FROM correction_requests WHERE certificate_id = $1', [
      old.id,
    ]);
    assert.equal(count.rows.length, 1);

    // The dashboard: linked from the certificates list, with the request and its buttons.
    const list = await member.get('/dashboard/certificates');
    assert.match(list.body, /href="\/dashboard\/certificates\/corrections"/);
    assert.match(list.body, /Correction requests \(1 open\)/);
    const page = await member.get('/dashboard/certificates/corrections');
    assert.equal(page.statusCode, 200);
    assert.match(page.body, new RegExp(`data-correction-id="${row.id}"`));
    assert.match(page.body, /My name is misspelt\./);
    assert.match(page.body, />Approve<\/button>/);
    assert.match(page.body, />Reject<\/button>/);

    const usedBefore = await used();
    const approved = await member.post(`/dashboard/certificates/corrections/${row.id}/approve`, {});
    assert.equal(approved.statusCode, 303);
    const after = await member.get('/dashboard/certificates/corrections');
    assert.match(after.body, /Approved: the certificate was reissued as [0-9A-Z]{16}/);
    assert.match(after.body, /The recipient was told by email/);

    const closed = await requestRow(old.id);
    assert.equal(closed.status, 'approved');
    const fresh = await apiCertificate(closed.new_certificate_id);
    assert.equal(fresh.recipientName, 'Ada Lovelace');
    assert.equal(fresh.status, 'Issued');
    assert.deepEqual(fresh.data, { course: 'Analytical Engines', hours: 3 });
    const stale = await apiCertificate(old.id);
    assert.equal(stale.status, 'Revoked');
    assert.equal(stale.revocationReason, `Superseded by ${fresh.uniqueCode}`);
    assert.equal(await used(), usedBefore);

    // The recipient's emails: the decision, and the new certificate as a reissue sends it.
    const decision = await mailTo(smtp, email, /correction was approved/);
    assert.match(decision.text ?? '', new RegExp(`http://certs.test/verify/${fresh.uniqueCode}`));
    await waitFor('the new certificate emailed', () =>
      smtp.received.some((m) => m.rcptTo.includes(email) && codeInMessage(m.raw) === fresh.uniqueCode),
    );

    const trail = await actions();
    for (const action of ['correction.requested', 'certificate.reissued', 'correction.approved']) {
      assert.ok(trail.includes(action), `${action} in ${trail.join(', ')}`);
    }
    // The old certificate's link now refuses further requests (superseded).
    const gone = await recipient.get(path);
    assert.equal(gone.statusCode, 410);
    // Approving twice: refused, nothing more made.
    const twice = await member.post(`/dashboard/certificates/corrections/${row.id}/approve`, {});
    assert.equal(twice.statusCode, 303);
    assert.match(
      (await member.get('/dashboard/certificates/corrections')).body,
      /Not approved: This request was approved already/,
    );
  });

  it('rejected with a reason: the request is closed and the recipient told the reason; none without a reason', async () => {
    const email = newAddress('grace');
    const cert = await issue(email, 'Grace Hopper');
    const path = await claimPath(cert.id);
    const recipient = formClient(t);
    await recipient.get(path);
    assert.equal(
      (await recipient.post(path, { name: 'Grace B. Hopper', note: 'Middle initial' })).statusCode,
      201,
    );
    const row = await requestRow(cert.id);

    const noReason = await member.post(`/dashboard/certificates/corrections/${row.id}/reject`, {
      reason: '  ',
    });
    assert.equal(noReason.statusCode, 303);
    assert.match(
      (await member.get('/dashboard/certificates/corrections')).body,
      /Not rejected: the reason must be 1 to 500 characters/,
    );
    assert.equal((await requestRow(cert.id)).status, 'open');

    await member.post(`/dashboard/certificates/corrections/${row.id}/reject`, {
      reason: 'The name matches your enrolment form.',
    });
    const closed = await requestRow(cert.id);
    assert.equal(closed.status, 'rejected');
    assert.equal(closed.reason, 'The name matches your enrolment form.');
    assert.equal((await apiCertificate(cert.id)).status, 'Issued');
    const mail = await mailTo(smtp, email, /not accepted/);
    assert.match(mail.text ?? '', /The name matches your enrolment form\./);
    assert.ok((await actions()).includes('correction.rejected'));
    // Decided: a new request may be made.
    await recipient.get(path);
    assert.equal((await recipient.post(path, { name: 'Grace Brewster Hopper' })).statusCode, 201);
  });

  it('refuses a request that changes nothing, and a value that is not plain text', async () => {
    const cert = await issue(newAddress());
    const path = await claimPath(cert.id);
    const recipient = formClient(t);
    await recipient.get(path);
    const same = await recipient.post(path, { name: 'Ada Lovelce', note: 'nothing' });
    assert.equal(same.statusCode, 422);
    assert.match(same.body, /Nothing to correct/);
    const bad = await recipient.post(path, { name: 'Ada\u0000' });
    assert.equal(bad.statusCode, 422);
    assert.equal((await requestRow(cert.id)) ?? undefined, undefined);
  });

  it('a revoked certificate cannot be corrected: not on the claim page, not in My certificates', async () => {
    const email = newAddress('revoked');
    const cert = await issue(email);
    const path = await claimPath(cert.id);
    const recipient = formClient(t);
    await signInAsRecipient(t, smtp, recipient, email);
    const form = await recipient.get(`/my/certificates/${cert.id}/correction`);
    assert.equal(form.statusCode, 200);
    const revoked = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${cert.id}/revoke`,
      headers: tenant.auth,
      payload: {},
    });
    assert.equal(revoked.statusCode, 200, revoked.body);

    const claim = await formClient(t).get(path);
    assert.equal(claim.statusCode, 410);
    assert.match(claim.body, /revoked/);
    const mine = await recipient.post(`/my/certificates/${cert.id}/correction`, { name: 'Ada Lovelace' });
    assert.equal(mine.statusCode, 409);
    assert.match(mine.body, /revoked: it can no longer be corrected/);
    await assert.rejects(
      t.deps.services.corrections.request(cert.id, { name: 'Ada Lovelace' }, 'my'),
      ConflictError,
    );
    assert.equal((await requestRow(cert.id)) ?? undefined, undefined);
    // The list offers no correction for it.
    const list = await recipient.get('/my/certificates');
    assert.match(list.body, new RegExp(`data-certificate-id="${cert.id}"`));
    assert.doesNotMatch(list.body, new RegExp(`/my/certificates/${cert.id}/correction`));
  });

  it('asked from My certificates: recorded as such and listed in the dashboard', async () => {
    const email = newAddress('my');
    const cert = await issue(email);
    const recipient = formClient(t);
    await signInAsRecipient(t, smtp, recipient, email);
    await recipient.get(`/my/certificates/${cert.id}/correction`);
    const asked = await recipient.post(`/my/certificates/${cert.id}/correction`, {
      name: 'Ada Lovelace',
      'data.course': 'Analytical Engines II',
      note: 'Course name',
    });
    assert.equal(asked.statusCode, 201, asked.body);
    const row = await requestRow(cert.id);
    assert.equal(row.via, 'my');
    assert.deepEqual(row.requested_data, { course: 'Analytical Engines II' });
    const page = await member.get('/dashboard/certificates/corrections');
    assert.match(page.body, /Analytical Engines II/);
    // Another account's dashboard does not see it, nor can decide it.
    const other = await createTenant(t.deps);
    const stranger = await signedInMember(t, other.accountId);
    assert.doesNotMatch((await stranger.get('/dashboard/certificates/corrections')).body, new RegExp(row.id));
    const refused = await stranger.post(`/dashboard/certificates/corrections/${row.id}/approve`, {});
    assert.equal(refused.statusCode, 404);
    assert.equal((await requestRow(cert.id)).status, 'open');
  });
});
