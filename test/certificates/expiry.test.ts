import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/app.js';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import { createDeps, createLogger, type Deps } from '../../src/deps.js';
import { addDuration, parseDuration } from '../../src/platform/duration.js';
import type { Design } from '../../src/pdf/design.schema.js';
import { createTenant, testConfig, type Tenant } from '../helpers/app.js';
import { pdfText } from '../pdf/pdf-helpers.js';

// Issue 19 part 1: a template's validity and a recipient's expiresAt, frozen at issue; verification
// flips to expired at the instant of expiry (an injected clock); the list filters; the credential's
// validUntil; the date printed where the design places {{certificate.expiresAt}}.

// The service's clock: real time moved by `offsetMs` (the PDF signing certificate is made at real
// time), or stopped at `fixed`.
let offsetMs = 0;
let fixed: Date | undefined;
const now = () => fixed ?? new Date(Date.now() + offsetMs);
let deps: Deps;
let app: FastifyInstance;
let tenant: Tenant;
let validityTemplate: string;

before(async () => {
  const config = testConfig({ RATE_LIMIT_MAX: '100000', LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' });
  deps = await createDeps(config, { logger: createLogger(config), now });
  app = await createApp(deps);
  tenant = await createTenant(deps, { name: 'Expiring Academy' });
  const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
  const template = await deps.services.templates.create(SYSTEM, tenant.accountId, {
    ...design,
    name: 'Two-year course',
    validity: 'P2Y',
    elements: [
      ...design.elements,
      { type: 'text', text: 'Valid until {{certificate.expiresAt}}', x: 60, y: 540, width: 400, size: 10 },
    ],
  });
  validityTemplate = template.id;
});
after(async () => {
  await app.close();
  await deps.close();
});
beforeEach(() => {
  offsetMs = 0;
  fixed = undefined;
});

const recipient = (n: number, extra: Record<string, unknown> = {}) => ({
  name: `Recipient ${n}`,
  email: `r${n}@example.com`,
  data: { course: 'Safe Lifting' },
  ...extra,
});

async function issue(body: Record<string, unknown>) {
  return app.inject({ method: 'POST', url: '/api/v1/certificates', headers: tenant.auth, payload: body });
}

async function issueOk(templateId: string, r: Record<string, unknown>) {
  const res = await issue({ templateId, recipient: r });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; uniqueCode: string; issuedAt: string; expiresAt: string | null };
}

const verify = (code: string) => app.inject({ url: `/api/v1/verify/${code}` }).then((r) => r.json().data);

describe('ISO 8601 validity durations', () => {
  it('adds calendar years, months, weeks and days in UTC, the last day of a shorter month kept', () => {
    const add = (from: string, d: string) => {
      const parsed = parseDuration(d);
      assert.ok(parsed.ok, d);
      return addDuration(new Date(from), parsed.duration).toISOString();
    };
    assert.equal(add('2026-11-21T09:30:00.000Z', 'P2Y'), '2028-11-21T09:30:00.000Z');
    assert.equal(add('2026-01-31T12:00:00.000Z', 'P1M'), '2026-02-28T12:00:00.000Z');
    assert.equal(add('2028-02-29T00:00:00.000Z', 'P1Y'), '2029-02-28T00:00:00.000Z');
    assert.equal(add('2026-11-21T09:30:00.000Z', 'P90D'), '2027-02-19T09:30:00.000Z');
    assert.equal(add('2026-11-21T09:30:00.000Z', 'P1Y6M2W'), '2028-06-04T09:30:00.000Z');
    for (const bad of ['P', '2Y', 'P2', 'PT12H', 'P1YT1H', 'P0D', 'P-1Y', 'P1.5Y', 'p2y', 'P1000Y', 'P2Y ']) {
      assert.equal(parseDuration(bad).ok, false, bad);
    }
  });

  it('a template with an invalid validity is refused at ["validity"] with a clear message', async () => {
    const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
    for (const [validity, message] of [
      ['2 years', /ISO 8601 duration.*P2Y/],
      ['PT24H', /hours, minutes and seconds are not allowed/],
      ['P0Y', /longer than zero/],
    ] as const) {
      await assert.rejects(
        deps.services.templates.create(SYSTEM, tenant.accountId, { ...design, validity }),
        (err: { issues?: { path: unknown[]; message: string }[] }) => {
          const issue = err.issues?.find((i) => i.path.join('.') === 'validity');
          assert.ok(issue, JSON.stringify(err.issues));
          assert.match(issue.message, message);
          return true;
        },
      );
    }
  });
});

describe('expiresAt at issue', () => {
  it('the template validity sets expiresAt; it is printed on the PDF and is the credential validUntil', async () => {
    const c = await issueOk(validityTemplate, recipient(1));
    const expected = new Date(c.issuedAt);
    expected.setUTCFullYear(expected.getUTCFullYear() + 2);
    assert.equal(c.expiresAt, expected.toISOString());

    const read = await app.inject({ url: `/api/v1/certificates/${c.id}`, headers: tenant.auth });
    assert.equal(read.json().data.expiresAt, c.expiresAt);

    const pdf = await app.inject({ url: `/api/v1/certificates/${c.id}/pdf`, headers: tenant.auth });
    const printed = `${expected.getUTCDate()} ${expected.toLocaleString('en', { month: 'long', timeZone: 'UTC' })} ${expected.getUTCFullYear()}`;
    assert.match(pdfText(pdf.rawPayload), new RegExp(`Valid until ${printed}`));

    const credential = await app.inject({
      url: `/api/v1/certificates/${c.id}/credential`,
      headers: tenant.auth,
    });
    assert.equal(credential.statusCode, 200);
    assert.equal(credential.json().validUntil, c.expiresAt);
  });

  it("the recipient's expiresAt overrides the validity; without either there is none", async () => {
    const at = new Date(Date.now() + 30 * 86_400_000).toISOString();
    const own = await issueOk(validityTemplate, recipient(2, { expiresAt: at }));
    assert.equal(own.expiresAt, at);
    const offset = await issueOk(validityTemplate, recipient(3, { expiresAt: '2099-01-01T12:00:00+02:00' }));
    assert.equal(offset.expiresAt, '2099-01-01T10:00:00.000Z');

    const plain = await issueOk(tenant.templateId, recipient(4));
    assert.equal(plain.expiresAt, null);
    const credential = await app.inject({
      url: `/api/v1/certificates/${plain.id}/credential`,
      headers: tenant.auth,
    });
    assert.equal('validUntil' in credential.json(), false);
    assert.equal((await verify(plain.uniqueCode)).expiresAt, null);
  });

  it('422 at ["recipient","expiresAt"] for a past or malformed expiresAt; in a batch only that item fails', async () => {
    for (const bad of [
      new Date(Date.now() - 60_000).toISOString(),
      '2030-13-01T00:00:00Z',
      '2030-01-01',
      '2030-01-01T00:00:00',
      'tomorrow',
      12,
    ]) {
      const res = await issue({ templateId: validityTemplate, recipient: recipient(5, { expiresAt: bad }) });
      assert.equal(res.statusCode, 422, `${bad}: ${res.body}`);
      const paths = res.json().error.details.issues.map((i: { path: unknown[] }) => i.path);
      assert.deepEqual(paths, [['recipient', 'expiresAt']], String(bad));
    }
    const res = await issue({
      templateId: validityTemplate,
      recipients: [
        recipient(6),
        recipient(7, { expiresAt: new Date(Date.now() - 1000).toISOString() }),
        recipient(8, { expiresAt: 'not a date' }),
        recipient(9, { expiresAt: '2099-06-30T00:00:00.000Z' }),
      ],
    });
    assert.equal(res.statusCode, 201, res.body);
    const { created, failed, results } = res.json().data;
    assert.equal(created, 2);
    assert.equal(failed, 2);
    for (const i of [1, 2]) {
      assert.equal(results[i].error.code, 'validation_error');
      assert.deepEqual(results[i].error.details.issues[0].path, ['recipients', i, 'expiresAt']);
    }
    assert.match(results[1].error.details.issues[0].message, /after the issue time/);
    assert.equal(results[3].certificate.expiresAt, '2099-06-30T00:00:00.000Z');
    assert.notEqual(results[0].certificate.expiresAt, null);
  });
});

describe('verification and the list after expiry', () => {
  it('flips to expired at the instant of expiry: valid false, status Issued, the page says "Expired on"', async () => {
    const expiresAt = new Date(Date.now() + 10 * 86_400_000);
    expiresAt.setUTCMilliseconds(0);
    const c = await issueOk(validityTemplate, recipient(10, { expiresAt: expiresAt.toISOString() }));

    fixed = new Date(expiresAt.getTime() - 1);
    let v = await verify(c.uniqueCode);
    assert.deepEqual([v.valid, v.expired, v.status, v.expiresAt], [true, false, 'Issued', c.expiresAt]);
    let page = await app.inject({ url: `/verify/${c.uniqueCode}` });
    assert.match(page.body, /data-state="valid"/);
    assert.match(page.body, /Valid until/);

    fixed = expiresAt;
    v = await verify(c.uniqueCode);
    assert.deepEqual([v.valid, v.expired, v.status], [false, true, 'Issued']);
    page = await app.inject({ url: `/verify/${c.uniqueCode}` });
    assert.equal(page.statusCode, 200);
    const date = `${expiresAt.getUTCDate()} ${expiresAt.toLocaleString('en', { month: 'long', timeZone: 'UTC' })} ${expiresAt.getUTCFullYear()}`;
    assert.match(page.body, /data-state="expired"/);
    assert.match(page.body, new RegExp(`<h1>Expired on <time datetime="${c.expiresAt}">${date}</time></h1>`));
    assert.doesNotMatch(page.body, /Valid certificate/);

    const read = await app.inject({ url: `/api/v1/certificates/${c.id}`, headers: tenant.auth });
    assert.equal(read.json().data.status, 'Issued');
  });

  it('filters expired=true|false and expiresBefore, validated like the other filters', async () => {
    const other = await createTenant(deps, { name: 'Filter Academy' });
    const post = (r: Record<string, unknown>) =>
      app
        .inject({
          method: 'POST',
          url: '/api/v1/certificates',
          headers: other.auth,
          payload: { templateId: other.templateId, recipient: r },
        })
        .then((res) => res.json().data as { id: string });
    const day = 86_400_000;
    const soon = await post(recipient(20, { expiresAt: new Date(Date.now() + 2 * day).toISOString() }));
    const later = await post(recipient(21, { expiresAt: new Date(Date.now() + 20 * day).toISOString() }));
    const never = await post(recipient(22));
    const list = async (query: string) => {
      const res = await app.inject({ url: `/api/v1/certificates?${query}`, headers: other.auth });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.pagination.total, body.data.length);
      return body.data.map((c: { id: string }) => c.id).sort();
    };
    const ids = (...cs: { id: string }[]) => cs.map((c) => c.id).sort();

    assert.deepEqual(await list('expired=true'), []);
    assert.deepEqual(await list('expired=false'), ids(soon, later, never));
    offsetMs = 5 * day;
    assert.deepEqual(await list('expired=true'), ids(soon));
    assert.deepEqual(await list('expired=false'), ids(later, never));
    assert.deepEqual(await list('expired=false&status=Issued'), ids(later, never));
    const at = new Date(Date.now() + 10 * day).toISOString();
    assert.deepEqual(await list(`expiresBefore=${encodeURIComponent(at)}`), ids(soon));
    const far = new Date(Date.now() + 100 * day).toISOString();
    assert.deepEqual(await list(`expiresBefore=${encodeURIComponent(far)}`), ids(soon, later));
    assert.deepEqual(await list(`expiresBefore=${encodeURIComponent(far)}&expired=false`), ids(later));

    for (const [query, path] of [
      ['expired=yes', 'expired'],
      ['expired=1', 'expired'],
      ['expiresBefore=2026-13-01', 'expiresBefore'],
      ['expiresBefore=soon', 'expiresBefore'],
    ]) {
      const res = await app.inject({ url: `/api/v1/certificates?${query}`, headers: other.auth });
      assert.equal(res.statusCode, 422, query);
      assert.deepEqual(
        res.json().error.details.issues.map((i: { path: unknown[] }) => i.path),
        [[path]],
        query,
      );
    }
  });
});
