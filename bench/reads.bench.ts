import {
  benchDatabase,
  cpuDuring,
  issuedAccount,
  load,
  loadLine,
  postmasterPid,
  startServer,
} from './support.js';

// Authenticated reads under load: GET /api/v1/certificates/:id with a random one of 100 keys and a
// random one of 1,000 certificates per request, 32 connections (autocannon, loopback), limits
// raised with RATE_LIMIT_MAX. Every request stamps its key's last_used_at (asynchronous commit,
// docs/operations.md). Run: `node dist/bench/reads.bench.js [seconds]`.

const CERTIFICATES = 1_000;
const KEYS = 100;
const CONNECTIONS = 32;

const seconds = Number(process.argv[2] ?? 10);
const bench = await benchDatabase();
const { deps } = bench;
const account = await issuedAccount(deps, CERTIFICATES);
const keys = [account.key];
while (keys.length < KEYS) keys.push((await deps.services.keys.create(account.accountId)).key);
const ids = account.certificates.map((c) => c.id);
const server = await startServer({ DATABASE_URL: bench.databaseUrl, DATA_DIR: bench.dataDir });
try {
  const pick = <T>(list: T[]) => list[Math.floor(Math.random() * list.length)]!;
  const next = () => ({
    path: `/api/v1/certificates/${pick(ids)}`,
    headers: { authorization: `Bearer ${pick(keys)}` },
  });
  const run = (s: number) => load({ base: server.base, next, connections: CONNECTIONS, seconds: s });
  await run(3); // warm-up
  const started = new Date();
  const pgPid = postmasterPid(bench.dataDir);
  console.log(
    `GET /api/v1/certificates/:id over ${KEYS} keys, ${CONNECTIONS} connections, ${seconds} s per run:`,
  );
  for (let round = 1; round <= 2; round++) {
    const { value: r, cpu } = await cpuDuring([server.process.pid!, ...(pgPid ? [pgPid] : [])], () =>
      run(seconds),
    );
    console.log(loadLine(`  round ${round}`, r) + ' (goal >= 2,500 req/s, no failures)');
    const us = (c: number) => `${Math.round((c / r.requests) * 1e6)} µs`;
    console.log(`  CPU per request: server ${us(cpu[0]!)}${pgPid ? `, PostgreSQL ${us(cpu[1]!)}` : ''}`);
  }
  const { rows } = await deps.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM api_keys WHERE account_id = $1 AND last_used_at >= $2',
    [account.accountId, started],
  );
  console.log(`keys whose last_used_at moved during the runs: ${rows[0]!.n} of ${KEYS}`);
} finally {
  await server.stop();
  await bench.close();
}
