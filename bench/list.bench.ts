import { SYSTEM } from '../src/platform/principal.js';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { createDeps, createLogger, type Deps } from '../src/deps.js';
import { startEmbeddedPostgres } from '../src/platform/db/embedded.js';
import { uniqueCode, uuidv7 } from '../src/platform/ids.js';
import type { Design } from '../src/pdf/design.schema.js';
import { insertIssued, revokeCertificate } from '../src/modules/certificates/certificates.repository.js';
import { ms, sequential, startServer, BENCH_SIGNING_KEYS_SECRET } from './support.js';

// The lists of a big account against a small one, over HTTP against the real server:
// the contract's polling call (GET /certificates?status=Issued&page=1&perPage=100), a deep page
// (page 5,000), every filter of the certificate list, an email history and the templates list.
//
//   node dist/bench/list.bench.js                       1,000,000 certificates against 1,000
//   node dist/bench/list.bench.js --big 100000          a smaller big account (npm run bench)
//   node dist/bench/list.bench.js --data-dir DIR        keeps the database in DIR and reuses it
//
// Rows are made by the repository's own insert path (insertIssued: the statements of a batch issue,
// with its list-count triggers), in batches of 5,000 certificates. Rendering is stubbed: every row
// carries the same real frozen PDF, rendered once by the issue service from a one-rectangle design
// (so that 1,000,000 PDFs stay about 1 GB). 0.1% are then revoked by the repository's revocation.

const { values: args } = parseArgs({
  options: {
    big: { type: 'string', default: '1000000' },
    small: { type: 'string', default: '1000' },
    'data-dir': { type: 'string' },
    requests: { type: 'string', default: '300' },
  },
});
const BIG = Number(args.big);
const SMALL = Number(args.small);
const REQUESTS = Number(args.requests);
const BATCH = 5_000;
const FIRST = ['Ana', 'Björn', 'Chloé', 'Dmitri', 'Eva', 'Farah', 'Gustavo', 'Hana', 'Ivan', 'Júlia'];
const LAST = ['Silva', 'Ångström', 'Nakamura', 'Okafor', 'Müller', 'Kowalski', 'Haddad', 'Novak'];

const TINY_DESIGN: Design = {
  name: 'Bench',
  fields: [{ key: 'course', label: 'Course', required: false }],
  page: { width: 200, height: 100 },
  elements: [{ type: 'rect', x: 10, y: 10, width: 20, height: 20, fill: '#336699' }],
};

interface Tenant {
  accountId: string;
  key: string;
  templateIds: string[];
  certificateId: string;
}

const persistent = args['data-dir'] !== undefined;
const dataDir = args['data-dir'] ?? mkdtempSync(path.join(os.tmpdir(), 'certsvc-list-bench-'));
mkdirSync(dataDir, { recursive: true });
const pg = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres(dataDir);
const databaseUrl = process.env.DATABASE_URL ?? pg!.socketUrl ?? pg!.url;
const config = loadConfig({
  ...process.env,
  DATABASE_URL: databaseUrl,
  SIGNING_KEYS_SECRET: BENCH_SIGNING_KEYS_SECRET,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
});
const deps = await createDeps(config, { logger: createLogger({ ...config, logLevel: 'warn' }) });

