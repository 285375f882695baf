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
// `--against DIR`: the build of another checkout (e.g. a worktree of the commit before a change)
// serves too, on the same database, in the same rounds (its turn first in odd rounds, second in
// even ones), so that both are measured under the same load.

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
  const args = process.argv.slice(2);
  const againstAt = args.indexOf('--against');
  const against = againstAt === -1 ? undefined : args.splice(againstAt, 2)[1];
  const seconds = Number(args[0] ?? 10);
  const bench = await benchDatabase();
  const { deps } = bench;
  const { certificates } = await issuedAccount(deps, CERTIFICATES);
  const codes = certificates.map((c) => c.uniqueCode);
  const env = { DATABASE_URL: bench.databaseUrl, DATA_DIR: bench.dataDir };
  const server = await startServer(env);
  const before = against ? await startServer(env, { root: against }) : undefined;
  const bare = fork(import.meta.filename, ['bare'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const sample = await fetch(`${server.base}/api/v1/verify/${codes[0]}`);
    const headers: Record<string, string> = {};
    sample.headers.forEach((value, name) => {
      if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)) headers[name] = value;
    });
    const body = await sample.text();
    if (before) {
      // Each server's links name its own port (PUBLIC_BASE_URL is unset): the rest must be the same.
      const ports = /localhost(:|%3A)\d+/g;
      const theirs = await (await fetch(`${before.base}/api/v1/verify/${codes[0]}`)).text();
      const same = theirs.replace(ports, 'localhost') === body.replace(ports, 'localhost');
      console.log(
        `the answer's bytes: ${same ? 'the same' : 'DIFFERENT'} in both builds (apart from the port)`,
      );
      if (!same) console.log(`  this build: ${body}\n  the other:  ${theirs}`);
    }
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
    const pgPid = postmasterPid(bench.dataDir);
    const builds = [
      { label: 'certsvc', server, cpu: 0, pgCpu: 0, served: 0 },
      ...(before
        ? [{ label: `certsvc before (${against})`, server: before, cpu: 0, pgCpu: 0, served: 0 }]
        : []),
    ];
    for (const b of builds) counted(await run(b.server.base, 3)); // warm-up
    await run(`http://127.0.0.1:${port}`, 2);
    const lines: string[] = [];
    for (let round = 0; round < 2; round++) {
      const rps = new Map<string, number>();
      for (const b of round % 2 === 0 ? [...builds].reverse() : builds) {
        const { value, cpu } = await cpuDuring([b.server.process.pid!, ...(pgPid ? [pgPid] : [])], () =>
          run(b.server.base, seconds),
        );
        counted(value);
        b.cpu += cpu[0]!;
        b.pgCpu += cpu[1] ?? 0;
        b.served += value.requests;
        rps.set(b.label, value.rps);
        lines.push(loadLine(`  round ${round + 1}: ${b.label}`, value));
      }
      const bare = await run(`http://127.0.0.1:${port}`, seconds);
      lines.push(loadLine(`  round ${round + 1}: bare node:http, same bytes`, bare));
      for (const [label, r] of rps) {
        lines.push(
          `  round ${round + 1}: ${label} / bare = ${(r / bare.rps).toFixed(2)} (goal: at least 0.3)`,
        );
      }
    }
    console.log(
      `GET /api/v1/verify/:code, ${CONNECTIONS} connections, ${seconds} s per run, ${body.length} bytes:`,
    );
    for (const line of lines) console.log(line);
    for (const b of builds) {
      const perRequest = (cpu: number) => `${Math.round((cpu / b.served) * 1e6)} µs`;
      console.log(
        `CPU per verification, ${b.label}: server ${perRequest(b.cpu)}` +
          (pgPid ? `, PostgreSQL ${perRequest(b.pgCpu)} (postmaster and backends, /proc)` : ''),
      );
    }
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
    await before?.stop();
    await server.stop();
    await bench.close();
  }
}
