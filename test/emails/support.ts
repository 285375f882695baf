import { randomBytes } from 'node:crypto';
import { simpleParser, type ParsedMail } from 'mailparser';
import pg from 'pg';
import pino from 'pino';
import type { Db } from '../../src/platform/db/db.js';
import {
  startEmailWorker,
  type EmailWorker,
  type EmailWorkerOptions,
} from '../../src/modules/emails/email.worker.js';
import { createSmtpTransport, type SmtpOptions } from '../../src/modules/emails/mail-transport.js';
import assert from 'node:assert/strict';
import { createTenant, startTestApp, testDatabaseUrl, type Tenant, type TestApp } from '../helpers/app.js';
import { freePort } from '../../src/platform/net.js';
import { startSmtpServer, type TestSmtpServer } from './smtp-test-server.js';
export { freePort };

/**
 * A database of its own on the test server. The email worker claims due sends of every account, so a
 * worker on the shared test database would steal (and deliver) other test files' sends, and theirs ours.
 */
export interface FreshDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createFreshDatabase(): Promise<FreshDatabase> {
  const base = new URL(testDatabaseUrl());
  const name = `certsvc_email_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base.href });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base.href);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async drop() {
      const c = new pg.Client({ connectionString: base.href });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export interface Env {
  db: FreshDatabase;
  t: TestApp;
  tenant: Tenant;
  close(): Promise<void>;
}

// Each test gets its own database, so that no worker of another test can take its sends.
export async function setup(): Promise<Env> {
  const db = await createFreshDatabase();
  const t = await startTestApp({ DATABASE_URL: db.url, RATE_LIMIT_MAX: '100000' });
  const tenant = await createTenant(t.deps);
  return {
    db,
    t,
    tenant,
    async close() {
      await t.close();
      await db.drop();
    },
  };
}

// An app with a database of its own (its email worker takes every queued send it finds), a real
// SMTP server and the worker started: what the tests of emailed flows share. `env` adds settings.
export interface MailingApp {
  db: FreshDatabase;
  smtp: TestSmtpServer;
  t: TestApp;
  worker: EmailWorker;
  close(): Promise<void>;
}

export async function startMailingApp(env: Record<string, string> = {}): Promise<MailingApp> {
  const db = await createFreshDatabase();
  const smtp = await startSmtpServer();
  const t = await startTestApp({
    DATABASE_URL: db.url,
    SMTP_URL: smtp.url,
    MAIL_FROM,
    EMAIL_POLL_MS: '50',
    RATE_LIMIT_MAX: '100000',
    ...env,
  });
  const worker = t.deps.services.startEmailWorker();
  return {
    db,
    smtp,
    t,
    worker,
    async close() {
      await worker.stop();
      await t.close();
      await smtp.close();
      await db.drop();
    },
  };
}

export async function issueMany(
  env: Pick<Env, 't' | 'tenant'>,
  count: number,
): Promise<{ id: string; uniqueCode: string }[]> {
  const res = await env.t.app.inject({
    method: 'POST',
    url: '/api/v1/certificates',
    headers: env.tenant.auth,
    payload: {
      templateId: env.tenant.templateId,
      recipients: Array.from({ length: count }, (_, i) => ({
        name: `Recipient ${i}`,
        email: `r${i}@example.com`,
        data: { course: 'Retries 101' },
      })),
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  const body = res.json().data as {
    created: number;
    results: { certificate: { id: string; uniqueCode: string } }[];
  };
  assert.equal(body.created, count);
  return body.results.map((r) => r.certificate);
}

export async function queueSend(env: Pick<Env, 't' | 'tenant'>, certificateId: string): Promise<string> {
  const res = await env.t.app.inject({
    method: 'POST',
    url: `/api/v1/certificates/${certificateId}/send`,
    headers: env.tenant.auth,
  });
  assert.equal(res.statusCode, 202, res.body);
  return res.json().data.id;
}

/** Polls `check` until it returns a value other than undefined/false; fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface SendRow {
  id: string;
  status: string;
  attempts: number;
  last_error: string | null;
  sent_at: Date | null;
}

export async function sendRow(db: Pick<Db, 'query'>, id: string): Promise<SendRow> {
  const { rows } = await db.query<SendRow>(
    'SELECT id, status, attempts, last_error, sent_at FROM email_sends WHERE id = $1',
    [id],
  );
  if (!rows[0]) throw new Error(`no send ${id}`);
  return rows[0];
}

/** Waits until the send reaches a final state (sent or failed) and returns its row. */
export function settled(db: Pick<Db, 'query'>, id: string, timeoutMs?: number): Promise<SendRow> {
  return waitFor(
    `send ${id} to settle`,
    async () => {
      const row = await sendRow(db, id);
      return row.status === 'sent' || row.status === 'failed' ? row : undefined;
    },
    timeoutMs,
  );
}

export function parseMail(raw: Buffer): Promise<ParsedMail> {
  return simpleParser(raw);
}

/** The unique code named by the attachment file name of a raw message. */
export function codeInMessage(raw: Buffer): string | undefined {
  return /certificate-([0-9A-Z]{16})\.pdf/.exec(raw.toString('latin1'))?.[1];
}

/** The Message-ID header of a raw message, as the mail server got it. */
export function messageIdOf(raw: Buffer): string | undefined {
  return /^Message-ID:\s*(<[^>\r\n]+>)/im.exec(raw.toString('latin1'))?.[1];
}

export const MAIL_FROM_ADDRESS = 'certs@certsvc.test';
export const MAIL_FROM = `Certsvc Test <${MAIL_FROM_ADDRESS}>`;

/** The defaults of SMTP_TIMEOUT_MS and SMTP_ALLOW_INSECURE_AUTH. */
export const SMTP_OPTIONS: SmtpOptions = { timeoutMs: 20_000, allowInsecureAuth: false };

/** The real worker over SMTP, with test-sized timings. */
export function startSmtpWorker(
  db: Db,
  smtpUrl: string,
  options: EmailWorkerOptions = {},
  smtp: Partial<SmtpOptions> = {},
): { worker: EmailWorker; stop(): Promise<void> } {
  const transport = createSmtpTransport(smtpUrl, { ...SMTP_OPTIONS, ...smtp });
  const worker = startEmailWorker({
    db,
    transport,
    mailFrom: MAIL_FROM,
    publicBaseUrl: 'http://certs.test',
    logger: pino({ level: 'silent' }),
    options: { pollMs: 50, leaseMs: 5_000, retryBaseMs: 100, ...options },
  });
  return {
    worker,
    async stop() {
      await worker.stop();
      await transport.close();
    },
  };
}
