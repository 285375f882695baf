import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  benchDatabase,
  cpuDuring,
  issuedAccount,
  load,
  loadLine,
  postmasterPid,
  startServer,
  type LoadResult,
} from './support.js';

// Public verification (GET /api/v1/verify/:code) under load, against a bare node:http server that
// answers the same bytes, in the same run: `node dist/bench/verify.bench.js [seconds]`.
// 1,000 certificates issued by the issue service; each request verifies one of them at random;
// 32 connections (autocannon, loopback); limits raised with RATE_LIMIT_MAX. At the end the
// verification counts in the database must add up to the successful requests exactly.

const CERTIFICATES = 1_000;
const CONNECTIONS = 32;

// Child mode: the bare server, answering every request with the captured status, headers and body.
if (process.argv[2] === 'bare') {
  process.once('message', (m: { headers: Record<string, string>; body: string }) => {
    const body = Buffer.from(m.body);
    const server = http.createServer((_req, res) => {
      res.writeHead(200, m.headers);
      res.end(body);
    });
    server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  });
} else {
  await main();
}

async function main() {
  const seconds = Number(process.argv[2] ?? 10);
  const bench = await benchDatabase();
  const { deps } = bench;
  const { certificates } = await issuedAccount(deps, CERTIFICATES);
  const codes = certificates.map((c) => c.uniqueCode);
  const server = await startServer({ DATABASE_URL: bench.databaseUrl, DATA_DIR: bench.dataDir });
  const bare = fork(import.meta.filename, ['bare'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const sample = await fetch(`${server.base}/api/v1/verify/${codes[0]}`);
    const headers: Record<string, string> = {};
    sample.headers.forEach((value, name) => {
      if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) headers[name] = value;
    });
    const body = await sample.text();
    bare.send({ headers, body });
    const { port } = await new Promise<{ port: number }>((r) =>
      bare.once('message', (m) => r(m as { port: number })),
    );
    const random = () => ({ path: `/api/v1/verify/${codes[Math.floor(Math.random() * codes.length)]}` });
    const run = (base: string, s: number) =>
      load({ base, next: random, connections: CONNECTIONS, seconds: s });

    let successes = 1; // the sample above
    const counted = (r: LoadResult) => {
      successes += r.requests - r.failures;
      return r;
    };
    counted(await run(server.base, 3)); // warm-up
    await run(`http://127.0.0.1:${port}`, 2);
    const results: { certsvc: LoadResult; bare: LoadResult }[] = [];
    const pgPid = postmasterPid(bench.dataDir);
    let serverCpu = 0;
    let pgCpu = 0;
    let served = 0;
    for (let round = 0; round < 2; round++) {
      const { value: certsvc, cpu } = await cpuDuring([server.process.pid!, ...(pgPid ? [pgPid] : [])], () =>
        run(server.base, seconds),
      );
      counted(certsvc);
      serverCpu += cpu[0]!;
      pgCpu += cpu[1] ?? 0;
      served += certsvc.requests;
      results.push({ certsvc, bare: await run(`http://127.0.0.1:${port}`, seconds) });
    }
    console.log(
      `GET /api/v1/verify/:code, ${CONNECTIONS} connections, ${seconds} s per run, ${body.length} bytes:`,
    );
    for (const [i, r] of results.entries()) {
      console.log(loadLine(`  round ${i + 1}: certsvc`, r.certsvc));
      console.log(loadLine(`  round ${i + 1}: bare node:http, same bytes`, r.bare));
      console.log(
        `  round ${i + 1}: certsvc / bare = ${(r.certsvc.rps / r.bare.rps).toFixed(2)} (goal: certsvc >= 3,000 req/s, no failures)`,
      );
    }
    const perRequest = (cpu: number) => `${Math.round((cpu / served) * 1e6)} µs`;
    console.log(
      `CPU per verification: server ${perRequest(serverCpu)}` +
        (pgPid ? `, PostgreSQL ${perRequest(pgCpu)} (postmaster and backends, /proc)` : ''),
    );
    const stats = await deps.db.query<{ n_tup_upd: number; n_tup_hot_upd: number }>(
      `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'certificates'`,
    );
    console.log(
      `certificates updates: ${stats.rows[0]!.n_tup_upd}, of which HOT: ${stats.rows[0]!.n_tup_hot_upd}`,
    );
    const { rows } = await deps.db.query<{ n: number }>(
      'SELECT sum(verification_count)::bigint AS n FROM certificates WHERE unique_code = ANY($1)',
      [codes],
    );
    console.log(
      `verification counts: ${rows[0]!.n} in the database for ${successes} answered verifications ` +
        `(autocannon does not count the up to ${CONNECTIONS} requests per run in flight when it stops)`,
    );
  } finally {
    bare.kill();
    await server.stop();
    await bench.close();
  }
}
