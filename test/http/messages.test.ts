import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import { readDesignFile } from '../../src/cli/design-file.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// Every 422 names the field and says, in plain words, what is allowed: never the validator's
// vocabulary ("schema", "anyOf", "must match", "must NOT").

const JARGON = /schema|anyOf|oneOf|allOf|must match|instancePath|must NOT/;

let t: TestApp;
let tenant: Tenant;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  tenant = await createTenant(t.deps);
});
after(() => t.close());

interface Issue {
  path: (string | number)[];
  message: string;
}

async function issuesOf(request: {
  method?: 'GET' | 'POST';
  url: string;
  payload?: object;
}): Promise<Issue[]> {
  const res = await t.app.inject({ method: request.method ?? 'GET', headers: tenant.auth, ...request });
  assert.equal(res.statusCode, 422, `${request.url}: ${res.body}`);
  const body = res.json() as { error: { message: string; details: { issues: Issue[] } } };
  assert.doesNotMatch(body.error.message, JARGON);
  return body.error.details.issues;
}

function plain(issues: Issue[]) {
  assert.ok(issues.length > 0);
  for (const issue of issues) {
    assert.doesNotMatch(issue.message, JARGON, JSON.stringify(issue));
  }
}

const issue = (recipient: object) => ({
  method: 'POST' as const,
  url: '/api/v1/certificates',
  payload: { templateId: tenant.templateId, recipient },
});

describe('422 messages in plain words', () => {
  it('an enum lists its allowed values', async () => {
    const issues = await issuesOf({ url: '/api/v1/certificates?status=revoked' });
    plain(issues);
    assert.deepEqual(issues, [{ path: ['status'], message: 'must be one of "Draft", "Issued", "Revoked"' }]);
  });

  it('a nested data value says which types are allowed', async () => {
    const issues = await issuesOf(
      issue({ name: 'Ada', email: 'ada@example.com', data: { course: { x: 1 } } }),
    );
    plain(issues);
    assert.deepEqual(issues[0], {
      path: ['recipient', 'data', 'course'],
      message: 'must be a string, a number, a boolean or an array',
    });
  });

  it('a data value of the right type but wrong inside or too long says what is wrong, where', async () => {
    const cases: [object, (string | number)[], string][] = [
      [{ course: 'x'.repeat(1001) }, ['recipient', 'data', 'course'], 'must be at most 1000 characters'],
      [
        { units: [{ name: { x: 1 } }] },
        ['recipient', 'data', 'units', 0, 'name'],
        'must be a string or a number',
      ],
      [
        { units: [{ name: 'x'.repeat(1001) }] },
        ['recipient', 'data', 'units', 0, 'name'],
        'must be at most 1000 characters',
      ],
      [{ units: ['Manual handling'] }, ['recipient', 'data', 'units', 0], 'must be an object'],
      [
        { units: Array(501).fill({ name: 'a' }) },
        ['recipient', 'data', 'units'],
        'must have at most 500 items',
      ],
    ];
    for (const [data, path, message] of cases) {
      const issues = await issuesOf(issue({ name: 'Ada', email: 'ada@example.com', data }));
      plain(issues);
      assert.deepEqual(issues, [{ path, message }]);
    }
  });

  it('a data key with a hyphen says what keys look like', async () => {
    const issues = await issuesOf(
      issue({ name: 'Ada', email: 'ada@example.com', data: { 'course-name': 'x' } }),
    );
    plain(issues);
    assert.equal(issues[0]!.path.join('.'), 'recipient.data.course-name');
    assert.match(
      issues[0]!.message,
      /is not an allowed key: keys must start with a letter and hold only letters, digits and _/,
    );
  });

  it('types, lengths, formats, ids and unknown fields', async () => {
    const cases: [object, (string | number)[], RegExp][] = [
      [{ name: 42, email: 'ada@example.com' }, ['recipient', 'name'], /^must be a string$/],
      [{ name: '', email: 'ada@example.com' }, ['recipient', 'name'], /^must not be empty$/],
      [{ name: 'Ada', email: 'not-an-address' }, ['recipient', 'email'], /^must be an email address$/],
      [
        { name: 'Ada', email: 'ada@example.com', colour: 'red' },
        ['recipient', 'colour'],
        /is not a known field \(known: name, email, data, expiresAt\)/,
      ],
    ];
    for (const [recipient, path, message] of cases) {
      const issues = await issuesOf(issue(recipient));
      plain(issues);
      const found = issues.find((i) => JSON.stringify(i.path) === JSON.stringify(path));
      assert.ok(found, `${JSON.stringify(path)} in ${JSON.stringify(issues)}`);
      assert.match(found.message, message);
    }
    const badId = await issuesOf({
      method: 'POST',
      url: '/api/v1/certificates',
      payload: { templateId: 'nope', recipient: { name: 'A', email: 'a@example.com' } },
    });
    plain(badId);
    assert.match(badId[0]!.message, /^must be a UUID/);
    plain(await issuesOf({ url: '/api/v1/certificates?perPage=500' }));
    plain(await issuesOf({ url: '/api/v1/certificates?createdAfter=yesterday' }));
  });

  it("a design's font and element type say what is allowed", async () => {
    const design = (await readDesignFile(DEMO_DESIGN.pathname)) as { elements: Record<string, unknown>[] };
    const text = design.elements.findIndex((e) => e.type === 'text');
    const elements = design.elements.map((e, i) => (i === text ? { ...e, font: 'comic' } : e));
    await assert.rejects(
      t.deps.services.templates.create(SYSTEM, tenant.accountId, { ...design, elements }),
      (err: { issues: Issue[] }) => {
        plain(err.issues);
        assert.ok(
          err.issues.some((i) => i.path.join('.') === `elements.${text}.font`),
          JSON.stringify(err.issues),
        );
        return true;
      },
    );
    const wrongType = design.elements.map((e, i) => (i === text ? { ...e, type: 'circle' } : e));
    await assert.rejects(
      t.deps.services.templates.create(SYSTEM, tenant.accountId, { ...design, elements: wrongType }),
      (err: { issues: Issue[] }) => {
        plain(err.issues);
        return true;
      },
    );
  });
});
