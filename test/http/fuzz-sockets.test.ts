import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createTenant, issueCertificate, startTestApp, type Tenant, type TestApp } from '../helpers/app.js';
import { rawRequest, type RawAnswer } from '../helpers/raw-http.js';

// Hostile input over raw sockets, as an attacker would send it: every operation gets at least
// 1,000 generated requests (bodies of every JSON type, deep nesting, invalid UTF-8, odd charsets,
// huge numbers, odd methods and headers, percent-encodings, long paths and ids, duplicate headers,
// broken chunking). Every answer must be below 500, carry X-Request-Id, and be the error envelope
// (the HTML page under /verify/); refused requests change no usage, certificate or counter.
// Bounded by count: FUZZ_RUNS (default 1,000) requests per operation, 8 connections at a time.
// FUZZ_SEED replays a run.

const RUNS = Number(process.env.FUZZ_RUNS ?? 1_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const PARALLEL = 8;

let t: TestApp;
let port: number;
let owner: Tenant; // reads, sends, revokes
let issuer: Tenant; // issues with a quota of 0: an issue that passes every check is still refused
let cert: { id: string; uniqueCode: string };

before(async () => {
  // Short timeouts: a request the server keeps waiting on ends in a 408 quickly.
  t = await startTestApp(
    { RATE_LIMIT_MAX: '1000000' },
    { httpTimeouts: { requestMs: 3_000, headersMs: 3_000, keepAliveMs: 1_000, checkEveryMs: 500 } },
  );
  owner = await createTenant(t.deps);
  issuer = await createTenant(t.deps, { monthlyLimit: 0 });
  cert = await issueCertificate(t.app, owner);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
});
after(() => t.close());

interface Base {
  op: string;
  method: string;
  path: string;
  tenant?: () => Tenant;
  body?: () => string;
}

const BASES: Base[] = [
  { op: 'listTemplates', method: 'GET', path: '/api/v1/templates', tenant: () => owner },
  { op: 'getTemplate', method: 'GET', path: '/api/v1/templates/{template}', tenant: () => owner },
  { op: 'usage', method: 'GET', path: '/api/v1/usage', tenant: () => owner },
  {
    op: 'issue',
    method: 'POST',
    path: '/api/v1/certificates',
    tenant: () => issuer,
    body: () =>
      JSON.stringify({
        templateId: issuer.templateId,
        recipient: { name: 'Ada', email: 'ada@example.com', data: { course: 'X' } },
      }),
  },
  { op: 'listCertificates', method: 'GET', path: '/api/v1/certificates', tenant: () => owner },
  { op: 'getCertificate', method: 'GET', path: '/api/v1/certificates/{id}', tenant: () => owner },
  { op: 'pdf', method: 'GET', path: '/api/v1/certificates/{id}/pdf', tenant: () => owner },
  {
    op: 'send',
    method: 'POST',
    path: '/api/v1/certificates/{id}/send',
    tenant: () => owner,
    body: () => '{"recipientEmail":"x@example.com"}',
  },
  {
    op: 'revoke',
    method: 'POST',
    path: '/api/v1/certificates/{id}/revoke',
    tenant: () => owner,
    body: () => '{"reason":"Issued in error"}',
  },
  { op: 'emails', method: 'GET', path: '/api/v1/certificates/{id}/emails', tenant: () => owner },
  { op: 'verify', method: 'GET', path: '/api/v1/verify/{code}' },
  { op: 'verifyPage', method: 'GET', path: '/verify/{code}' },
  { op: 'openapi', method: 'GET', path: '/api/v1/openapi.json' },
];

interface Req {
  method: string;
  target: string;
  headers: [string, string][];
  body: Buffer;
  // Raw bytes replace the whole body framing (for broken chunking and lying lengths).
  framing: 'length' | 'none' | 'chunked-broken' | 'length-conflict' | 'te-and-length';
}

type Mutation = (r: Req) => Req;

const anyJson = fc.jsonValue({ maxDepth: 3 });
const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 40,
});
const bytes = fc.uint8Array({ minLength: 1, maxLength: 12 });

