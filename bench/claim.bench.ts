import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { mintClaimToken } from '../src/modules/shared/claim-tokens.js';
import {
  ed25519Holder,
  p256Holder,
  prepareCredentialRequest,
  type Holder,
} from '../test/wallet/oid4vci-wallet.js';
import {
  benchDatabase,
  cpuSeconds,
  issuedAccount,
  ms,
  percentile,
  postmasterPid,
  startServer,
} from './support.js';

// Claiming into a wallet (issue 31: "claiming costs one signature, at most 5 ms p50"): the real
// server (a child process, the embedded PostgreSQL), a wallet on loopback made with the
// @openid4vc/openid4vci client, one certificate per claim. Timed: the credential request alone (the
// key proof checked, the credential bound to the holder and signed, the claim counted and recorded),
// for each format, with the CPU the server and PostgreSQL used for it (/proc, 10 ms ticks summed
// over the requests) and the server's own time from its Server-Timing header (the rest of the timed
// request is HTTP on loopback and the wallet library's work); and proof.signBound alone in this
// process. The offer, token and nonce requests
// before it are not timed.
// Usage: node dist/bench/claim.bench.js [claims] [--against DIR] [--rounds N]
// --against: the checkout (built, dist/ beside bin/) of another build, e.g. a worktree of the commit before a
// change; each round runs a server of each build on the same database, one after the other, the
// order alternating from round to round.

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { against: { type: 'string' }, rounds: { type: 'string', default: '1' } },
});
const claims = Number(positionals[0] ?? 200);
const rounds = Number(flags.rounds);
const builds = [
  { label: 'this build', root: undefined as string | undefined },
  ...(flags.against ? [{ label: path.resolve(flags.against), root: path.resolve(flags.against) }] : []),
];
const db = await benchDatabase();
const pgPid = postmasterPid(db.dataDir);
const holder = await ed25519Holder();
const jwkHolder = p256Holder();

interface Figures {
  ldp: number[];
  sdJwt: number[];
  /** The server's own time per request (its Server-Timing header), by format; absent in older builds. */
  server: { ldp: number[]; sdJwt: number[] };
  serverCpu: number;
  pgCpu: number;
}

// One server of a build: warm-up claims, then `claims` of each format, alternating.
async function runBuild(root: string | undefined, certificates: { id: string }[]): Promise<Figures> {
  const server = await startServer(
    { DATABASE_URL: db.databaseUrl, DATA_DIR: db.dataDir },
    root ? { root } : {},
  );
  const figures: Figures = { ldp: [], sdJwt: [], server: { ldp: [], sdJwt: [] }, serverCpu: 0, pgCpu: 0 };

  async function claim(
    certificateId: string,
    who: Holder,
    configuration: string,
    into?: number[],
    serverInto?: number[],
  ) {
    const token = await mintClaimToken(db.deps.db, certificateId, new Date());
    const { request } = await prepareCredentialRequest(server.base, token, who, configuration);
    const cpu0 = [cpuSeconds(server.process.pid!), pgPid ? cpuSeconds(pgPid) : 0];
    const start = performance.now();
    const response = await request();
    const took = performance.now() - start;
    if (!into) return;
    into.push(took);
    const timing = /app;dur=([\d.]+)/.exec(response.response.headers.get('server-timing') ?? '');
    if (timing) serverInto!.push(Number(timing[1]));
    figures.serverCpu += cpuSeconds(server.process.pid!) - cpu0[0]!;
    figures.pgCpu += (pgPid ? cpuSeconds(pgPid) : 0) - cpu0[1]!;
    if (!response.credentialResponse.credentials?.length) throw new Error('no credential');
  }

  try {
    // Warm-up: the first claims load the OID4VCI modules and compile the bound credential's shape.
    for (const c of certificates.slice(0, 5)) await claim(c.id, holder, 'OpenBadgeCredential_ldp_vc');
    for (const c of certificates.slice(5, 10)) await claim(c.id, jwkHolder, 'LearningCredential_sd_jwt');
    for (let i = 0; i < claims; i++) {
      const ldp = certificates[10 + i]!.id;
      const sdJwt = certificates[10 + claims + i]!.id;
      await claim(ldp, holder, 'OpenBadgeCredential_ldp_vc', figures.ldp, figures.server.ldp);
      await claim(sdJwt, jwkHolder, 'LearningCredential_sd_jwt', figures.sdJwt, figures.server.sdJwt);
    }
  } finally {
    await server.stop();
  }
  return figures;
}

const line = (label: string, xs: number[]) =>
  `${label}: p50 ${ms(percentile(xs, 50))}, p95 ${ms(percentile(xs, 95))} (${xs.length} claims)`;
const perRequest = (seconds: number) => ms((seconds * 1000) / (2 * claims));

try {
  const perRun = 2 * claims + 10;
  const { accountId, certificates } = await issuedAccount(db.deps, perRun * rounds * builds.length);
  let next = 0;
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) {
      const f = await runBuild(build.root, certificates.slice(next, next + perRun));
      next += perRun;
      console.log(`round ${round + 1}, ${build.label}:`);
      console.log(`  ${line('OID4VCI credential request, ldp_vc (Open Badges 3.0, Ed25519 holder)', f.ldp)}`);
      console.log(`  ${line('OID4VCI credential request, dc+sd-jwt (P-256 holder)', f.sdJwt)}`);
      if (f.server.ldp.length > 0) {
        console.log(
          `  the server's own time (Server-Timing), p50: ldp_vc ${ms(percentile(f.server.ldp, 50))}, dc+sd-jwt ${ms(percentile(f.server.sdJwt, 50))}`,
        );
      }
      console.log(
        `  CPU per credential request (both formats): server ${perRequest(f.serverCpu)}, PostgreSQL ${perRequest(f.pgCpu)}`,
      );
      console.log(
        `  goal: at most 5 ms p50 per claim: ${percentile(f.ldp, 50) <= 5 && percentile(f.sdJwt, 50) <= 5 ? 'met' : 'NOT met'}`,
      );
    }
  }

  const proof = db.deps.services.proof;
  const alone: number[] = [];
  for (let i = 0; i < claims; i++) {
    const start = performance.now();
    await proof.signBound({
      accountId,
      certificateId: certificates[i]!.id,
      holderDid: holder.did!,
      now: new Date(),
    });
    alone.push(performance.now() - start);
  }
  console.log(line('proof.signBound alone, in process (read the frozen credential, sign)', alone));
} finally {
  await db.close();
}
