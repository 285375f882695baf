import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createFreshDatabase, settled } from '../emails/support.js';
import { createTenant, issueCertificate, startTestApp, type TestApp, type Tenant } from '../helpers/app.js';

// /healthz, /readyz and /metrics (docs/operations.md, Health and metrics).

const TOKEN = 'metrics-token-for-tests-0123';

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('health probes', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  test('healthz and readyz answer 200 with no key, no limiter headers and no caching', async () => {
    const health = await t.app.inject({ url: '/healthz' });
    assert.equal(health.statusCode, 200);
    assert.deepEqual(health.json(), { status: 'ok' });
    const ready = await t.app.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready', checks: { database: 'ok', redis: 'not configured' } });
    for (const res of [health, ready]) {
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['x-ratelimit-limit'], undefined, 'not rate limited');
    }
  });

  test('the probes are not limited: more calls than RATE_LIMIT_MAX all answer 200', async () => {
    const small = await startTestApp({ RATE_LIMIT_MAX: '2' });
    try {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => small.app.inject({ url: i % 2 ? '/healthz' : '/readyz' })),
      );
      assert.deepEqual(new Set(answers.map((a) => a.statusCode)), new Set([200]));
    } finally {
      await small.close();
    }
  });

  test('no METRICS_TOKEN: no metrics route', async () => {
    const res = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.statusCode, 404);
    assert.equal(res.json().error.code, 'not_found');
  });

  test('the probes and the metrics are not in the API description', async () => {
    const doc = (await t.app.inject({ url: '/api/v1/openapi.json' })).json();
    for (const path of ['/healthz', '/readyz', '/metrics']) assert.equal(doc.paths[path], undefined);
  });
});

describe('metrics', () => {
  let t: TestApp;
  let tenant: Tenant;
  const scrape = async () => {
    const res = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.statusCode, 200, res.body);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    return res.body;
  };

  before(async () => {
    t = await startTestApp({ METRICS_TOKEN: TOKEN, RATE_LIMIT_MAX: '6' });
    tenant = await createTenant(t.deps);
  });
  after(async () => {
    await t.close();
  });

  test('need the token: 401 in the envelope without it or with another', async () => {
    const none = await t.app.inject({ url: '/metrics' });
    assert.equal(none.statusCode, 401);
    assert.equal(none.json().error.code, 'unauthorized');
    const wrong = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}x` } });
    assert.equal(wrong.statusCode, 401);
    assert.equal(wrong.json().error.code, 'invalid_api_key');
    assert.doesNotMatch(wrong.body, /http_requests_total/);
  });

  test('count requests by route pattern, issues, renders, queued mail, refusals and the pool', async () => {
    const cert = await issueCertificate(t.app, tenant);
    const send = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${cert.id}/send`,
      headers: tenant.auth,
    });
    assert.equal(send.statusCode, 202, send.body);
    // RATE_LIMIT_MAX=6: the key has used 2; 5 more make one 429.
    const reads = [];
    for (let i = 0; i < 5; i++)
      reads.push(await t.app.inject({ url: `/api/v1/certificates/${cert.id}`, headers: tenant.auth }));
    assert.equal(reads.filter((r) => r.statusCode === 429).length, 1);

    const text = await scrape();
    assert.equal(
      sample(text, 'http_requests_total{method="POST",route="/api/v1/certificates",status="201"}'),
      1,
    );
    assert.equal(
      sample(text, 'http_requests_total{method="GET",route="/api/v1/certificates/:id",status="200"}'),
      4,
    );
    assert.equal(
      sample(text, 'http_requests_total{method="GET",route="/api/v1/certificates/:id",status="429"}'),
      1,
    );
    assert.doesNotMatch(text, new RegExp(cert.id), 'no series per certificate');
    assert.equal(
      sample(
        text,
        'http_request_duration_seconds_count{method="POST",route="/api/v1/certificates",status="201"}',
      ),
      1,
    );
    assert.equal(sample(text, 'certsvc_certificates_issued_total'), 1);
    assert.equal(sample(text, 'certsvc_pdfs_rendered_total'), 1);
    assert.equal(sample(text, 'certsvc_pdf_render_seconds_count'), 1);
    assert.equal(sample(text, 'certsvc_rate_limit_refusals_total{limiter="key"}'), 1);
    // No worker runs in this app: the send waits in the queue, which every instance can see.
    assert.ok(sample(text, 'certsvc_email_queue_depth')! >= 1);
    assert.ok(sample(text, 'certsvc_email_oldest_queued_age_seconds')! >= 0);
    assert.ok(sample(text, 'certsvc_db_pool_connections{state="total"}')! >= 1);
    assert.match(text, /^process_resident_memory_bytes /m);
  });
});

test('count the email outcomes of the worker in this process', async () => {
  const fresh = await createFreshDatabase();
  const t = await startTestApp({ DATABASE_URL: fresh.url, METRICS_TOKEN: TOKEN, EMAIL_POLL_MS: '50' });
  const worker = t.deps.services.startEmailWorker();
  try {
    const tenant = await createTenant(t.deps);
    const cert = await issueCertificate(t.app, tenant);
    const send = await t.app.inject({
      method: 'POST',
      url: `/api/v1/certificates/${cert.id}/send`,
      headers: tenant.auth,
    });
    assert.equal(send.statusCode, 202, send.body);
    assert.equal((await settled(t.deps.db, send.json().data.id)).status, 'sent');
    const text = (await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } }))
      .body;
    assert.equal(sample(text, 'certsvc_email_outcomes_total{outcome="sent"}'), 1);
    assert.equal(sample(text, 'certsvc_email_queue_depth'), 0);
    assert.equal(sample(text, 'certsvc_email_oldest_queued_age_seconds'), 0);
  } finally {
    await worker.stop();
    await t.close();
    await fresh.drop();
  }
});