const mutations: fc.Arbitrary<Mutation>[] = [
  // a JSON body of any type, and a body made of raw bytes
  anyJson.map((v) => (r: Req) => ({ ...r, body: Buffer.from(JSON.stringify(v) ?? 'null') })),
  bytes.map((b) => (r: Req) => ({ ...r, body: Buffer.from(b) })),
  // deep nesting
  fc
    .tuple(fc.integer({ min: 20, max: 5_000 }), fc.constantFrom('[', '{"a":'))
    .map(([depth, open]) => (r: Req) => {
      const close = open === '[' ? ']' : '}';
      return { ...r, body: Buffer.from(`{"reason":${open.repeat(depth)}1${close.repeat(depth)}}`) };
    }),
  // invalid UTF-8 inside a string of the body
  bytes.map((b) => (r: Req) => {
    const text = r.body.length > 0 ? r.body.toString('latin1') : '{"reason":"x"}';
    const at = Math.max(1, text.indexOf('"', text.indexOf(':')) + 1);
    return {
      ...r,
      body: Buffer.concat([
        Buffer.from(text.slice(0, at), 'latin1'),
        Buffer.from([0xff, 0xfe, ...b]),
        Buffer.from(text.slice(at), 'latin1'),
      ]),
    };
  }),
  // odd content types and charsets
  fc
    .constantFrom(
      'application/json; charset=iso-8859-1',
      'application/json; charset=utf-16',
      'application/json; charset=',
      'application/json;charset="latin1"',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json, text/plain',
      '',
    )
    .map((type) => (r: Req) => ({
      ...r,
      headers: [...r.headers.filter(([n]) => n !== 'Content-Type'), ['Content-Type', type]],
    })),
  // numbers beyond a double, anywhere a number may go
  fc
    .constantFrom('1e400', '-1e400', '1e-400', '123456789012345678901234567890', '-0', '0.1e999999')
    .map((n) => (r: Req) => ({
      ...r,
      body: Buffer.from(
        `{"templateId":"${issuer.templateId}","recipient":{"name":"A","email":"a@example.com","data":{"course":"X","hours":${n}}},"reason":${n},"recipientEmail":${n}}`,
      ),
    })),
  // methods
  fc
    .constantFrom(
      'FOO',
      'PROPFIND',
      'PUT',
      'DELETE',
      'PATCH',
      'get',
      'OPTIONS',
      'TRACE',
      'HEAD',
      'POST',
      'GET',
      'M-SEARCH',
      'G\tET',
      '',
    )
    .map((method) => (r: Req) => ({ ...r, method })),
  // random headers, including bytes outside ASCII
  fc
    .array(
      fc.tuple(
        printable.filter((s) => /^[!-9;-~]+$/.test(s)),
        fc.oneof(
          printable,
          bytes.map((b) => Buffer.from(b).toString('latin1')),
        ),
      ),
      { maxLength: 4 },
    )
    .map((extra) => (r: Req) => ({
      ...r,
      headers: [...r.headers, ...extra.map(([n, v]) => [n, v.replace(/[\r\n]/g, '')] as [string, string])],
    })),
  // duplicate and conflicting headers
  fc.constantFrom<Mutation>(
    (r) => ({ ...r, headers: [...r.headers, ['Authorization', 'Bearer svc_live_x']] }),
    (r) => ({ ...r, headers: [['Authorization', `Bearer ${owner.key}`], ...r.headers] }),
    (r) => ({ ...r, framing: 'length-conflict' }),
    (r) => ({ ...r, framing: 'te-and-length' }),
    (r) => ({ ...r, framing: 'chunked-broken' }),
    (r) => ({ ...r, framing: 'none', body: r.body.length > 0 ? r.body : Buffer.from('{}') }),
    (r) => ({ ...r, headers: [...r.headers, ['Expect', '100-continue']] }),
    (r) => ({ ...r, headers: [...r.headers, ['Expect', 'nonsense']] }),
    (r) => ({ ...r, headers: [...r.headers, ['X-Big', 'a'.repeat(17_000)]] }),
    (r) => ({ ...r, headers: r.headers.filter(([n]) => n !== 'Host') }),
    (r) => ({ ...r, headers: [...r.headers, ['Host', 'other.example']] }),
    (r) => ({ ...r, headers: [...r.headers, ['Content-Length', '-1']] }),
    (r) => ({ ...r, headers: [...r.headers, ['Transfer-Encoding', 'gzip, chunked']] }),
    (r) => ({ ...r, headers: [...r.headers, ['Idempotency-Key', 'k\u00e9y']] }),
    (r) => ({ ...r, headers: [...r.headers, ['X-Forwarded-For', '1.2.3.4']] }),
    (r) => ({ ...r, headers: [...r.headers, ['Origin', 'https://evil.example']] }),
    (r) => ({ ...r, headers: [...r.headers, ['If-None-Match', '*']] }),
  ),
  // percent-encodings in the path
  fc
    .tuple(
      fc.nat(),
      fc.constantFrom('%ff', '%', '%C3%28', '%00', '%2F', '%2e%2e', '%E2%80%AE', '%25', '%zz', '%u0041'),
    )
    .map(([at, enc]) => (r: Req) => {
      const q = r.target.indexOf('?');
      const path = q === -1 ? r.target : r.target.slice(0, q);
      const i = 1 + (at % Math.max(1, path.length - 1));
      return { ...r, target: path.slice(0, i) + enc + path.slice(i) + (q === -1 ? '' : r.target.slice(q)) };
    }),
  // valid escapes of ordinary characters
  fc.nat().map((at) => (r: Req) => {
    const i = 1 + (at % Math.max(1, r.target.length - 1));
    const c = r.target[i] ?? 'a';
    return c === '?' || c === '/'
      ? r
      : {
          ...r,
          target: `${r.target.slice(0, i)}%${c.charCodeAt(0).toString(16).padStart(2, '0')}${r.target.slice(i + 1)}`,
        };
  }),
  // long paths, ids and codes
  fc
    .tuple(fc.integer({ min: 90, max: 20_000 }), fc.constantFrom('a', '0', '%41', 'é'))
    .map(([n, c]) => (r: Req) => ({
      ...r,
      target: r.target
        .replace(cert.id, c.repeat(n))
        .replace(cert.uniqueCode, c.repeat(n))
        .replace(/templates$/, `templates/${c.repeat(n)}`),
    })),
  // query strings
  fc
    .tuple(
      fc.constantFrom('page', 'perPage', 'status', 'page[]', 'x'),
      fc.constantFrom(
        'Infinity',
        '1e400',
        '0x10',
        '1e1',
        '%201',
        '-1',
        '',
        '0',
        '1.5',
        '99999999999999999999',
        '%ff',
        'Issued',
        'issued',
        '1&page=2',
      ),
    )
    .map(([name, value]) => (r: Req) => ({
      ...r,
      target: `${r.target}${r.target.includes('?') ? '&' : '?'}${name}=${value}`,
    })),
  // no credentials, or bad ones
  fc.constantFrom<Mutation>(
    (r) => ({ ...r, headers: r.headers.filter(([n]) => n !== 'Authorization') }),
    (r) => ({
      ...r,
      headers: r.headers.map(([n, v]) => (n === 'Authorization' ? [n, v.slice(0, -1) + 'x'] : [n, v])),
    }),
    (r) => ({
      ...r,
      headers: r.headers.map(([n, v]) => (n === 'Authorization' ? [n, `Basic ${v}`] : [n, v])),
    }),
  ),
];

