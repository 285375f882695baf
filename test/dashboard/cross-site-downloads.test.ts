import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { browserSkipReason } from '../helpers/browser.js';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { signedInMember, type FormClient } from './form-client.js';
import { createUser, newPage, signIn, startDashboard, type DashboardEnv } from './support.js';

// Decisions section 25, docs/dashboard.md "Downloads count only from the dashboard": a foreign page
// can navigate a signed-in browser (the SameSite=Lax session cookie goes along) to a dashboard
// download. Those requests carry Sec-Fetch-Site cross-site or same-site: 403, nothing counted.
// same-origin, none and no header count as before.

describe('dashboard: downloads count only when they come from the dashboard', () => {
  let t: TestApp;
  let tenant: Tenant;
  let client: FormClient;
  let certs: { id: string }[];
  let uploadZip: string;

  before(async () => {
    t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
    tenant = await createTenant(t.deps);
    client = await signedInMember(t, tenant.accountId);
    certs = [
      await issueCertificate(t.app, tenant),
      await issueCertificate(t.app, tenant, {
        name: 'Grace Hopper',
        email: 'grace@example.com',
        data: { course: 'COBOL' },
      }),
    ];
    // An upload of one row: its results page offers its own ZIP.
    await client.get(`/dashboard/certificates/upload?templateId=${tenant.templateId}`);
    const res = await client.upload(
      '/dashboard/certificates/upload',
      { templateId: tenant.templateId },
      { name: 'recipients.csv', content: 'name,email,course\nKatherine Johnson,kj@example.com,Orbits\n' },
    );
    assert.equal(res.statusCode, 303, res.body.slice(0, 300));
    uploadZip = `${String(res.headers.location)}/pdfs.zip`;
    certs.push({ id: await newestId() });
  });
  after(() => t?.close());

  async function newestId(): Promise<string> {
    const res = await t.app.inject({ url: '/api/v1/certificates?perPage=1', headers: tenant.auth });
    return res.json().data[0].id;
  }

  // Every certificate's download counter, read back through the API.
  async function counters(): Promise<Record<string, number>> {
    const res = await t.app.inject({ url: '/api/v1/certificates?perPage=100', headers: tenant.auth });
    assert.equal(res.statusCode, 200);
    return Object.fromEntries(
      (res.json().data as { id: string; downloadCount: number }[]).map((c) => [c.id, c.downloadCount]),
    );
  }

  // A GET with nothing but the session cookie, as a foreign page's link or redirect makes it.
  function get(url: string, site: string | undefined) {
    return t.app.inject({
      method: 'GET',
      url,
      headers: {
        cookie: `certsvc_session=${client.cookies.get('certsvc_session')}`,
        ...(site === undefined ? {} : { 'sec-fetch-site': site }),
      },
    });
  }

  const downloads = () => [
    { url: '/dashboard/certificates/pdfs.zip', counts: certs.map((c) => c.id) },
    { url: `/dashboard/certificates/${certs[0]!.id}/pdf`, counts: [certs[0]!.id] },
    { url: `/dashboard/certificates/${certs[1]!.id}/pdf?download=1`, counts: [certs[1]!.id] },
    { url: uploadZip, counts: [certs[2]!.id] },
  ];

  for (const site of ['cross-site', 'same-site']) {
    it(`answers 403 to Sec-Fetch-Site: ${site} and counts nothing`, async () => {
      const before = await counters();
      for (const { url } of downloads()) {
        const res = await get(url, site);
        assert.equal(res.statusCode, 403, `${url}: ${res.body.slice(0, 200)}`);
        assert.match(String(res.headers['content-type']), /^text\/html/);
        assert.match(res.body, /id="error-message">This download was started from another site/);
        assert.doesNotMatch(res.body, /%PDF-/);
      }
      // An import's ZIP is refused before the import is even looked up.
      const imp = await get(`/dashboard/imports/${randomUUID()}/pdfs.zip`, site);
      assert.equal(imp.statusCode, 403);
      assert.deepEqual(await counters(), before, 'no counter moved');
    });
  }

  it('refuses any other value, and a repeated header, alike', async () => {
    const before = await counters();
    for (const site of ['CROSS-SITE', 'same-origin, cross-site', '']) {
      const res = await get(`/dashboard/certificates/${certs[0]!.id}/pdf`, site);
      assert.equal(res.statusCode, 403, JSON.stringify(site));
    }
    assert.deepEqual(await counters(), before);
  });

  for (const site of ['same-origin', 'none', undefined]) {
    it(`counts each PDF as before with ${site ? `Sec-Fetch-Site: ${site}` : 'no Sec-Fetch-Site'}`, async () => {
      for (const { url, counts } of downloads()) {
        const before = await counters();
        const res = await get(url, site);
        assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
        assert.match(String(res.headers['content-type']), /^application\/(zip|pdf)/);
        const expected = { ...before };
        for (const id of counts) expected[id] = before[id]! + 1;
        assert.deepEqual(await counters(), expected, url);
      }
      // The import's ZIP gets past the guard to the lookup: an unknown import is not found.
      assert.equal((await get(`/dashboard/imports/${randomUUID()}/pdfs.zip`, site)).statusCode, 404);
    });
  }

  it('still sends a signed-out visitor to sign in, whatever the site', async () => {
    const res = await t.app.inject({
      url: '/dashboard/certificates/pdfs.zip',
      headers: { 'sec-fetch-site': 'none' },
    });
    assert.equal(res.statusCode, 303);
    assert.equal(res.headers.location, '/dashboard');
  });
});

