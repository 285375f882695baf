import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';

// Body handling at the edges: an empty body is no body whatever its content type; on send, even an
// unparsable body is checked only after 404 and 403 (docs/api.md, Email); HEAD and 304 count nothing.

let t: TestApp;
let tenant: Tenant;

before(async () => {
  t = await startTestApp({ RATE_LIMIT_MAX: '100000' });
  tenant = await createTenant(t.deps);
});
after(() => t.close());

const issue = (owner: Tenant) => issueCertificate(t.app, owner);

function post(owner: Tenant, url: string, contentType: string, payload: string) {
  return t.app.inject({
    method: 'POST',
    url,
    headers: { ...owner.auth, 'content-type': contentType },
    payload,
  });
}

describe('request bodies', () => {
  it('send: an unparsable or non-JSON body still gets 404 for an unknown certificate', async () => {
    const url = '/api/v1/certificates/01a1fc9b-c0f0-7000-9deb-02e3c196834a/send';
    for (const [type, body] of [
      ['application/json', '{'],
      ['application/x-www-form-urlencoded', 'a=b'],
      ['text/plain', 'hello'],
    ]) {
      const res = await post(tenant, url, type!, body!);
      assert.equal(res.statusCode, 404, `${type}: ${res.body}`);
    }
  });

  it('send: 403 (delivery disabled) before the 422 of an unparsable body', async () => {
    const partner = await createTenant(t.deps, { plan: 'Free' });
    await t.deps.services.contracts.create({ accountId: partner.accountId, emailDelivery: false });
    const cert = await issue(partner);
    const res = await post(partner, `/api/v1/certificates/${cert.id}/send`, 'application/json', '{');
    assert.equal(res.statusCode, 403, res.body);
    assert.equal(res.json().error.code, 'forbidden');
  });

  it('send: an unparsable body on a sendable certificate is 422 at [] and sends nothing', async () => {
    const cert = await issue(tenant);
    for (const [type, body] of [
      ['application/json', '{'],
      ['text/plain', 'hello'],
    ]) {
      const res = await post(tenant, `/api/v1/certificates/${cert.id}/send`, type!, body!);
      assert.equal(res.statusCode, 422, res.body);
      assert.deepEqual(res.json().error.details.issues[0].path, []);
    }
    const { rows } = await t.deps.db.query<{ email_count: number }>(
      'SELECT email_count FROM certificates WHERE id = $1',
      [cert.id],
    );
    assert.equal(rows[0]!.email_count, 0);
  });

  it('revoke: an empty body is fine whatever its content type; a non-empty non-JSON one is 422', async () => {
    for (const type of ['application/x-www-form-urlencoded', 'text/plain', 'application/json']) {
      const cert = await issue(tenant);
      const res = await post(tenant, `/api/v1/certificates/${cert.id}/revoke`, type, '');
      assert.equal(res.statusCode, 200, `${type}: ${res.body}`);
      assert.equal(res.json().data.status, 'Revoked');
    }
    const cert = await issue(tenant);
    const bad = await post(tenant, `/api/v1/certificates/${cert.id}/revoke`, 'text/plain', 'because');
    assert.equal(bad.statusCode, 422);
    assert.deepEqual(bad.json().error.details.issues[0].path, []);
  });

  it('HEAD on verification (JSON and page) counts no verification; a PDF 304 keeps Cache-Control', async () => {
    const cert = await issue(tenant);
    for (const url of [`/api/v1/verify/${cert.uniqueCode}`, `/verify/${cert.uniqueCode}`]) {
      const head = await t.app.inject({ method: 'HEAD', url, remoteAddress: '10.3.3.3' });
      assert.equal(head.statusCode, 200);
    }
    const get = await t.app.inject({ url: `/api/v1/verify/${cert.uniqueCode}`, remoteAddress: '10.3.3.3' });
    assert.equal(get.statusCode, 200);
    const read = await t.app.inject({ url: `/api/v1/certificates/${cert.id}`, headers: tenant.auth });
    assert.equal(read.json().data.verificationCount, 1);

    const pdf = await t.app.inject({ url: `/api/v1/certificates/${cert.id}/pdf`, headers: tenant.auth });
    const again = await t.app.inject({
      url: `/api/v1/certificates/${cert.id}/pdf`,
      headers: { ...tenant.auth, 'if-none-match': String(pdf.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.headers['cache-control'], pdf.headers['cache-control']);
  });
});
