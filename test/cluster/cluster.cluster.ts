import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { after, before, describe, it } from 'node:test';
import { waitFor } from './backing-services.js';
import { request, type Reply } from './client.js';
import { METRICS_TOKEN, startCluster, type Cluster } from './cluster.js';
import { startApiInstance, startWorker } from './processes.js';

// `npm run test:cluster`: the deployment of docs/deploy.md on one machine, under the faults an
// operator meets. Upper bounds on time here only prove that nothing hangs; speed is in benchmarks.

let c: Cluster;

const recipients = (count: number, tag: string) =>
  Array.from({ length: count }, (_, i) => ({
    name: `Learner ${tag}-${i}`,
    email: `learner-${tag}-${i}@example.com`,
    data: { course: 'Safe Lifting' },
  }));

function batch(base: string, count: number, tag: string, agent?: http.Agent): Promise<Reply> {
  return request(`${base}/api/v1/certificates`, {
    method: 'POST',
    headers: c.auth,
    body: { templateId: c.templateId, recipients: recipients(count, tag) },
    agent,
  });
}

function assertEnvelope(res: Reply, status: number): void {
  assert.equal(res.status, status, res.text);
  const body = res.json<{ error: { code: string; message: string } }>();
  assert.equal(typeof body.error.code, 'string', res.text);
  assert.equal(typeof body.error.message, 'string', res.text);
}

async function download(base: string, id: string): Promise<Buffer> {
  const res = await fetch(`${base}/api/v1/certificates/${id}/pdf`, { headers: c.auth });
  assert.equal(res.status, 200);
  return Buffer.from(await res.arrayBuffer());
}

async function countRows(sql: string, params: unknown[] = []): Promise<number> {
  const { rows } = await c.db.query<{ n: number }>(sql, params);
  return rows[0]!.n;
}

before(async () => {
  c = await startCluster();
});

after(async () => {
  await c?.stop();
});

// Peak resident memory of a process so far (Linux), for docs/deploy.md's sizing figures.
function peakRssMiB(pid: number): number | undefined {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmHWM:\s+(\d+) kB/m);
    return line ? Math.round(Number(line[1]) / 1024) : undefined;
  } catch {
    return undefined;
  }
}

