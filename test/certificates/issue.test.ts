import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import {
  certificateCount,
  CROCKFORD_16,
  firstOfNextMonthUtc,
  ISO_MS_Z,
  issue,
  issueOne,
  recipient,
  recipients,
  usageOf,
  type BatchItem,
  usedInDb,
} from './support.js';

const CERTIFICATE_FIELDS = [
  'id',
  'uniqueCode',
  'templateId',
  'recipientName',
  'recipientEmail',
  'title',
  'data',
  'status',
  'verificationUrl',
  'issuedAt',
  'expiresAt',
  'revokedAt',
  'revocationReason',
  'downloadCount',
  'emailCount',
  'verificationCount',
  'createdAt',
].sort();

let t: TestApp;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
});
after(() => t.close());

// Asserts that a request is refused and that it leaves the account as it was.
async function assertRefusedWithoutEffect(
  tenant: Tenant,
  send: () => Promise<{
    statusCode: number;
    json(): { error: { code: string; details?: { issues?: { path: unknown }[] } } };
    body: string;
  }>,
  expected: { status: number; code: string; path?: (string | number)[] },
  label: string,
) {
  const before = {
    used: await usedInDb(t, tenant.accountId),
    count: await certificateCount(t, tenant.accountId),
  };
  const res = await send();
  assert.equal(res.statusCode, expected.status, `${label}: ${res.body}`);
  const error = res.json().error;
  assert.equal(error.code, expected.code, label);
  if (expected.path) {
    const paths = (error.details?.issues ?? []).map((i: { path: unknown }) => JSON.stringify(i.path));
    assert.ok(
      paths.includes(JSON.stringify(expected.path)),
      `${label}: expected issue at ${JSON.stringify(expected.path)}, got ${paths}`,
    );
  }
  assert.equal(await usedInDb(t, tenant.accountId), before.used, `${label}: quota used`);
  assert.equal(await certificateCount(t, tenant.accountId), before.count, `${label}: certificate created`);
}

function rawPost(tenant: Tenant, payload: string | Buffer, contentType = 'application/json') {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/certificates',
    headers: { ...tenant.auth, 'content-type': contentType },
    payload,
  });
}

describe('POST /certificates, single mode', () => {
  it('201 with exactly the Certificate fields, counters 0, status Issued', async () => {
    const tenant = await createTenant(t.deps);
    const input = recipient(1, {
      name: '  Ada Lovelace  ',
      email: 'ada@example.com',
      data: { course: 'Engines', hours: 12, honours: true },
    });
    const res = await issue(t, tenant, { templateId: tenant.templateId, recipient: input });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body), ['data']);
    const c = body.data;
    assert.deepEqual(Object.keys(c).sort(), CERTIFICATE_FIELDS);
    assert.match(c.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(c.uniqueCode, CROCKFORD_16);
    assert.equal(c.templateId, tenant.templateId);
    assert.equal(c.recipientName, 'Ada Lovelace', 'the name is trimmed');
    assert.equal(c.recipientEmail, 'ada@example.com');
    assert.deepEqual(
      c.data,
      { course: 'Engines', hours: 12, honours: true },
      'keys the design does not use are kept',
    );
    assert.equal(c.status, 'Issued');
    assert.equal(c.verificationUrl, `http://certs.test/verify/${c.uniqueCode}`);
    assert.match(c.issuedAt, ISO_MS_Z);
    assert.match(c.createdAt, ISO_MS_Z);
    assert.equal(c.revokedAt, null);
    assert.equal(c.revocationReason, null);
    assert.equal(c.downloadCount, 0);
    assert.equal(c.emailCount, 0);
    assert.equal(c.verificationCount, 0);
    assert.equal((await usageOf(t, tenant)).used, 1);
    const read = await t.app.inject({ url: `/api/v1/certificates/${c.id}`, headers: tenant.auth });
    assert.deepEqual(read.json().data, c, 'the stored certificate reads back the same');
  });

  it('each certificate gets its own unique code', async () => {
    const tenant = await createTenant(t.deps);
    const res = await issue(t, tenant, { templateId: tenant.templateId, recipients: recipients(20) });
    const codes = res.json().data.results.map((r: BatchItem) => r.certificate!.uniqueCode);
    assert.equal(new Set(codes).size, 20);
    for (const code of codes) assert.match(code, CROCKFORD_16);
  });

  it('a name of 200 characters after trimming is accepted', async () => {
    const tenant = await createTenant(t.deps);
    const name = 'A'.repeat(200);
    const c = await issueOne(t, tenant, recipient(0, { name: `   ${name}   ` }));
    assert.equal(c.recipientName, name);
  });
});

