import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/app.js';
import { freePort } from '../../src/platform/net.js';
import { issueOne } from '../certificates/support.js';
import type { TestApp } from '../helpers/app.js';
import { crashSetting, startServer } from '../helpers/server-process.js';

// Verification counts are added up in memory and written in batches (verification-counter.ts);
// none is lost or counted twice through a SIGTERM. Two instances on one database: this process's
// app (A) and a real `certsvc serve` (B), which gets a SIGTERM while verifications are in flight.
// The database's count must equal the verifications answered 200, over both instances.

const TOTAL = 10_000;
const WORKERS = 16;

let setting: Awaited<ReturnType<typeof crashSetting>>;
let app: FastifyInstance;

before(async () => {
  setting = await crashSetting('vcount');
  app = await createApp(setting.deps);
});
after(async () => {
  await app.close();
  await setting.close();
});

describe('verification counts through a SIGTERM', () => {
  it(`are exact after ${TOTAL} verifications over two instances and a SIGTERM of one`, async () => {
    const a: TestApp = { app, deps: setting.deps, close: async () => undefined };
    const codes: string[] = [];
    for (let i = 0; i < 20; i++) codes.push((await issueOne(a, setting.tenant)).uniqueCode);
    const b = await startServer({
      port: await freePort(),
      databaseUrl: setting.databaseUrl,
      dataDir: setting.dataDir,
      children: setting.children,
    });
    const exited = new Promise<number | null>((resolve) => b.child.once('exit', (code) => resolve(code)));
    let answered = 0;
    let answeredByB = 0;
    let refusedByB = 0;
    let signalled = false;
    const code = (i: number) => codes[i % codes.length]!;

    // B: verifications until it stops answering; the SIGTERM goes when it has answered half.
    const onB = async (worker: number) => {
      for (let i = worker; ; i += WORKERS) {
        let ok = false;
        try {
          const res = await fetch(`${b.base}/api/v1/verify/${code(i)}`);
          await res.arrayBuffer();
          ok = res.status === 200;
          if (!ok) assert.equal(res.status, 503, `B answered ${res.status}`);
        } catch {
          ok = false;
        }
        if (!ok) {
          refusedByB++;
          assert.ok(signalled, 'B refused a verification before its SIGTERM');
          return;
        }
        answered++;
        answeredByB++;
        if (!signalled && answeredByB >= TOTAL / 2) {
          signalled = true;
          b.child.kill('SIGTERM');
        }
      }
    };
    // A: the other half.
    const onA = async (worker: number) => {
      for (let i = worker; i < TOTAL / 2; i += WORKERS) {
        const res = await app.inject({
          url: `/api/v1/verify/${code(i)}`,
          remoteAddress: `10.1.${(i >> 8) & 255}.${i & 255}`,
        });
        assert.equal(res.statusCode, 200, res.body);
        answered++;
      }
    };
    const workers = Array.from({ length: WORKERS }, (_, w) => [onB(w), onA(w)]).flat();
    await Promise.all(workers);
    assert.equal(await exited, 0, b.output());
    assert.ok(
      refusedByB > 0 && answeredByB >= TOTAL / 2,
      `${answeredByB} answered, ${refusedByB} refused by B`,
    );
    assert.ok(answered >= TOTAL);

    await setting.deps.services.verify.flushCounts();
    const { rows } = await setting.deps.db.query<{ n: number }>(
      'SELECT sum(verification_count)::int AS n FROM certificates WHERE unique_code = ANY($1)',
      [codes],
    );
    assert.equal(rows[0]!.n, answered, `${answeredByB} answered by B, ${answered - answeredByB} by A`);
  });
});
