import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { SYSTEM } from '../../src/platform/principal.js';
import { issueCertificate } from '../helpers/app.js';
import { browserSkipReason } from '../helpers/browser.js';
import {
  createUser,
  DESKTOP,
  newPage,
  PHONE,
  shot,
  signIn,
  startDashboard,
  type DashboardEnv,
} from './support.js';

const skip = browserSkipReason();

// 20 rows: Latin, Arabic, Devanagari and Cyrillic names; row 6 has no valid email, row 14 lacks the
// required course. Semicolons and a byte-order mark, as a spreadsheet in a comma-decimal locale writes.
function csv20(): string {
  const names = ['Zoë Ångström', 'مريم الحسيني', 'अनन्या शर्मा', 'Ольга Петрова'];
  const lines = ['name;email;course;hours'];
  for (let i = 1; i <= 20; i++) {
    const email = i === 5 ? 'not-an-address' : `learner${i}@example.com`;
    const course = i === 13 ? '' : 'Safe Lifting';
    lines.push(`${names[i % names.length]} ${i};${email};${course};${i}`);
  }
  return '\uFEFF' + lines.join('\r\n') + '\r\n';
}

describe('dashboard: templates and certificates (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('issues 18 certificates from a CSV of 20 rows and reports the two bad rows with their reasons', async () => {
    const user = await createUser(env, { name: 'أكاديمية بابيج' });
    const page = await newPage(env);
    await signIn(env, page, user);
    await page.goto(`${env.base}/dashboard/certificates/upload`);
    await Promise.all([page.waitForURL(/templateId=/), page.click('text=Choose')]);
    assert.equal((await page.textContent('#csv-header'))?.trim(), 'name,email,course,hours');
    await shot(page, 'upload-desktop');
    await page.setInputFiles('input[name=file]', {
      name: 'learners.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv20()),
    });
    await Promise.all([
      page.waitForURL(/upload\/results\/[0-9a-f-]{36}$/),
      page.click('text=Upload and issue'),
    ]);
    const resultsUrl = page.url();
    assert.equal(await page.textContent('#created-count'), '18');
    assert.equal(await page.textContent('#failed-count'), '2');
    const failed = await page.$$eval('tr.failed', (rows) =>
      rows.map((r) => [r.getAttribute('data-row'), r.querySelector('.reason')?.textContent]),
    );
    assert.equal(failed.length, 2);
    assert.equal(failed[0]![0], '6');
    assert.match(failed[0]![1] ?? '', /^email: /);
    assert.equal(failed[1]![0], '14');
    assert.match(failed[1]![1] ?? '', /^course: is required/);
    assert.equal(await page.$$eval('tr.created a', (links) => links.length), 18);
    await shot(page, 'upload-results-desktop');

    const list = await env.t.deps.services.certificates.list(user.tenant.accountId, { perPage: 100 });
    assert.equal(list.pagination.total, 18);
    const usage = await env.t.deps.services.usage.get(
      await env.t.deps.services.accounts.actingPrincipal(user.tenant.accountId, 'test', SYSTEM),
    );
    assert.equal(usage.certificates.used, 18);

    const download = await Promise.all([
      page.waitForEvent('download'),
      page.click('text=Download the results (CSV)'),
    ]);
    const text = (await readFile((await download[0].path())!, 'utf8')).replace(/^\uFEFF/, '');
    const lines = text.trim().split(/\r?\n/);
    assert.equal(lines.length, 21);
    assert.match(lines[0]!, /^row,name,email,status,certificate_id,unique_code,verification_url,reason$/);
    assert.match(lines[5]!, /^6,.*,not-an-address,failed,,,,"?email: /);
    assert.match(lines[1]!, /^2,مريم الحسيني 1,learner1@example.com,created,[0-9a-f-]{36},[0-9A-Z]{16},http/);

    // Reloading the results page shows them again and issues nothing more.
    await page.reload();
    assert.equal(
      (await env.t.deps.services.certificates.list(user.tenant.accountId, {})).pagination.total,
      18,
    );

    await page.goto(`${env.base}/dashboard/certificates?status=Issued`);
    assert.match((await page.textContent('#total'))?.trim() ?? '', /^18 certificates/);
    assert.equal(await page.$$eval('#certificates tbody tr', (r) => r.length), 18);
    assert.equal(
      await page.getAttribute('#certificates tbody tr bdi', 'dir'),
      null,
      'bdi isolates without an attribute',
    );
    await shot(page, 'certificates-desktop');
    await page.setViewportSize(PHONE);
    await shot(page, 'certificates-phone');
    await page.goto(resultsUrl);
    await shot(page, 'upload-results-phone');
    await page.setViewportSize(DESKTOP);
    await page.context().close();
  });

  it('issues one from the form, then views, sends and revokes it on its page', async () => {
    const user = await createUser(env);
    const page = await newPage(env);
    await signIn(env, page, user);
    await page.goto(`${env.base}/dashboard/certificates/new?templateId=${user.tenant.templateId}`);
    assert.equal(await page.getAttribute('input[name="data.course"]', 'required'), '');
    assert.equal(await page.getAttribute('input[name="data.hours"]', 'required'), null);
    // A name of spaces passes the browser's check but not the service's: the form comes back with
    // the field's message and the values typed, and nothing is issued.
    await page.fill('input[name=name]', '   ');
    await page.fill('input[name=email]', 'ada@example.com');
    await page.fill('input[name="data.course"]', 'Analytical Engines');
    await page.click('button[type=submit]:has-text("Issue the certificate")');
    assert.ok(await page.textContent('#name-error'));
    assert.equal(await page.inputValue('input[name="data.course"]'), 'Analytical Engines');
    assert.equal(
      (await env.t.deps.services.certificates.list(user.tenant.accountId, {})).pagination.total,
      0,
    );
    await shot(page, 'issue-one-desktop');
    await page.fill('input[name=name]', 'Ada Lovelace');
    await Promise.all([
      page.waitForURL(/certificates\/[0-9a-f-]{36}$/),
      page.click('button[type=submit]:has-text("Issue the certificate")'),
    ]);
    const id = page.url().split('/').pop()!;
    assert.match((await page.textContent('.notice.ok')) ?? '', /issued/);
    assert.match(
      (await page.textContent('#verification-url')) ?? '',
      /^http:\/\/certs\.test\/verify\/[0-9A-Z]{16}$/,
    );

    const pdf = await page.request.get(`${env.base}/dashboard/certificates/${id}/pdf?download=1`);
    assert.equal(pdf.status(), 200);
    assert.equal(pdf.headers()['content-type'], 'application/pdf');
    assert.equal((await pdf.body()).subarray(0, 5).toString(), '%PDF-');

    await page.fill('input[name=recipientEmail]', 'other@example.com');
    await Promise.all([page.waitForNavigation(), page.click('button:has-text("Send by email")')]);
    assert.match((await page.textContent('.notice.ok')) ?? '', /other@example.com/);
    assert.match((await page.textContent('#send-history')) ?? '', /other@example.com/);
    assert.equal(await page.textContent('#email-count'), '1');
    assert.equal(await page.textContent('#download-count'), '1');
    await shot(page, 'certificate-desktop');

    await page.fill('textarea[name=reason]', 'Issued to the wrong person');
    await page.check('input[name=confirm]');
    await Promise.all([page.waitForNavigation(), page.click('text=Revoke the certificate')]);
    assert.match((await page.textContent('#status')) ?? '', /Revoked/);
    const api = await fetch(`${env.base}/api/v1/certificates/${id}`, { headers: user.tenant.auth });
    const body = (await api.json()) as {
      data: { status: string; revocationReason: string; emailCount: number };
    };
    assert.equal(body.data.status, 'Revoked');
    assert.equal(body.data.revocationReason, 'Issued to the wrong person');
    assert.equal(body.data.emailCount, 1);
    await page.setViewportSize(PHONE);
    await shot(page, 'certificate-phone');
    await page.goto(`${env.base}/dashboard/certificates/new?templateId=${user.tenant.templateId}`);
    await shot(page, 'issue-one-phone');
    await page.goto(`${env.base}/dashboard/certificates/upload?templateId=${user.tenant.templateId}`);
    await shot(page, 'upload-phone');
    await page.context().close();
  });

  it("answers another account's certificate with the 404 page, and lists templates with a preview", async () => {
    const owner = await createUser(env);
    const foreign = await issueCertificate(env.t.app, owner.tenant);
    const user = await createUser(env);
    const page = await newPage(env);
    await signIn(env, page, user);
    for (const path of [
      `/dashboard/certificates/${foreign.id}`,
      `/dashboard/certificates/${foreign.id}/pdf`,
      `/dashboard/templates/${owner.tenant.templateId}/preview.pdf`,
    ]) {
      const res = await page.goto(`${env.base}${path}`);
      assert.equal(res?.status(), 404, path);
      assert.match((await page.textContent('h1')) ?? '', /Not found/);
    }
    await shot(page, 'not-found-desktop');
    await page.setViewportSize(PHONE);
    await shot(page, 'not-found-phone');
    await page.setViewportSize(DESKTOP);
    const before = await env.t.deps.services.certificates.get(owner.tenant.accountId, foreign.id);
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    await page.goto(`${env.base}/dashboard/certificates`);
    const csrf = await page.getAttribute('form[action="/dashboard/sign-out"] input[name=_csrf]', 'value');
    const res = await fetch(`${env.base}/dashboard/certificates/${foreign.id}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: `_csrf=${encodeURIComponent(csrf!)}&confirm=yes`,
      redirect: 'manual',
    });
    assert.equal(res.status, 404);
    assert.deepEqual(await env.t.deps.services.certificates.get(owner.tenant.accountId, foreign.id), before);

    await page.goto(`${env.base}/dashboard/templates`);
    const preview = await page.getAttribute('iframe.preview', 'src');
    const pdf = await page.request.get(`${env.base}${preview!.split('#')[0]}`);
    assert.equal(pdf.status(), 200);
    assert.equal((await pdf.body()).subarray(0, 5).toString(), '%PDF-');
    assert.match((await page.textContent('article')) ?? '', /Course title/);
    await shot(page, 'templates-desktop');
    await page.setViewportSize(PHONE);
    await shot(page, 'templates-phone');
    await page.context().close();
  });

  it('searches by recipient name (any case and accents) or by email address, with the status filter', async () => {
    const user = await createUser(env);
    const zoe = await issueCertificate(env.t.app, user.tenant, {
      name: 'Zoë Ångström',
      email: 'zoe@example.com',
      data: { course: 'Safe Lifting' },
    });
    await issueCertificate(env.t.app, user.tenant, {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      data: { course: 'Engines' },
    });
    await env.t.deps.services.certificates.revoke(SYSTEM, user.tenant.accountId, zoe.id);
    const page = await newPage(env);
    await signIn(env, page, user);
    const shown = async (query: string) => {
      await page.goto(`${env.base}/dashboard/certificates${query}`);
      return page.$$eval('#certificates tbody tr a.name', (links) => links.map((a) => a.textContent?.trim()));
    };
    assert.deepEqual(await shown(''), ['Ada Lovelace', 'Zoë Ångström']);
    assert.deepEqual(await shown('?q=zoe+angstrom'), ['Zoë Ångström']);
    assert.deepEqual(await shown('?q=ADA%40example.com'), ['Ada Lovelace']);
    assert.deepEqual(await shown('?q=zoe&status=Issued'), []);
    assert.match((await page.textContent('#no-results')) ?? '', /No certificates match/);
    assert.deepEqual(await shown('?q=zoe&status=Revoked'), ['Zoë Ångström']);
    await page.context().close();
  });
});