describe('POST /certificates, whole-request 422', () => {
  it('body not an object', async () => {
    const tenant = await createTenant(t.deps);
    for (const payload of ['[]', '"x"', '5', 'null', 'true']) {
      await assertRefusedWithoutEffect(
        tenant,
        () => rawPost(tenant, payload),
        { status: 422, code: 'validation_error', path: [] },
        payload,
      );
    }
  });

  it('unknown top-level fields, at their path', async () => {
    const tenant = await createTenant(t.deps);
    for (const field of ['recipientName', 'recipientEmail', 'dataJson']) {
      await assertRefusedWithoutEffect(
        tenant,
        () => issue(t, tenant, { templateId: tenant.templateId, recipient: recipient(), [field]: 'x' }),
        { status: 422, code: 'validation_error', path: [field] },
        field,
      );
    }
  });

  it('neither or both of recipient and recipients', async () => {
    const tenant = await createTenant(t.deps);
    await assertRefusedWithoutEffect(
      tenant,
      () => issue(t, tenant, { templateId: tenant.templateId }),
      { status: 422, code: 'validation_error' },
      'neither',
    );
    await assertRefusedWithoutEffect(
      tenant,
      () =>
        issue(t, tenant, {
          templateId: tenant.templateId,
          recipient: recipient(),
          recipients: [recipient(1)],
        }),
      { status: 422, code: 'validation_error' },
      'both',
    );
  });

  it('templateId missing or not a UUID', async () => {
    const tenant = await createTenant(t.deps);
    for (const [label, body] of [
      ['missing', { recipient: recipient() }],
      ['not a uuid', { templateId: 'course-completion', recipient: recipient() }],
      ['a number', { templateId: 42, recipient: recipient() }],
      ['uuid missing a digit', { templateId: tenant.templateId.slice(0, -1), recipient: recipient() }],
    ] as const) {
      await assertRefusedWithoutEffect(
        tenant,
        () => issue(t, tenant, body),
        { status: 422, code: 'validation_error', path: ['templateId'] },
        label,
      );
    }
  });

  it('recipients not an array, empty or over 500', async () => {
    const tenant = await createTenant(t.deps);
    for (const [label, value] of [
      ['object', { name: 'A', email: 'a@example.com' }],
      ['string', 'everyone'],
      ['empty', []],
      ['501 items', recipients(501)],
    ] as const) {
      await assertRefusedWithoutEffect(
        tenant,
        () => issue(t, tenant, { templateId: tenant.templateId, recipients: value }),
        { status: 422, code: 'validation_error', path: ['recipients'] },
        label,
      );
    }
  });

  it('malformed JSON and a body that is not JSON: 422 at path []', async () => {
    const tenant = await createTenant(t.deps);
    await assertRefusedWithoutEffect(
      tenant,
      () => rawPost(tenant, '{"templateId": '),
      { status: 422, code: 'validation_error', path: [] },
      'malformed',
    );
    const valid = JSON.stringify({ templateId: tenant.templateId, recipient: recipient() });
    await assertRefusedWithoutEffect(
      tenant,
      () => rawPost(tenant, valid, 'text/plain'),
      { status: 422, code: 'validation_error', path: [] },
      'text/plain',
    );
  });

  it('a body over 2 MiB: 413 payload_too_large', async () => {
    const tenant = await createTenant(t.deps);
    const big = JSON.stringify({
      templateId: tenant.templateId,
      recipient: recipient(0, { data: { course: 'x', padding: 'p'.repeat(2 * 1024 * 1024) } }),
    });
    await assertRefusedWithoutEffect(
      tenant,
      () => rawPost(tenant, big),
      { status: 413, code: 'payload_too_large' },
      'big body',
    );
  });

  it('unknown, foreign or archived template: 404', async () => {
    const tenant = await createTenant(t.deps);
    const other = await createTenant(t.deps);
    const archived = await t.deps.services.templates.create(SYSTEM, tenant.accountId, await loadDesign());
    await t.deps.services.templates.archive(SYSTEM, archived.id);
    for (const [label, templateId] of [
      ['unknown', '0190a0b0-0000-7000-8000-000000000000'],
      ['foreign', other.templateId],
      ['archived', archived.id],
    ] as const) {
      await assertRefusedWithoutEffect(
        tenant,
        () => issue(t, tenant, { templateId, recipient: recipient() }),
        { status: 404, code: 'not_found' },
        label,
      );
      await assertRefusedWithoutEffect(
        tenant,
        () => issue(t, tenant, { templateId, recipients: recipients(2) }),
        { status: 404, code: 'not_found' },
        `${label} batch`,
      );
    }
    // The template ids are accepted in any case, and the live one still works.
    await issueOne(t, tenant);
    const upper = await issue(t, tenant, {
      templateId: tenant.templateId.toUpperCase(),
      recipient: recipient(),
    });
    assert.equal(upper.statusCode, 201);
  });
});

