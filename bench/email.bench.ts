import { SYSTEM } from '../src/platform/principal.js';
import { BENCH_SIGNING_KEYS_SECRET } from './support.js';
// Email delivery throughput: 1,000 queued sends, each with its frozen PDF, drained by one worker
// (the real one, as `certsvc serve` runs it) to a local SMTP server in a child process.
// Run: `npx tsc -p tsconfig.json && node dist/bench/email.bench.js` (uses DATABASE_URL when set,
// otherwise an embedded PostgreSQL in a temporary folder). Goal: >= 100 messages a second.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

const SENDS = 1_000;
const BATCH = 500;

// Child mode: a real SMTP server (npm smtp-server) that accepts everything and reports counts.
if (process.argv[2] === 'smtp-server') {
  const { SMTPServer } = await import('smtp-server');
  let messages = 0;
  let bytes = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 200,
    onData(stream, _session, callback) {
      stream.on('data', (c: Buffer) => (bytes += c.length));
      stream.on('end', () => {
        messages++;
        callback();
      });
    },
  });
  server.listen(0, '127.0.0.1', () => {
    process.send!({ port: (server.server.address() as AddressInfo).port });
  });
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'count') process.send!({ messages, bytes });
    if (m.cmd === 'stop') server.close(() => process.exit(0));
  });
} else {
  await main();
}

async function main() {
  const { loadConfig } = await import('../src/config.js');
  const { createDeps, createLogger } = await import('../src/deps.js');
  const { readDesignFile } = await import('../src/cli/design-file.js');
  const { DEMO_DESIGN } = await import('../src/cli/demo.js');
  const { startEmbeddedPostgres } = await import('../src/platform/db/embedded.js');

  const smtp = fork(import.meta.filename, ['smtp-server'], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ask = <T>(cmd: string) =>
    new Promise<T>((resolve) => {
      smtp.once('message', (m) => resolve(m as T));
      smtp.send({ cmd });
    });
  const { port } = await new Promise<{ port: number }>((resolve) =>
    smtp.once('message', (m) => resolve(m as { port: number })),
  );

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'certsvc-email-bench-'));
  const pg = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres(dataDir);
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: process.env.DATABASE_URL ?? pg!.socketUrl ?? pg!.url,
    SIGNING_KEYS_SECRET: BENCH_SIGNING_KEYS_SECRET,
    DATA_DIR: dataDir,
    SMTP_URL: `smtp://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
  });
  const deps = await createDeps(config, { logger: createLogger({ ...config, logLevel: 'warn' }) });
  const s = deps.services;
  const ms = (start: number) => Math.round(performance.now() - start);
  try {
    const account = await s.accounts.create({
      name: 'Email Bench Academy',
      plan: 'Business',
      monthlyLimit: 1_000_000,
    });
    const key = await s.keys.create(account.id);
    const principal = (await s.keys.authenticate(key.key))!;
    const template = await s.templates.create(SYSTEM, account.id, await readDesignFile(DEMO_DESIGN.pathname));

    let start = performance.now();
    const ids: string[] = [];
    for (let b = 0; b < SENDS / BATCH; b++) {
      const outcome = await s.issue.issueBatch(
        principal,
        template.id,
        Array.from({ length: BATCH }, (_, i) => ({
          name: `Bench Recipient ${b * BATCH + i}`,
          email: `bench${b * BATCH + i}@example.com`,
          data: { course: 'Throughput' },
        })),
      );
      for (const r of outcome.results) if (r.status === 'created') ids.push(r.certificate.id);
    }
    if (ids.length !== SENDS) throw new Error(`issued ${ids.length} of ${SENDS}`);
    console.log(`issued ${SENDS} certificates (2 batches of ${BATCH}) in ${ms(start)} ms`);

    start = performance.now();
    for (const id of ids) await s.emails.send(principal, id);
    console.log(`queued ${SENDS} sends (one request's work each, sequential) in ${ms(start)} ms`);
    const { rows } = await deps.db.query<{ avg: number }>(
      'SELECT avg(length(pdf))::int AS avg FROM certificate_pdfs p JOIN certificates c ON c.id = p.certificate_id WHERE c.account_id = $1',
      [account.id],
    );
    console.log(`mean PDF attachment: ${rows[0]!.avg} bytes`);

    start = performance.now();
    const worker = s.startEmailWorker();
    let sent = 0;
    while (sent < SENDS) {
      await new Promise((r) => setTimeout(r, 20));
      const r = await deps.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM email_sends WHERE account_id = $1 AND status = 'sent'",
        [account.id],
      );
      sent = r.rows[0]!.n;
      const failed = await deps.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM email_sends WHERE account_id = $1 AND (status = 'failed' OR (status = 'queued' AND attempts > 0))",
        [account.id],
      );
      if (failed.rows[0]!.n > 0) throw new Error(`${failed.rows[0]!.n} sends failed or are retrying`);
    }
    const total = performance.now() - start;
    await worker.stop();
    const counted = await ask<{ messages: number; bytes: number }>('count');
    console.log(
      `drained ${SENDS} sends in ${Math.round(total)} ms: ${Math.round((SENDS / total) * 1000)} messages/s ` +
        `(SMTP server received ${counted.messages} messages, ${(counted.bytes / 1e6).toFixed(1)} MB)`,
    );
    console.log(`goal >= 100 messages/s: ${(SENDS / total) * 1000 >= 100 ? 'met' : 'NOT met'}`);
  } finally {
    smtp.send({ cmd: 'stop' });
    await deps.close();
    await pg?.release();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
