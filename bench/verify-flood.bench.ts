import { fork } from 'node:child_process';
import { SYSTEM } from '../src/platform/principal.js';
import { readDesignFile } from '../src/cli/design-file.js';
import { DEMO_DESIGN } from '../src/cli/demo.js';
import type { Design } from '../src/pdf/design.schema.js';
import {
  benchDatabase,
  issuedAccount,
  load,
  loadLine,
  ms,
  percentile,
  startServer,
  type LoadResult,
} from './support.js';

// A verification flood does not slow issuing (issue 34, item 2): `node dist/bench/verify-flood.bench.js
// [seconds]`. The real server (a child process, TRUST_PROXY=loopback, limits raised with
// RATE_LIMIT_MAX) gets 32 connections of GET /api/v1/verify/:code from many addresses (a random
// X-Forwarded-For per request, 10.x.y.z) over 200 certificates of one account, while another
// account issues one certificate at a time (POST /api/v1/certificates, sequential). Its latency is
// measured without the flood, under it, and without it again, in the same run. The flood comes from
// a child process of its own, so that its load generator does not slow the issuing client.
// `--against DIR`: the build of another checkout (e.g. a worktree of the commit before a change) is
// measured the same way on the same database, first, then this build.

const CONNECTIONS = 32;
const BASELINE = 150;
const octet = () => Math.floor(Math.random() * 256);

// Child mode: the flood, told the server, the codes and the seconds; answers its load result.
if (process.argv[2] === 'flood') {
  process.once('message', async (m: { base: string; codes: string[]; seconds: number }) => {
    const result = await load({
      base: m.base,
      next: () => ({
        path: `/api/v1/verify/${m.codes[Math.floor(Math.random() * m.codes.length)]}`,
        headers: { 'x-forwarded-for': `10.${octet()}.${octet()}.${octet()}` },
      }),
      connections: CONNECTIONS,
      seconds: m.seconds,
    });
    process.send!(result, () => process.exit(0));
  });
} else {
  await main();
}

async function main() {
  const args = process.argv.slice(2);
  const againstAt = args.indexOf('--against');
  const against = againstAt === -1 ? undefined : args.splice(againstAt, 2)[1];
  const seconds = Number(args[0] ?? 15);
  const bench = await benchDatabase();
  const { deps } = bench;
  const verified = await issuedAccount(deps, 200);
  const codes = verified.certificates.map((c) => c.uniqueCode);
  const s = deps.services;
  const issuer = await s.accounts.create({ name: 'Issuing Academy', plan: 'Business', monthlyLimit: null });
  const key = await s.keys.create(issuer.id);
  const template = await s.templates.create(
    SYSTEM,
    issuer.id,
    (await readDesignFile(DEMO_DESIGN.pathname)) as Design,
  );
  const env = { DATABASE_URL: bench.databaseUrl, DATA_DIR: bench.dataDir, TRUST_PROXY: 'loopback' };
  const builds = [
    ...(against ? [{ label: `before (${against})`, root: against }] : []),
    { label: 'this build', root: undefined },
  ];

  let n = 0;
  async function issueOne(base: string): Promise<number> {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/v1/certificates`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        templateId: template.id,
        recipient: {
          name: `Ada Lovelace ${n}`,
          email: `issue${n++}@example.com`,
          data: { course: 'Safe Lifting', hours: 12 },
        },
      }),
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`issue answered ${res.status}`);
    return performance.now() - t0;
  }

  async function issues(base: string, count: number): Promise<number[]> {
    const times: number[] = [];
    for (let i = 0; i < count; i++) times.push(await issueOne(base));
    return times;
  }

  const line = (label: string, times: number[]) =>
    `${label.padEnd(34)} p50 ${ms(percentile(times, 50))}  p99 ${ms(percentile(times, 99))}  (${times.length} issues)`;

  // Single issues without the flood, during it, and without it again, against one server.
  async function measure(base: string) {
    await issues(base, 20); // warm-up: the PDF threads, the statements
    const before = await issues(base, BASELINE);
    let flooding = true;
    const during: number[] = [];
    const issuing = (async () => {
      while (flooding) during.push(await issueOne(base));
    })();
    const child = fork(import.meta.filename, ['flood'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.send({ base, codes, seconds });
    const flood = await new Promise<LoadResult>((resolve) =>
      child.once('message', (m) => resolve(m as LoadResult)),
    );
    flooding = false;
    await issuing;
    return { before, during, afterwards: await issues(base, BASELINE), flood };
  }

  try {
    for (const build of builds) {
      const server = await startServer(env, { root: build.root });
      try {
        const { before, during, afterwards, flood } = await measure(server.base);
        console.log(
          `${build.label}: single issue of another account, with and without ${CONNECTIONS} connections of verifications:`,
        );
        console.log(line('  without the flood (before)', before));
        console.log(line('  during the flood', during));
        console.log(line('  without the flood (after)', afterwards));
        console.log(loadLine(`  the flood (${seconds} s, random X-Forwarded-For)`, flood));
        const ratio = percentile(during, 99) / percentile([...before, ...afterwards], 99);
        console.log(`  p99 during / p99 without (before and after) = ${ratio.toFixed(2)} (goal: at most 2)`);
      } finally {
        await server.stop();
      }
    }
  } finally {
    await bench.close();
  }
}
