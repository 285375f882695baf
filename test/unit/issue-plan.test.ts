import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Design } from '../../src/pdf/design.schema.js';
import type { Principal } from '../../src/platform/principal.js';
import {
  certificateOf,
  emailedOnIssue,
  issueExpiry,
  planCandidate,
  reissueExpiry,
  titleOf,
  validityOf,
  type DefaultExpiry,
} from '../../src/modules/certificates/issue-plan.js';
import { checkRecipient, type ValidRecipient } from '../../src/modules/certificates/recipient.js';
import type { TemplateWithDesign } from '../../src/modules/templates/templates.repository.js';

// The plan of an issue (src/modules/certificates/issue-plan.ts): the rules of issuing as pure
// functions, checked without a database, a renderer or a key.

const DAY = 86_400_000;
const issuedAt = new Date('2026-03-15T10:00:00Z');

function template(design: Partial<Design> = {}, name = 'Course completion'): TemplateWithDesign {
  return {
    id: '0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c70',
    account_id: '0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c71',
    name,
    description: null,
    fields: [{ key: 'course', label: 'Course', required: true }],
    status: 'active',
    version: 3,
    latest_version: 3,
    created_at: issuedAt,
    updated_at: issuedAt,
    design: {
      name,
      fields: [{ key: 'course', label: 'Course', required: true }],
      page: { width: 842, height: 595 },
      elements: [],
      ...design,
    } as Design,
  };
}

const grace: ValidRecipient = {
  name: 'Grace Hopper',
  email: 'grace@example.com',
  data: { course: 'Compilers' },
};
const none: DefaultExpiry = { at: null, on: null, inherited: false };

function plan(recipient: ValidRecipient, expiry: DefaultExpiry) {
  return planCandidate({
    index: 4,
    recipient,
    issuedAt,
    expiry,
    id: '0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c72',
    code: 'ABCD2345EFGH6789',
    publicBaseUrl: 'https://certs.example.com',
  });
}

function principal(emailDelivery: boolean): Principal {
  return {
    actor: { type: 'system', id: null, label: null },
    keyId: 'k',
    accountId: 'a',
    scopes: [],
    plan: 'Business',
    entitled: true,
    partner: false,
    emailDelivery,
    monthlyLimit: null,
  };
}