describe('the cluster of docs/deploy.md', { concurrency: false }, () => {
  it('every instance is alive and ready, and the API answers through nginx', async () => {
    for (const api of c.api) {
      assert.equal((await request(`${api.url}/healthz`)).status, 200);
      const ready = await request(`${api.url}/readyz`);
      assert.equal(ready.status, 200, ready.text);
    }
    const usage = await request(`${c.nginx.url}/api/v1/usage`, { headers: c.auth });
    assert.equal(usage.status, 200, usage.text);
    assert.ok(usage.headers['x-ratelimit-limit'], 'rate-limit headers pass through nginx');
    assert.ok(usage.headers['x-request-id']);
  });

  it('POSTs through nginx after idle pauses of 4 to 6 s: never a 502', async (t) => {
    // Each burst leaves nginx with idle connections to every instance. The next burst comes after a
    // pause around the instances' keep-alive timeout (5 s; 6 s on Node 24, which adds a 1 s
    // buffer), when an instance closes its side: had nginx kept them (its default is 60 s), a POST
    // sent on one at that moment would get a 502, and nginx does not retry a POST elsewhere.
    // Just below each timeout: a burst's connections went idle over the burst's length (tens of ms),
    // so the next burst meets their closing. nginx keeps at most 32 idle connections (keepalive 32).
    const pauses = [4_000, 4_950, 4_990, 5_000, 5_950, 6_000];
    const perBurst = 30;
    const statuses: number[] = [];
    const burst = (round: number) =>
      Promise.all(
        Array.from({ length: perBurst }, (_, i) =>
          request(`${c.nginx.url}/api/v1/certificates`, {
            method: 'POST',
            headers: c.auth,
            // One real issue per burst; the others are refused (422: no recipient), as cheap POSTs.
            body:
              i === 0
                ? {
                    templateId: c.templateId,
                    recipient: {
                      name: `Idle ${round}`,
                      email: `idle-${round}@example.com`,
                      data: { course: 'Keep-alive' },
                    },
                  }
                : { templateId: c.templateId },
            timeoutMs: 30_000,
          }),
        ),
      );
    for (const [round, pause] of [0, ...pauses].entries()) {
      await new Promise((r) => setTimeout(r, pause));
      for (const res of await burst(round)) statuses.push(res.status);
    }
    const tally = statuses.reduce<Record<number, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {});
    t.diagnostic(`answers after the pauses: ${JSON.stringify(tally)}`);
    assert.deepEqual(tally, { 201: pauses.length + 1, 422: (perBurst - 1) * (pauses.length + 1) });
  });

  it('metrics need the token', async () => {
    const url = `${c.api[0]!.url}/metrics`;
    assertEnvelope(await request(url), 401);
    assertEnvelope(await request(url, { headers: { authorization: 'Bearer not-the-token' } }), 401);
    const res = await request(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(res.status, 200, res.text);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.text, /^http_requests_total\{/m);
    assert.match(res.text, /^http_request_duration_seconds_bucket\{/m);
  });

  it('200 sends with two workers are each delivered exactly once, also when a worker stops midway', async () => {
    const ids: string[] = [];
    for (const tag of ['mail-a', 'mail-b']) {
      const res = await batch(c.nginx.url, 100, tag);
      assert.equal(res.status, 201, res.text);
      const data = res.json<{ data: { created: number; results: { certificate?: { id: string } }[] } }>()
        .data;
      assert.equal(data.created, 100);
      ids.push(...data.results.map((r) => r.certificate!.id));
    }
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < ids.length) {
          const id = ids[next++]!;
          const res = await request(`${c.nginx.url}/api/v1/certificates/${id}/send`, {
            method: 'POST',
            headers: c.auth,
            agent,
          });
          assert.equal(res.status, 202, res.text);
        }
      }),
    );
    agent.destroy();
    // One worker is stopped while sends are under way and replaced, as a rolling restart does.
    await waitFor('the first deliveries', async () => c.smtp.received.length >= 20, 60_000);
    const stopped = await c.workers[0]!.stop();
    assert.equal(stopped.code, 0, c.workers[0]!.output());
    c.workers[0] = await startWorker('worker-3', c.env);

    await waitFor(
      'all 200 sends to be sent',
      async () =>
        (await countRows(`SELECT count(*)::int AS n FROM email_sends WHERE status = 'sent'`)) === 200,
      180_000,
    );
    assert.equal(await countRows(`SELECT count(*)::int AS n FROM email_sends WHERE status <> 'sent'`), 0);
    const messageIds = c.smtp.received.map(
      (m) => /^Message-ID:\s*(<[^>\r\n]+>)/im.exec(m.raw.toString('latin1'))?.[1],
    );
    assert.ok(
      messageIds.every((m) => m !== undefined),
      'every message has a Message-ID',
    );
    assert.equal(c.smtp.received.length, 200, 'no message delivered twice');
    assert.equal(new Set(messageIds).size, 200, 'one Message-ID per send');
    const recipientsSeen = new Set(c.smtp.received.flatMap((m) => m.rcptTo));
    assert.equal(recipientsSeen.size, 200);
  });

  it('readiness turns 503 when PostgreSQL stops and 200 when it is back; the API answers without a 500', async () => {
    await c.postgres.stop();
    try {
      for (const api of c.api) {
        await waitFor(
          `${api.name} to report not ready`,
          async () => (await request(`${api.url}/readyz`)).status === 503,
        );
        const res = await request(`${api.url}/api/v1/usage`, { headers: c.auth, timeoutMs: 20_000 });
        assertEnvelope(res, 503);
        assert.ok(Number(res.headers['retry-after']) >= 1, 'Retry-After on 503');
      }
    } finally {
      await c.postgres.start();
    }
    for (const api of c.api) {
      await waitFor(
        `${api.name} to be ready again`,
        async () => (await request(`${api.url}/readyz`)).status === 200,
      );
      const res = await request(`${api.url}/api/v1/usage`, { headers: c.auth });
      assert.equal(res.status, 200, res.text);
    }
  });

  it('Redis stopped: fast 503s with Retry-After, never a 500, and recovery when it is back', async () => {
    const issued = await request(`${c.nginx.url}/api/v1/certificates`, {
      method: 'POST',
      headers: c.auth,
      body: { templateId: c.templateId, recipient: recipients(1, 'redis')[0] },
    });
    assert.equal(issued.status, 201, issued.text);
    const code = issued.json<{ data: { uniqueCode: string } }>().data.uniqueCode;

    await c.redis.stop();
    let restarted = false;
    try {
      for (const api of c.api) {
        await waitFor(
          `${api.name} to report Redis down`,
          async () => (await request(`${api.url}/readyz`)).status === 503,
        );
        for (const path of ['/api/v1/usage', `/api/v1/verify/${code}`]) {
          const res = await request(`${api.url}${path}`, { headers: c.auth, timeoutMs: 5_000 });
          assertEnvelope(res, 503);
          assert.ok(Number(res.headers['retry-after']) >= 1, 'Retry-After on 503');
          assert.ok(res.ms < 1_000, `${path} answered in ${res.ms} ms with Redis down`);
        }
        const page = await request(`${api.url}/verify/${code}`, { timeoutMs: 5_000 });
        assert.equal(page.status, 503);
        assert.match(String(page.headers['content-type']), /^text\/html/);
      }
      await c.redis.start();
      restarted = true;
      const back = Date.now();
      for (const api of c.api) {
        await waitFor(
          `${api.name} to use Redis again`,
          async () => (await request(`${api.url}/api/v1/usage`, { headers: c.auth })).status === 200,
          10_000,
        );
      }
      const recoveredMs = Date.now() - back;
      assert.ok(recoveredMs < 5_000, `recovered ${recoveredMs} ms after Redis came back`);
    } finally {
      if (!restarted) await c.redis.start();
    }
  });

  it('SIGTERM under load: accepted requests complete, the process exits in time, the others carry on', async (t) => {
    const [victim, ...others] = c.api as [(typeof c.api)[0], ...typeof c.api];
    t.diagnostic(
      `peak RSS so far (MiB): ${[...c.api, ...c.workers].map((p) => `${p.name} ${peakRssMiB(p.pid) ?? '?'}`).join(', ')}`,
    );
    const before = await countRows('SELECT count(*)::int AS n FROM certificates');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    let signalledAt = 0;
    let stop = false;

    // Keep-alive clients on the victim: every answer is the normal one, or a 503 once it drains.
    const afterSignal: string[] = [];
    const keepAlive = Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 2_000 && !stop; i++) {
        let res: Reply;
        try {
          res = await request(`${victim.url}/api/v1/certificates?perPage=1`, { headers: c.auth, agent });
        } catch (err) {
          // A connection closed by the draining server, before any answer: the client retries.
          assert.ok(signalledAt, `request failed before the signal: ${String(err)}`);
          afterSignal.push((err as Error).message);
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        if (!signalledAt || res.status === 200) {
          assert.equal(res.status, 200, res.text);
          continue;
        }
        assertEnvelope(res, 503);
        assert.equal(res.headers.connection, 'close');
        afterSignal.push('503');
      }
    });
    // The other instances and nginx keep answering while the victim drains.
    const othersOk = (async () => {
      let n = 0;
      while (!stop) {
        for (const base of [...others.map((o) => o.url), c.nginx.url]) {
          const res = await request(`${base}/api/v1/certificates?perPage=1`, { headers: c.auth });
          assert.equal(res.status, 200, `${base}: ${res.text}`);
          n++;
        }
      }
      return n;
    })();

    const batches = Array.from({ length: 20 }, (_, i) => batch(victim.url, 25, `term-${i}`));
    // The signal comes once every batch is in the server's hands.
    await waitFor(
      'the batches to be under way',
      async () => (await countRows('SELECT count(*)::int AS n FROM certificates')) > before,
      60_000,
    );
    signalledAt = Date.now();
    process.kill(victim.pid, 'SIGTERM');

    const results = await Promise.all(batches);
    for (const res of results) {
      assert.equal(res.status, 201, res.text);
      assert.equal(res.json<{ data: { created: number } }>().data.created, 25);
    }
    const exit = await victim.exited;
    stop = true;
    await Promise.all(keepAlive);
    agent.destroy();
    const othersServed = await othersOk;
    assert.equal(exit.code, 0, victim.output());
    const drainMs = exit.at - signalledAt;
    assert.ok(drainMs < 25_000, `exited ${drainMs} ms after SIGTERM (deadline 25 s)`);
    assert.ok(othersServed > 0);
    const refused = afterSignal.filter((a) => a === '503').length;
    t.diagnostic(
      `drained in ${drainMs} ms; after the signal the keep-alive clients got ${refused} 503s in the ` +
        `envelope and ${afterSignal.length - refused} closed connections`,
    );
    assert.equal(await countRows('SELECT count(*)::int AS n FROM certificates'), before + 20 * 25);
    for (const other of others) assert.equal((await request(`${other.url}/readyz`)).status, 200);
  });

  it('a pg_dump of the database restores into a new database that a fresh instance serves', async () => {
    const issued = await request(`${c.nginx.url}/api/v1/certificates`, {
      method: 'POST',
      headers: c.auth,
      body: { templateId: c.templateId, recipient: recipients(1, 'backup')[0] },
    });
    assert.equal(issued.status, 201, issued.text);
    const cert = issued.json<{ data: { id: string; uniqueCode: string } }>().data;
    const pdf = await download(c.nginx.url, cert.id);

    const dump = path.join(c.dir, 'certsvc.dump');
    await c.postgres.tool('pg_dump', ['--format=custom', `--file=${dump}`, c.postgres.url]);
    const restoredUrl = c.postgres.url.replace(/\/certsvc$/, '/certsvc_restored');
    const admin = new pg.Client({ connectionString: c.postgres.url });
    await admin.connect();
    await admin.query('CREATE DATABASE certsvc_restored');
    await admin.end();
    await c.postgres.tool('pg_restore', ['--no-owner', `--dbname=${restoredUrl}`, dump]);

    const restored = await startApiInstance('api-restored', { ...c.env, DATABASE_URL: restoredUrl });
    try {
      const verified = await request(`${restored.url}/api/v1/verify/${cert.uniqueCode}`);
      assert.equal(verified.status, 200, verified.text);
      assert.equal(verified.json<{ data: { valid: boolean } }>().data.valid, true);
      assert.deepEqual(await download(restored.url, cert.id), pdf, 'the frozen PDF, byte for byte');
    } finally {
      assert.equal((await restored.stop()).code, 0);
    }
  });
});
