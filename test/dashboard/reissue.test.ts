import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { issueCertificate } from '../helpers/app.js';
import { browserSkipReason } from '../helpers/browser.js';
import { createUser, newPage, shot, signIn, startDashboard, type DashboardEnv } from './support.js';

const skip = browserSkipReason();

// Issue 19 part 3 in the dashboard: "Correct and reissue" on a certificate's page (CSRF-protected
// form, the same service call as POST /api/v1/certificates/:id/reissue).
describe('dashboard: correct and reissue (Chromium)', { skip }, () => {
  let env: DashboardEnv;
  before(async () => {
    env = await startDashboard();
  });
  after(async () => {
    await env?.close();
  });

  it('reissues with the corrected name from the certificate page; the old one is revoked and links the new one', async () => {
    const user = await createUser(env, { monthlyLimit: 1 });
    const old = await issueCertificate(env.t.app, user.tenant, {
      name: 'Ada Lovelce',
      email: 'ada@example.com',
      data: { course: 'Analytical Engines', hours: 3, cohort: 'kept' },
    });
    const page = await newPage(env);
    await signIn(env, page, user);
    await page.goto(`${env.base}/dashboard/certificates/${old.id}`);
    assert.equal(await page.inputValue('#reissue-name'), 'Ada Lovelce');
    assert.equal(await page.inputValue('#reissue-data-course'), 'Analytical Engines');
    assert.ok(await page.inputValue('#reissue-form input[name=_csrf]'));

    // A required field emptied (the browser's check removed): refused with the field named, nothing made.
    await page.evaluate(() => document.querySelector('#reissue-data-course')!.removeAttribute('required'));
    await page.fill('#reissue-data-course', '');
    await Promise.all([page.waitForNavigation(), page.click('button:has-text("Correct and reissue")')]);
    assert.match((await page.textContent('.notice.error')) ?? '', /Not reissued: data\.course/);
    assert.ok(page.url().endsWith(old.id));

    await page.fill('#reissue-name', 'Ada Lovelace');
    await page.fill('#reissue-data-course', 'Analytical Engines');
    await Promise.all([
      page.waitForURL((url) => !url.pathname.endsWith(old.id)),
      page.click('button:has-text("Correct and reissue")'),
    ]);
    assert.match((await page.textContent('.notice.ok')) ?? '', /Reissued/);
    const freshId = page.url().split('/').pop()!;
    await shot(page, 'reissued-desktop');

    const fresh = (
      await (await fetch(`${env.base}/api/v1/certificates/${freshId}`, { headers: user.tenant.auth })).json()
    ).data as { recipientName: string; uniqueCode: string; status: string; data: Record<string, unknown> };
    assert.equal(fresh.recipientName, 'Ada Lovelace');
    assert.equal(fresh.status, 'Issued');
    assert.deepEqual(fresh.data, { course: 'Analytical Engines', hours: 3, cohort: 'kept' });
    const stale = (
      await (await fetch(`${env.base}/api/v1/certificates/${old.id}`, { headers: user.tenant.auth })).json()
    ).data as { status: string; revocationReason: string };
    assert.equal(stale.status, 'Revoked');
    assert.equal(stale.revocationReason, `Superseded by ${fresh.uniqueCode}`);

    await page.goto(`${env.base}/verify/${old.uniqueCode}`);
    assert.equal(
      await page.getAttribute('#superseded-by', 'href'),
      `http://certs.test/verify/${fresh.uniqueCode}`,
    );

    // Without the CSRF token the form post is refused.
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    const forged = await fetch(`${env.base}/dashboard/certificates/${freshId}/reissue`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'name=Mallory&email=m%40example.com&data.course=X',
      redirect: 'manual',
    });
    assert.equal(forged.status, 403);
    await page.context().close();
  });
});