async function loadDesign(): Promise<unknown> {
  const { readDesignFile } = await import('../../src/cli/design-file.js');
  const { DEMO_DESIGN } = await import('../../src/cli/demo.js');
  return readDesignFile(DEMO_DESIGN.pathname);
}

describe('POST /certificates, single-mode recipient issues', () => {
  const cases: [string, Record<string, unknown>, (string | number)[]][] = [
    ['bad email', recipient(0, { email: 'not-an-email' }), ['recipient', 'email']],
    ['email missing', { name: 'Ada', data: { course: 'x' } }, ['recipient', 'email']],
    [
      'email of 255 chars',
      recipient(0, { email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com` }),
      ['recipient', 'email'],
    ],
    ['name missing', { email: 'a@example.com', data: { course: 'x' } }, ['recipient', 'name']],
    ['empty name', recipient(0, { name: '' }), ['recipient', 'name']],
    ['name of spaces', recipient(0, { name: '    ' }), ['recipient', 'name']],
    ['name of 201 chars after trim', recipient(0, { name: ` ${'B'.repeat(201)} ` }), ['recipient', 'name']],
    ['name not a string', recipient(0, { name: 42 }), ['recipient', 'name']],
    ['unknown recipient field', recipient(0, { phone: '+1 555' }), ['recipient', 'phone']],
    [
      'data with 51 keys',
      recipient(0, {
        data: Object.fromEntries([['course', 'x'], ...Array.from({ length: 50 }, (_, i) => [`k${i}`, i])]),
      }),
      ['recipient', 'data'],
    ],
    ['data key 1abc', recipient(0, { data: { course: 'x', '1abc': 'v' } }), ['recipient', 'data', '1abc']],
    ['data key a-b', recipient(0, { data: { course: 'x', 'a-b': 'v' } }), ['recipient', 'data', 'a-b']],
    [
      'nested object value',
      recipient(0, { data: { course: { title: 'x' } } }),
      ['recipient', 'data', 'course'],
    ],
    // A list's items are objects (decisions 24): the path names the item that is not one.
    ['array value', recipient(0, { data: { course: 'x', tags: ['a'] } }), ['recipient', 'data', 'tags', 0]],
    ['null value', recipient(0, { data: { course: 'x', hours: null } }), ['recipient', 'data', 'hours']],
    [
      'string value of 1001 chars',
      recipient(0, { data: { course: 'c'.repeat(1001) } }),
      ['recipient', 'data', 'course'],
    ],
    [
      'missing required template field',
      recipient(0, { data: { hours: 3 } }),
      ['recipient', 'data', 'course'],
    ],
    [
      'no data at all (course is required)',
      { name: 'Ada', email: 'a@example.com' },
      ['recipient', 'data', 'course'],
    ],
    ['recipient not an object', 'Ada' as unknown as Record<string, unknown>, ['recipient']],
  ];

  it('each is a 422 at the field, with no certificate and no quota', async () => {
    const tenant = await createTenant(t.deps);
    for (const [label, r, path] of cases) {
      await assertRefusedWithoutEffect(
        tenant,
        () => issue(t, tenant, { templateId: tenant.templateId, recipient: r }),
        { status: 422, code: 'validation_error', path },
        label,
      );
    }
  });

  it('the boundaries themselves are accepted: 50 keys, 1000-char value, 64-char key', async () => {
    const tenant = await createTenant(t.deps);
    const data: Record<string, unknown> = { course: 'c'.repeat(1000) };
    for (let i = 0; Object.keys(data).length < 49; i++) data[`k${i}`] = i % 2 ? true : 1.5;
    data[`K${'_'.repeat(63)}`] = 'long key';
    assert.equal(Object.keys(data).length, 50);
    const c = await issueOne(t, tenant, recipient(0, { data }));
    assert.deepEqual(c.data, data);
  });

  it('a name that the fonts cannot render: 422 at ["recipient","name"], no certificate, no quota', async () => {
    const tenant = await createTenant(t.deps);
    for (const name of ['ኃይሌ ገብረሥላሴ', 'Ada 🎓 Lovelace']) {
      await assertRefusedWithoutEffect(
        tenant,
        () => issue(t, tenant, { templateId: tenant.templateId, recipient: recipient(0, { name }) }),
        { status: 422, code: 'validation_error', path: ['recipient', 'name'] },
        name,
      );
    }
    assert.equal((await usageOf(t, tenant)).used, 0);
  });
});

describe('POST /certificates, quota', () => {
  it('single mode: the (N+1)th is 402 quota_exceeded with remaining, limit and resetAt', async () => {
    const tenant = await createTenant(t.deps, { monthlyLimit: 3 });
    for (let i = 0; i < 3; i++) await issueOne(t, tenant, recipient(i));
    const res = await issue(t, tenant, { templateId: tenant.templateId, recipient: recipient(9) });
    assert.equal(res.statusCode, 402, res.body);
    assert.deepEqual(res.json().error.details, { remaining: 0, limit: 3, resetAt: firstOfNextMonthUtc() });
    assert.equal(res.json().error.code, 'quota_exceeded');
    assert.equal(await certificateCount(t, tenant.accountId), 3);
    assert.deepEqual(await usageOf(t, tenant), {
      limit: 3,
      used: 3,
      remaining: 0,
      resetAt: firstOfNextMonthUtc(),
    });
  });

  it('batch: quota 5 with 2 used, six recipients with one bad email: created 3, failed 3 in the right places', async () => {
    const tenant = await createTenant(t.deps, { monthlyLimit: 5 });
    await issueOne(t, tenant, recipient(100));
    await issueOne(t, tenant, recipient(101));
    const batch = recipients(6);
    batch[1] = recipient(1, { email: 'not an email' });
    const res = await issue(t, tenant, { templateId: tenant.templateId, recipients: batch });
    assert.equal(res.statusCode, 201, res.body);
    const { created, failed, results } = res.json().data;
    assert.equal(created, 3);
    assert.equal(failed, 3);
    assert.deepEqual(
      results.map((r: BatchItem) => [r.index, r.status, r.error?.code ?? null]),
      [
        [0, 'created', null],
        [1, 'failed', 'validation_error'],
        [2, 'created', null],
        [3, 'created', null],
        [4, 'failed', 'quota_exceeded'],
        [5, 'failed', 'quota_exceeded'],
      ],
    );
    for (const i of [0, 2, 3]) {
      assert.equal(results[i].certificate.recipientName, `Recipient ${i}`);
      assert.deepEqual(Object.keys(results[i].certificate).sort(), CERTIFICATE_FIELDS);
    }
    const issues = results[1].error.details.issues;
    assert.ok(issues.length > 0);
    for (const issue of issues) assert.deepEqual(issue.path.slice(0, 2), ['recipients', 1]);
    assert.deepEqual(issues[0].path, ['recipients', 1, 'email']);
    assert.equal((await usageOf(t, tenant)).used, 5);
    assert.equal(await certificateCount(t, tenant.accountId), 5);
  });

  it('batch: invalid recipients never use quota, and all failing is still 201 (never 402)', async () => {
    const tenant = await createTenant(t.deps, { monthlyLimit: 2 });
    const invalid = [recipient(0, { email: 'x' }), recipient(1, { name: ' ' }), recipient(2, { data: {} })];
    const res = await issue(t, tenant, { templateId: tenant.templateId, recipients: invalid });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.json().data.created, 0);
    assert.deepEqual(res.json().data.failed, 3);
    assert.deepEqual(
      res.json().data.results.map((r: BatchItem) => r.error!.details.issues[0]!.path),
      [
        ['recipients', 0, 'email'],
        ['recipients', 1, 'name'],
        ['recipients', 2, 'data', 'course'],
      ],
    );
    assert.equal(await usedInDb(t, tenant.accountId), 0);

    // Invalid ones ahead of valid ones do not take their quota.
    const mixed = await issue(t, tenant, {
      templateId: tenant.templateId,
      recipients: [recipient(0, { email: 'x' }), recipient(1, { email: 'y' }), recipient(2), recipient(3)],
    });
    assert.deepEqual(
      mixed.json().data.results.map((r: BatchItem) => r.status),
      ['failed', 'failed', 'created', 'created'],
    );

    // Quota exhausted: every recipient fails with quota_exceeded, still 201.
    const full = await issue(t, tenant, { templateId: tenant.templateId, recipients: recipients(3) });
    assert.equal(full.statusCode, 201, full.body);
    assert.equal(full.json().data.created, 0);
    assert.deepEqual(
      full.json().data.results.map((r: BatchItem) => [r.index, r.status, r.error!.code]),
      [
        [0, 'failed', 'quota_exceeded'],
        [1, 'failed', 'quota_exceeded'],
        [2, 'failed', 'quota_exceeded'],
      ],
    );
    assert.equal(await usedInDb(t, tenant.accountId), 2);
    assert.equal(await certificateCount(t, tenant.accountId), 2);
  });

  it('batch: an unrenderable name fails only that recipient, without quota', async () => {
    const tenant = await createTenant(t.deps, { monthlyLimit: 10 });
    const batch = [
      recipient(0),
      recipient(1, { name: 'Ada 🎓 Lovelace' }),
      recipient(2),
      recipient(3, { name: '🎓' }),
    ];
    const res = await issue(t, tenant, { templateId: tenant.templateId, recipients: batch });
    assert.equal(res.statusCode, 201, res.body);
    const { created, failed, results } = res.json().data;
    assert.equal(created, 2);
    assert.equal(failed, 2);
    assert.deepEqual(
      results.map((r: BatchItem) => r.status),
      ['created', 'failed', 'created', 'failed'],
    );
    assert.equal(results[1].error.code, 'validation_error');
    assert.deepEqual(results[1].error.details.issues[0].path, ['recipients', 1, 'name']);
    assert.deepEqual(results[3].error.details.issues[0].path, ['recipients', 3, 'name']);
    assert.equal(await usedInDb(t, tenant.accountId), 2);
    assert.equal(await certificateCount(t, tenant.accountId), 2);
  });

  it('batch: an unrenderable name within the quota leaves room for the next valid recipient', async () => {
    const tenant = await createTenant(t.deps, { monthlyLimit: 2 });
    const batch = [recipient(0), recipient(1, { name: 'Ada 🎓 Lovelace' }), recipient(2), recipient(3)];
    const res = await issue(t, tenant, { templateId: tenant.templateId, recipients: batch });
    assert.deepEqual(
      res.json().data.results.map((r: BatchItem) => r.error?.code ?? r.status),
      ['created', 'validation_error', 'created', 'quota_exceeded'],
    );
  });

  it('a batch counts as one request against the rate limit', async () => {
    const limited = await startTestApp();
    try {
      const tenant = await createTenant(limited.deps);
      const first = await limited.app.inject({ url: '/api/v1/usage', headers: tenant.auth });
      const remaining = Number(first.headers['x-ratelimit-remaining']);
      assert.equal(Number(first.headers['x-ratelimit-limit']), 60);
      const res = await limited.app.inject({
        method: 'POST',
        url: '/api/v1/certificates',
        headers: tenant.auth,
        payload: { templateId: tenant.templateId, recipients: recipients(25) },
      });
      assert.equal(res.statusCode, 201);
      assert.equal(res.json().data.created, 25);
      assert.equal(Number(res.headers['x-ratelimit-remaining']), remaining - 1);
    } finally {
      await limited.close();
    }
  });
});

describe('POST /certificates, partner accounts', () => {
  it('a Free account with an active contract issues without a limit, and usage counts it', async () => {
    const tenant = await createTenant(t.deps, { plan: 'Free' });
    const refused = await issue(t, tenant, { templateId: tenant.templateId, recipient: recipient() });
    assert.equal(refused.statusCode, 403, 'not entitled before the contract');
    await t.deps.services.contracts.create({ accountId: tenant.accountId });
    await issueOne(t, tenant);
    const batch = await issue(t, tenant, { templateId: tenant.templateId, recipients: recipients(60) });
    assert.equal(
      batch.json().data.created,
      60,
      'more than the Free plan allows in one go is fine: the quota is contractual',
    );
    const usage = await t.app.inject({ url: '/api/v1/usage', headers: tenant.auth });
    assert.equal(usage.json().data.tier, 'Free');
    assert.deepEqual(usage.json().data.certificates, {
      limit: null,
      used: 61,
      remaining: null,
      resetAt: firstOfNextMonthUtc(),
    });
  });
});