// Makes an account with `count` certificates; in a kept data directory, an account made by an
// earlier run with the same count is reused.
async function tenant(deps: Deps, count: number): Promise<Tenant> {
  const stateFile = path.join(dataDir, `list-bench-${count}.json`);
  if (persistent && existsSync(stateFile)) return JSON.parse(readFileSync(stateFile, 'utf8')) as Tenant;
  const s = deps.services;
  const account = await s.accounts.create({
    name: `List Bench ${count}`,
    plan: 'Business',
    monthlyLimit: null,
  });
  const key = await s.keys.create(account.id);
  const templates = [
    await s.templates.create(SYSTEM, account.id, TINY_DESIGN),
    await s.templates.create(SYSTEM, account.id, { ...TINY_DESIGN, name: 'Bench two' }),
  ];
  const principal = (await s.keys.authenticate(key.key))!;
  const first = await s.issue.issueOne(principal, templates[0]!.id, {
    name: 'Ana Silva',
    email: 'ana@example.com',
    data: { course: 'Lists' },
  });
  const frozen = (await s.certificates.pdf(account.id, first.id, false)).pdf;
  const sha256 = await s.certificates.pdfHash(account.id, first.id);
  const started = performance.now();
  const start = Date.now() - Math.ceil(count / BATCH) * 60_000;
  for (let done = 1, b = 0; done < count; b++) {
    const n = Math.min(BATCH, count - done);
    const at = start + b * 60_000;
    const items = Array.from({ length: n }, (_, j) => {
      const i = done + j;
      return {
        id: uuidv7(at),
        uniqueCode: uniqueCode(),
        recipientName: `${FIRST[i % FIRST.length]} ${LAST[(i >> 3) % LAST.length]} ${i}`,
        recipientEmail: `r${i}@example.com`,
        title: 'Bench',
        data: { course: 'Lists' },
        pdf: frozen,
        sha256,
      };
    });
    // One template in ten certificates uses the second template, for the templateId filter.
    const templateId = templates[b % 10 === 9 ? 1 : 0]!.id;
    await deps.db.transaction((tx) =>
      insertIssued(tx, {
        accountId: account.id,
        templateId,
        templateVersion: 1,
        issuedAt: new Date(at),
        items,
      }),
    );
    done += n;
    if (b % 20 === 19)
      console.log(`  ${done} certificates (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  const { rows } = await deps.db.query<{ id: string }>(
    `SELECT id FROM certificates WHERE account_id = $1 ORDER BY id LIMIT $2`,
    [account.id, Math.max(1, Math.floor(count / 1000))],
  );
  for (const r of rows) {
    await revokeCertificate(deps.db, { accountId: account.id, id: r.id, at: new Date(), reason: 'bench' });
  }
  console.log(`account of ${count}: made in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const made = {
    accountId: account.id,
    key: key.key,
    templateIds: templates.map((t) => t.id),
    certificateId: first.id,
  };
  if (persistent) writeFileSync(stateFile, JSON.stringify(made));
  return made;
}

const big = await tenant(deps, BIG);
const small = await tenant(deps, SMALL);
// What autovacuum does after such an insert wave; done here so that each run starts alike.
await deps.db.query('VACUUM (ANALYZE) certificates');
await deps.db.query('VACUUM (ANALYZE) list_counts');

const server = await startServer({ DATABASE_URL: databaseUrl, DATA_DIR: dataDir });
try {
  const run = (t: Tenant, query: string, count = REQUESTS) =>
    sequential(`${server.base}/api/v1/${query}`, { authorization: `Bearer ${t.key}` }, count);
  const line = (label: string, r: { p50: number; p99: number }) =>
    `${label.padEnd(58)} p50 ${ms(r.p50).padStart(10)}  p99 ${ms(r.p99).padStart(10)}`;

  const polling = 'certificates?status=Issued&page=1&perPage=100';
  await run(small, polling, 50); // warm-up: connections, plans, caches
  await run(big, polling, 50);
  const pollSmall = await run(small, polling);
  const pollBig = await run(big, polling);
  console.log(`polling call, ${REQUESTS} sequential requests each:`);
  console.log(line(`  ${SMALL} certificates`, pollSmall));
  console.log(line(`  ${BIG} certificates`, pollBig));
  console.log(
    `  ratio of the p50s: ${(pollBig.p50 / pollSmall.p50).toFixed(2)} (goal <= 2; p50 goal <= 15 ms)`,
  );

  const deepPage = Math.min(5_000, Math.floor(BIG / 100));
  const deep = await run(big, `certificates?status=Issued&page=${deepPage}&perPage=100`, 30);
  console.log(line(`page ${deepPage} of the polling call (30 requests)`, deep));

  // createdAfter as a poller sends it (90 s before the newest certificate: the last batch of 5,000
  // is newer), and at the middle of the account (half of it newer).
  const { rows: instants } = await deps.db.query<{ newest: Date; middle: Date }>(
    `SELECT max(created_at) - interval '90 seconds' AS newest,
            percentile_disc(0.5) WITHIN GROUP (ORDER BY created_at) AS middle
       FROM certificates WHERE account_id = $1`,
    [big.accountId],
  );
  const newest = instants[0]!.newest.toISOString();
  const middle = instants[0]!.middle.toISOString();
  const filters = [
    'certificates?page=1&perPage=100',
    'certificates?status=Revoked&perPage=100',
    `certificates?status=Issued&createdAfter=${newest}&perPage=100`,
    `certificates?createdAfter=${middle}&perPage=100`,
    `certificates?status=Issued&createdAfter=${middle}&perPage=100`,
    'certificates?recipientEmail=R4242@example.com',
    'certificates?status=Issued&recipientEmail=r4242@example.com',
    `certificates?templateId=${big.templateIds[1]}&perPage=100`,
    `certificates?status=Revoked&templateId=${big.templateIds[1]}&perPage=100`,
    'certificates?q=gustavo%20novak%20424&perPage=100',
    'certificates?status=Issued&q=angstrom&perPage=100',
    `certificates?status=Issued&templateId=${big.templateIds[0]}&recipientEmail=r4242@example.com`,
    `certificates/${big.certificateId}/emails`,
    'templates',
  ];
  console.log(`\nevery filter, ${BIG} certificates (30 sequential requests each):`);
  const names: [string, string][] = [
    [big.templateIds[0]!, '<1st>'],
    [big.templateIds[1]!, '<2nd>'],
    [big.certificateId, '<id>'],
    [newest, '<newest - 90 s>'],
    [middle, '<middle>'],
  ];
  for (const f of filters) {
    const label = names.reduce((text, [value, name]) => text.replace(value, name), decodeURIComponent(f));
    const first = await fetch(`${server.base}/api/v1/${f}`, {
      headers: { authorization: `Bearer ${big.key}` },
    });
    const total = ((await first.json()) as { pagination?: { total: number } }).pagination?.total;
    console.log(`${line(`  ${label}`, await run(big, f, 30))}  total ${total}`);
  }
} finally {
  await server.stop();
  await deps.close();
  await pg?.release();
  if (!persistent) rmSync(dataDir, { recursive: true, force: true });
}