// The attack itself, in Chromium: signed in at 127.0.0.1, the visitor opens a page of another site
// (localhost) whose links lead to the account's downloads. The browser sends the Lax session cookie
// along with these top-level navigations, and Sec-Fetch-Site: cross-site.
describe(
  'dashboard downloads in Chromium: a foreign page moves no counter',
  { skip: browserSkipReason() },
  () => {
    let env: DashboardEnv;
    let foreign: http.Server;
    let foreignBase = '';
    let links = '';

    before(async () => {
      env = await startDashboard();
      foreign = http.createServer((_req, res) => {
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end(`<!doctype html><body>${links}</body>`);
      });
      await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
      foreignBase = `http://localhost:${(foreign.address() as AddressInfo).port}`;
    });
    after(async () => {
      foreign?.close();
      await env?.close();
    });

    it("refuses the links of another site with 403, and counts the dashboard's own link", async () => {
      const user = await createUser(env);
      const cert = await issueCertificate(env.t.app, user.tenant);
      const downloads = async () => {
        const res = await env.t.app.inject({
          url: `/api/v1/certificates/${cert.id}`,
          headers: user.tenant.auth,
        });
        return res.json().data.downloadCount as number;
      };
      links = [`/dashboard/certificates/${cert.id}/pdf?download=1`, '/dashboard/certificates/pdfs.zip']
        .map((path, i) => `<a id="l${i}" href="${env.base}${path}">download</a>`)
        .join(' ');
      const page = await newPage(env);
      try {
        await signIn(env, page, user);
        for (const id of ['l0', 'l1']) {
          await page.goto(foreignBase);
          const [response] = await Promise.all([
            page.waitForResponse((r) => r.url().startsWith(env.base)),
            page.click(`#${id}`),
          ]);
          assert.equal((await response.request().allHeaders())['sec-fetch-site'], 'cross-site');
          assert.equal(response.status(), 403, id);
          await page.waitForURL((url) => url.href.startsWith(env.base));
          assert.match(await page.innerText('#error-message'), /This download was started from another site/);
        }
        assert.equal(await downloads(), 0, 'no counter moved');

        // The dashboard's own "Download PDFs (ZIP)" link (same-origin) counts as before.
        await page.goto(`${env.base}/dashboard/certificates`);
        const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-zip')]);
        await download.path();
        assert.equal(await downloads(), 1);
      } finally {
        await page.context().close();
      }
    });
  },
);
