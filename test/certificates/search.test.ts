import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { searchFold } from '../../src/modules/certificates/search-fold.js';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { issue, recipient } from './support.js';

let t: TestApp;
let owner: Tenant;
let other: Tenant;
let secondTemplate: string;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  owner = await createTenant(t.deps);
  other = await createTenant(t.deps);
  const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Record<string, unknown>;
  secondTemplate = (
    await t.deps.services.templates.create(SYSTEM, owner.accountId, { ...design, name: 'Second' })
  ).id;
  const people = [
    ['Zoë Ångström', 'Zoe@Example.com'],
    ['Zoe Angstrom', 'zoe.a@example.com'],
    ['Łukasz Żółć', 'lukasz@example.com'],
    ['محمد علي', 'mohammed@example.com'],
    ['山田 太郎', 'taro@example.com'],
    ['Ada Lovelace', 'ada@example.com'],
  ];
  const res = await issue(t, owner, {
    templateId: owner.templateId,
    recipients: people.map(([name, email], i) => recipient(i, { name, email })),
  });
  assert.equal(res.json().data.created, people.length);
  // Same names in another account, and one from the second template.
  await issue(t, other, {
    templateId: other.templateId,
    recipients: people.map(([name, email], i) => recipient(i, { name, email })),
  });
  await issue(t, owner, {
    templateId: secondTemplate,
    recipient: recipient(9, { name: 'Ada Byron', email: 'ADA@example.com' }),
  });
  const revoked = await search(owner, 'q=lovelace');
  await t.app.inject({
    method: 'POST',
    url: `/api/v1/certificates/${revoked.data[0]!.id}/revoke`,
    headers: owner.auth,
  });
});
after(() => t.close());

interface Listed {
  data: { id: string; recipientName: string; recipientEmail: string; templateId: string; status: string }[];
  pagination: { page: number; perPage: number; total: number; totalPages: number };
}

async function search(tenant: Tenant, query: string): Promise<Listed> {
  const res = await t.app.inject({ url: `/api/v1/certificates?${query}`, headers: tenant.auth });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const names = (page: Listed) => page.data.map((c) => c.recipientName).sort();

describe('search on GET /certificates', () => {
  it('recipientEmail matches exactly, ignoring case, within the account', async () => {
    const page = await search(owner, `recipientEmail=${encodeURIComponent('ZOE@example.COM')}`);
    assert.deepEqual(names(page), ['Zoë Ångström']);
    assert.equal(page.pagination.total, 1);
    // Not a prefix or contains match.
    assert.equal((await search(owner, 'recipientEmail=zoe')).pagination.total, 0);
    assert.deepEqual(names(await search(owner, 'recipientEmail=ada@example.com')), [
      'Ada Byron',
      'Ada Lovelace',
    ]);
  });

  it('q finds names ignoring case and accents, as prefix or anywhere inside', async () => {
    assert.deepEqual(names(await search(owner, 'q=zoe')), ['Zoe Angstrom', 'Zoë Ångström']);
    assert.deepEqual(names(await search(owner, 'q=ÅNGSTRÖM')), ['Zoe Angstrom', 'Zoë Ångström']);
    assert.deepEqual(names(await search(owner, `q=${encodeURIComponent('lukasz zolc')}`)), ['Łukasz Żółć']);
    assert.deepEqual(names(await search(owner, 'q=velac')), ['Ada Lovelace']);
  });

  it('q works in non-Latin scripts', async () => {
    assert.deepEqual(names(await search(owner, `q=${encodeURIComponent('علي')}`)), ['محمد علي']);
    assert.deepEqual(names(await search(owner, `q=${encodeURIComponent('太郎')}`)), ['山田 太郎']);
  });

  it('LIKE wildcards in q are plain characters', async () => {
    assert.equal((await search(owner, 'q=%25')).pagination.total, 0);
    assert.equal((await search(owner, 'q=_')).pagination.total, 0);
  });

  it('templateId, status and paging combine with the other filters', async () => {
    assert.deepEqual(names(await search(owner, `templateId=${secondTemplate}`)), ['Ada Byron']);
    assert.deepEqual(names(await search(owner, `templateId=${owner.templateId}&q=ada`)), ['Ada Lovelace']);
    assert.deepEqual(names(await search(owner, 'q=ada&status=Revoked')), ['Ada Lovelace']);
    assert.deepEqual(names(await search(owner, 'q=ada&status=Issued')), ['Ada Byron']);

    const first = await search(owner, 'q=zoe&perPage=1&page=1');
    const second = await search(owner, 'q=zoe&perPage=1&page=2');
    assert.deepEqual(first.pagination, { page: 1, perPage: 1, total: 2, totalPages: 2 });
    assert.equal(second.data.length, 1);
    assert.notEqual(first.data[0]!.id, second.data[0]!.id);
  });

  it("never shows another account's certificates", async () => {
    const mine = await search(owner, 'q=a');
    const theirs = await search(other, 'q=a');
    const mineIds = new Set(mine.data.map((c) => c.id));
    assert.ok(theirs.data.length > 0);
    assert.ok(theirs.data.every((c) => !mineIds.has(c.id)));
    assert.equal((await search(other, `templateId=${secondTemplate}`)).pagination.total, 0);
  });

  it('refuses malformed filters with 422 at their name, ignores unknown parameters', async () => {
    for (const [query, path] of [
      ['templateId=nope', 'templateId'],
      ['q=', 'q'],
      [`q=${'x'.repeat(201)}`, 'q'],
      ['recipientEmail=', 'recipientEmail'],
    ] as const) {
      const res = await t.app.inject({ url: `/api/v1/certificates?${query}`, headers: owner.auth });
      assert.equal(res.statusCode, 422, query);
      assert.deepEqual(res.json().error.details.issues[0].path, [path], query);
    }
    assert.equal((await search(owner, 'recipientEmail=zoe@example.com&colour=blue')).pagination.total, 1);
  });
});

describe('searchFold', () => {
  it('folds case and Latin, Greek and Cyrillic accents, keeps the marks of other scripts', () => {
    assert.equal(searchFold('Zoë ÅNGSTRÖM'), 'zoe angstrom');
    assert.equal(searchFold('Nguyễn Thị Đức'), 'nguyen thi duc');
    assert.equal(searchFold('Ελένη'), 'ελενη');
    assert.equal(searchFold('Straße Søren Æsir'), 'strasse soren aesir');
    assert.equal(searchFold('प्रिया'), 'प्रिया');
    assert.equal(searchFold('김민준'), '김민준');
  });
});