describe('the plan of an issue', () => {
  it('validates each recipient against the template fields, at the path the client sent', () => {
    const fields = template().fields;
    const ok = checkRecipient(
      { name: 'Ada', email: 'ada@example.com', data: { course: 'Engines' } },
      fields,
      ['recipients', 2],
      issuedAt,
    );
    assert.equal(ok.ok, true);
    const missing = checkRecipient(
      { name: 'Ada', email: 'ada@example.com', data: {} },
      fields,
      ['recipients', 2],
      issuedAt,
    );
    assert.equal(missing.ok, false);
    if (!missing.ok) assert.deepEqual(missing.issues[0]!.path.slice(0, 2), ['recipients', 2]);
  });

  it("gives certificates the template's validity from the issue time, or none", () => {
    assert.equal(validityOf(template()), null);
    assert.deepEqual(issueExpiry(template(), issuedAt), none);
    const days = issueExpiry(template({ validity: 'P90D' }), issuedAt);
    assert.equal(days.at?.getTime(), issuedAt.getTime() + 90 * DAY);
    assert.deepEqual([days.on, days.inherited], [null, false]);
    assert.equal(
      issueExpiry(template({ validity: 'P1Y' }), issuedAt).at?.toISOString(),
      '2027-03-15T10:00:00.000Z',
    );
    assert.throws(() => validityOf(template({ validity: 'forever' })), /invalid validity/);
  });

  it("lets a recipient's own expiry override the default, with the day as written", () => {
    const templateExpiry = issueExpiry(template({ validity: 'P90D' }), issuedAt);
    const byTemplate = plan(grace, templateExpiry);
    assert.equal(byTemplate.expiresAt?.getTime(), templateExpiry.at!.getTime());
    assert.equal(byTemplate.expiresOn, null);
    assert.equal(byTemplate.values.expiresAt, templateExpiry.at!.toISOString());

    const own = new Date('2028-11-25T23:00:00Z');
    const byRecipient = plan({ ...grace, expiresAt: own, expiresOn: '2028-11-26' }, templateExpiry);
    assert.equal(byRecipient.expiresAt, own);
    assert.equal(byRecipient.expiresOn, '2028-11-26');
    assert.equal(byRecipient.inheritedExpiry, false);
  });

  it('fills the values of the design: name, issue time, code and its verification URL', () => {
    const c = plan(grace, none);
    assert.equal(c.index, 4);
    assert.deepEqual(c.values, {
      recipientName: 'Grace Hopper',
      issuedAt: '2026-03-15T10:00:00.000Z',
      expiresAt: null,
      uniqueCode: 'ABCD2345EFGH6789',
      verificationUrl: 'https://certs.example.com/verify/ABCD2345EFGH6789',
      data: { course: 'Compilers' },
    });
  });

  it("keeps a reissue's expiry from the old certificate while it lies ahead, else the template's", () => {
    const t = template({ validity: 'P30D' });
    const ahead = new Date(issuedAt.getTime() + 10 * DAY);
    assert.deepEqual(reissueExpiry(t, { expiresAt: ahead, expiresOn: '2026-03-25' }, issuedAt), {
      at: ahead,
      on: '2026-03-25',
      inherited: true,
    });
    const past = new Date(issuedAt.getTime() - DAY);
    const fresh = reissueExpiry(t, { expiresAt: past, expiresOn: null }, issuedAt);
    assert.deepEqual([fresh.at?.getTime(), fresh.inherited], [issuedAt.getTime() + 30 * DAY, false]);
    assert.deepEqual(reissueExpiry(template(), { expiresAt: null, expiresOn: null }, issuedAt), none);

    const inherited = reissueExpiry(t, { expiresAt: ahead, expiresOn: null }, issuedAt);
    assert.equal(plan(grace, inherited).inheritedExpiry, true);
    assert.equal(
      plan({ ...grace, expiresAt: ahead }, inherited).inheritedExpiry,
      false,
      'the recipient wrote one',
    );
  });

  it("titles a certificate with the design's title filled, else the template name", () => {
    const c = plan(grace, none);
    assert.equal(titleOf(template({ title: 'Course: {{data.course}}' }), c.values), 'Course: Compilers');
    assert.equal(titleOf(template({}, 'Course completion'), c.values), 'Course completion');
    assert.equal(titleOf(template({ title: '{{data.missing}}' }, 'Fallback'), c.values), 'Fallback');
    const dated = titleOf(template({ title: 'Issued {{certificate.issuedAt}}', locale: 'de' }), c.values);
    assert.notEqual(dated, 'Issued');
    assert.match(dated, /2026/);
  });

  it('plans the reminders ahead of the expiry; a correction keeping the expiry keeps only those not yet due', () => {
    const t = template({ remindBeforeDays: [30, 7] });
    const expiresAt = new Date(issuedAt.getTime() + 20 * DAY);
    const c = plan(grace, { at: expiresAt, on: null, inherited: true });
    // 20 days ahead: the 30-day reminder is due already (sent at once), then the 7-day one.
    const issued = certificateOf(t, c, issuedAt);
    assert.deepEqual(issued.reminders, [30, 7]);
    assert.equal(issued.nextReminderAt?.getTime(), expiresAt.getTime() - 30 * DAY);
    // A correction: the 30-day one went to the old certificate.
    const corrected = certificateOf(t, c, issuedAt, true);
    assert.deepEqual(corrected.reminders, [7]);
    assert.equal(corrected.nextReminderAt?.getTime(), expiresAt.getTime() - 7 * DAY);
    assert.deepEqual(certificateOf(template(), c, issuedAt).reminders, []);
    assert.deepEqual(certificateOf(t, plan(grace, none), issuedAt).reminders, []);
  });

  it('writes down the certificate as planned', () => {
    const c = plan(grace, none);
    assert.deepEqual(certificateOf(template({ title: '{{data.course}}' }), c, issuedAt), {
      id: c.id,
      uniqueCode: 'ABCD2345EFGH6789',
      recipientName: 'Grace Hopper',
      recipientEmail: 'grace@example.com',
      title: 'Compilers',
      data: { course: 'Compilers' },
      expiresAt: null,
      expiresOn: null,
      reminders: [],
      nextReminderAt: null,
    });
  });

  it('emails on issue only when the design asks and the plan delivers email', () => {
    assert.equal(emailedOnIssue(principal(true), template({ emailOnIssue: true })), true);
    assert.equal(emailedOnIssue(principal(false), template({ emailOnIssue: true })), false);
    assert.equal(emailedOnIssue(principal(true), template()), false);
  });
});