const requestFor = (base: Base) =>
  fc.array(fc.oneof(...mutations), { minLength: 1, maxLength: 3 }).map((ms): Req => {
    const path = base.path
      .replace('{id}', cert.id)
      .replace('{code}', cert.uniqueCode)
      .replace('{template}', owner.templateId);
    const headers: [string, string][] = [['Host', '127.0.0.1']];
    const tenant = base.tenant?.();
    if (tenant) headers.push(['Authorization', tenant.auth.authorization]);
    if (base.body) headers.push(['Content-Type', 'application/json']);
    const start: Req = {
      method: base.method,
      target: path,
      headers,
      body: Buffer.from(base.body?.() ?? ''),
      framing: 'length',
    };
    return ms.reduce((r, m) => m(r), start);
  });

function encode(r: Req): Buffer {
  const lines = [`${r.method} ${r.target} HTTP/1.1`, ...r.headers.map(([n, v]) => `${n}: ${v}`)];
  let body = r.body;
  switch (r.framing) {
    case 'length':
      if (body.length > 0 || r.method === 'POST') lines.push(`Content-Length: ${body.length}`);
      break;
    case 'length-conflict':
      lines.push(`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`);
      break;
    case 'te-and-length':
      lines.push(`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked');
      break;
    case 'chunked-broken':
      lines.push('Transfer-Encoding: chunked');
      body = Buffer.concat([
        Buffer.from(`${(body.length + 7).toString(16)}\r\n`),
        body,
        Buffer.from('\r\nzz\r\n'),
      ]);
      break;
    case 'none':
      break;
  }
  lines.push('Connection: close');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

interface Outcome {
  op: string;
  req: Req;
  res: RawAnswer;
}

// The path as the router sees it, for deciding which rules apply: ASCII escapes decoded.
function routedPath(target: string): string {
  return target.replace(/%([0-7][0-9A-Fa-f])/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

function check(o: Outcome): string | undefined {
  const { res, req } = o;
  const path = routedPath(req.target);
  const what = `${o.op}: ${req.method} ${req.target.slice(0, 120)} -> ${res.status}`;
  if (res.status >= 500) return `${what}: ${res.body.slice(0, 200)}`;
  if (!res.headers['x-request-id']) return `${what}: no X-Request-Id: ${res.raw.slice(0, 300)}`;
  if (res.status < 400 || req.method === 'HEAD') return undefined;
  const type = res.headers['content-type'] ?? '';
  if (path.startsWith('/verify/')) {
    return type.startsWith('text/html') ? undefined : `${what}: /verify/ answered ${type}`;
  }
  try {
    const body = JSON.parse(res.body) as { error?: { code?: unknown; message?: unknown } };
    if (typeof body.error?.code !== 'string' || typeof body.error.message !== 'string')
      return `${what}: not the envelope`;
  } catch {
    return `${what}: not JSON: ${res.body.slice(0, 100)}`;
  }
  // Requests that reached the service carry the rate-limit headers under /api/v1 (preflights and
  // requests that are not HTTP at all do not).
  const protocol =
    [400, 408, 431].includes(res.status) && /bad_request|request_timeout|headers_too_large/.test(res.body);
  if (
    /^\/api\/v1(\/|\?|$)/.test(path) &&
    req.method !== 'OPTIONS' &&
    !protocol &&
    !res.headers['x-ratelimit-limit']
  ) {
    return `${what}: no rate-limit headers`;
  }
  return undefined;
}

async function runAll(reqs: { op: string; req: Req }[]): Promise<Outcome[]> {
  const out: Outcome[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < reqs.length) {
        const { op, req } = reqs[next++]!;
        const res = await rawRequest(port, encode(req), {
          keepOpen: true,
          noBody: req.method === 'HEAD',
        }).catch((err: Error) => {
          throw new Error(
            `${op} (seed ${SEED}): ${err.message}; sent ${JSON.stringify(encode(req).toString('latin1').slice(0, 400))}`,
          );
        });
        out.push({ op, req, res });
      }
    }),
  );
  return out;
}

async function snapshot() {
  const read = await t.app.inject({ url: `/api/v1/certificates/${cert.id}`, headers: owner.auth });
  const { rows } = await t.deps.db.query<{ account_id: string; n: number }>(
    'SELECT account_id, count(*)::int AS n FROM certificates WHERE account_id = ANY($1) GROUP BY account_id',
    [[owner.accountId, issuer.accountId]],
  );
  const used = await t.deps.db.query<{ used: number }>(
    'SELECT coalesce(sum(used), 0)::int AS used FROM usage_periods WHERE account_id = ANY($1)',
    [[owner.accountId, issuer.accountId]],
  );
  return { certificate: read.json().data, counts: rows, used: used.rows[0]!.used };
}

describe(`fuzz over raw sockets (${RUNS} requests per operation, seed ${SEED})`, () => {
  it('no 5xx; every answer in the envelope with X-Request-Id; refused requests change nothing', async () => {
    const before = await snapshot();
    const reqs = BASES.flatMap((base, i) =>
      fc.sample(requestFor(base), { numRuns: RUNS, seed: SEED + i }).map((req) => ({ op: base.op, req })),
    );
    const outcomes = await runAll(reqs);
    const failures = outcomes.map(check).filter((f): f is string => f !== undefined);
    assert.deepEqual(failures.slice(0, 20), [], `seed ${SEED}: ${failures.length} failures`);

    const ok = (op: string, status: number, method?: string) =>
      outcomes.filter((o) => o.op === op && o.res.status === status && (!method || o.req.method === method))
        .length;
    const after = await snapshot();
    assert.deepEqual(after.counts, before.counts, `seed ${SEED}: no certificate was created`);
    assert.equal(after.used, before.used, `seed ${SEED}: no quota was used`);
    const c0 = before.certificate;
    const c1 = after.certificate;
    assert.equal(c1.downloadCount - c0.downloadCount, ok('pdf', 200, 'GET'), `seed ${SEED}: downloads`);
    assert.equal(c1.emailCount - c0.emailCount, ok('send', 202), `seed ${SEED}: sends`);
    assert.equal(
      c1.verificationCount - c0.verificationCount,
      ok('verify', 200, 'GET') + ok('verifyPage', 200, 'GET'),
      `seed ${SEED}: verifications`,
    );
    assert.equal(
      c1.status,
      ok('revoke', 200) > 0 ? 'Revoked' : 'Issued',
      `seed ${SEED}: revocation; ${JSON.stringify(outcomes.filter((o) => o.res.status < 300 && o.op === 'revoke').map((o) => [o.req.method, o.req.target, o.res.status, o.res.body.slice(0, 100)]))}`,
    );
    const perOp = new Map<string, number>();
    for (const o of outcomes) perOp.set(o.op, (perOp.get(o.op) ?? 0) + 1);
    for (const base of BASES) assert.ok((perOp.get(base.op) ?? 0) >= RUNS, base.op);
  });
});
