import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { httpRequest, rawRequest, type RawAnswer } from '../helpers/raw-http.js';

// The HTTP edge over real sockets: input that Node's parser or the router refuses still gets the
// error envelope with X-Request-Id (or the HTML page under /verify/), and stalled clients are
// closed. The server's timeouts are lowered so that the stalled cases end quickly.

let t: TestApp;
let tenant: Tenant;
let port: number;

before(async () => {
  t = await startTestApp(
    { RATE_LIMIT_MAX: '100000' },
    { httpTimeouts: { requestMs: 1_000, headersMs: 1_000, keepAliveMs: 1_000, checkEveryMs: 100 } },
  );
  tenant = await createTenant(t.deps);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
after(() => t.close());

function assertEnvelope(res: RawAnswer, status: number, code?: string) {
  assert.equal(res.status, status, res.raw.slice(0, 400));
  assert.match(res.headers['content-type'] ?? '', /^application\/json/, res.raw.slice(0, 400));
  const body = JSON.parse(res.body) as { error: { code: string; message: string } };
  assert.equal(typeof body.error.message, 'string');
  if (code) assert.equal(body.error.code, code);
  assert.ok(res.headers['x-request-id'], 'X-Request-Id');
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
}

describe('malformed HTTP gets the envelope', () => {
  it('an unknown method token', async () => {
    assertEnvelope(
      await rawRequest(port, 'FO(O /api/v1/usage HTTP/1.1\r\nHost: x\r\n\r\n'),
      400,
      'bad_request',
    );
  });

  it('conflicting Content-Length headers', async () => {
    const req = httpRequest(
      'POST',
      '/api/v1/certificates',
      { ...tenant.auth, 'content-type': 'application/json', 'Content-Length': ['2', '3'] },
      '{}',
    );
    assertEnvelope(await rawRequest(port, req), 400, 'bad_request');
  });

  it('raw non-ASCII bytes in the path', async () => {
    const req = Buffer.concat([
      Buffer.from('GET /api/v1/certificates/'),
      Buffer.from([0xc3, 0xa9, 0xff]),
      Buffer.from(` HTTP/1.1\r\nHost: x\r\nAuthorization: ${tenant.auth.authorization}\r\n\r\n`),
    ]);
    const res = await rawRequest(port, req);
    assert.ok(res.status === 400 || res.status === 422, res.raw.slice(0, 300));
    assertEnvelope(res, res.status);
  });

  it('headers over the size limit: 431', async () => {
    const req = httpRequest('GET', '/api/v1/usage', { ...tenant.auth, 'x-padding': 'a'.repeat(20_000) });
    assertEnvelope(await rawRequest(port, req), 431, 'headers_too_large');
  });

  it('an unknown Expect is ignored rather than answered 417', async () => {
    const res = await rawRequest(
      port,
      httpRequest('GET', '/api/v1/usage', { ...tenant.auth, expect: 'tea' }),
      { keepOpen: true },
    );
    assert.equal(res.status, 200, res.raw.slice(0, 300));
  });

  it('/verify/ gets an HTML page even for malformed HTTP', async () => {
    const res = await rawRequest(port, 'FO(O /verify/0000000000000000 HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.equal(res.status, 400);
    assert.match(res.headers['content-type'] ?? '', /^text\/html/);
    assert.ok(res.headers['x-request-id']);
  });

  it('two Authorization headers are refused with 401, whichever comes first', async () => {
    for (const pair of [
      [tenant.auth.authorization, 'Bearer svc_live_wrong'],
      ['Bearer svc_live_wrong', tenant.auth.authorization],
      [tenant.auth.authorization, tenant.auth.authorization],
    ]) {
      const res = await rawRequest(port, httpRequest('GET', '/api/v1/usage', { authorization: pair }));
      assertEnvelope(res, 401, 'invalid_api_key');
    }
  });
});

describe('stalled clients are closed', () => {
  it('a body that never completes, sent with a valid key: 408 and the connection closes', async () => {
    const head = httpRequest('POST', '/api/v1/certificates', {
      ...tenant.auth,
      'content-type': 'application/json',
      'content-length': '1000',
    });
    // The head ends with "Connection: close" and the blank line; then 10 of the promised 1000 bytes.
    const res = await rawRequest(port, Buffer.concat([head, Buffer.from('{"templat')]), { keepOpen: true });
    assertEnvelope(res, 408, 'request_timeout');
  });

  it('headers that never complete: 408 and the connection closes', async () => {
    const res = await rawRequest(port, 'GET /api/v1/usage HTTP/1.1\r\nHost: x\r\nX-Slow: ', {
      keepOpen: true,
    });
    assertEnvelope(res, 408, 'request_timeout');
  });
});

describe('nothing counts until a request is accepted', () => {
  it('a GET with a malformed chunked body adds no download and no verification', async () => {
    const cert = await issueCertificate(t.app, tenant);
    const broken = 'zz\r\nnot a chunk\r\n';
    for (const target of [
      `/api/v1/certificates/${cert.id}/pdf`,
      `/api/v1/verify/${cert.uniqueCode}`,
      `/verify/${cert.uniqueCode}`,
    ]) {
      const req = httpRequest('GET', target, { ...tenant.auth, 'transfer-encoding': 'chunked' }, broken);
      const res = await rawRequest(port, req);
      assert.ok(res.status >= 400 && res.status < 500, `${target}: ${res.raw.slice(0, 200)}`);
    }
    const read = await t.app.inject({ url: `/api/v1/certificates/${cert.id}`, headers: tenant.auth });
    assert.deepEqual([read.json().data.downloadCount, read.json().data.verificationCount], [0, 0]);
  });
});

describe('answers without a body', () => {
  it('a PDF 304 announces no body (a client reading by Content-Length is not left waiting)', async () => {
    const cert = await issueCertificate(t.app, tenant);
    const req = httpRequest('GET', `/api/v1/certificates/${cert.id}/pdf`, {
      ...tenant.auth,
      'if-none-match': '*',
    });
    const res = await rawRequest(port, req, { keepOpen: true });
    assert.equal(res.status, 304);
    assert.ok(!res.headers['content-length'] || res.headers['content-length'] === '0', res.raw);
    assert.equal(res.body, '');
  });
});
