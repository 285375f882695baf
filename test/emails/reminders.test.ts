import { SYSTEM } from '../../src/platform/principal.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { createApp } from '../../src/app.js';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';
import { createDeps, createLogger, type Deps } from '../../src/deps.js';
import { startEmailWorker } from '../../src/modules/emails/email.worker.js';
import { createSmtpTransport } from '../../src/modules/emails/mail-transport.js';
import { reminderPlan } from '../../src/modules/shared/reminders.js';
import type { Design } from '../../src/pdf/design.schema.js';
import { createTenant, testConfig, type Tenant } from '../helpers/app.js';
import { startSmtpServer, type TestSmtpServer } from './smtp-test-server.js';
import {
  createFreshDatabase,
  MAIL_FROM,
  messageIdOf,
  parseMail,
  SMTP_OPTIONS,
  waitFor,
  type FreshDatabase,
} from './support.js';

// Issue 19 part 2: renewal reminders. Two workers on one database and a real SMTP server; the
// service's clock is moved across both reminder days of [30, 7]: exactly one message per reminder per
// certificate reaches the server, also with a worker restarted in between; none for a revoked
// certificate or one without expiry.

const DAY = 86_400_000;
let offsetMs = 0;
const now = () => new Date(Date.now() + offsetMs);

let db: FreshDatabase;
let deps: Deps;
let app: FastifyInstance;
let tenant: Tenant;
let smtp: TestSmtpServer;
let templateId: string;

before(async () => {
  db = await createFreshDatabase();
  const config = testConfig({ DATABASE_URL: db.url, RATE_LIMIT_MAX: '100000' });
  deps = await createDeps(config, { logger: createLogger(config), now });
  app = await createApp(deps);
  tenant = await createTenant(deps, { name: 'Renewing Academy' });
  const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
  templateId = (
    await deps.services.templates.create(SYSTEM, tenant.accountId, {
      ...design,
      name: 'Yearly safety course',
      validity: 'P1Y',
      remindBeforeDays: [7, 30],
      renewalUrl: 'https://academy.example/renew?course=safety',
    })
  ).id;
  smtp = await startSmtpServer();
});
after(async () => {
  await app?.close();
  await deps?.close();
  await smtp?.close();
  await db?.drop();
});

function startWorker() {
  const transport = createSmtpTransport(smtp.url, SMTP_OPTIONS);
  const worker = startEmailWorker({
    db: deps.db,
    transport,
    mailFrom: MAIL_FROM,
    publicBaseUrl: 'http://certs.test',
    logger: pino({ level: 'silent' }),
    options: { pollMs: 30, leaseMs: 5_000, retryBaseMs: 100, reminderIntervalMs: 0 },
    now,
  });
  return {
    async stop() {
      await worker.stop();
      await transport.close();
    },
  };
}

async function issue(n: number, expiresInDays: number | null, template = templateId) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/certificates',
    headers: tenant.auth,
    payload: {
      templateId: template,
      recipient: {
        name: `Recipient ${n}`,
        email: `r${n}@example.com`,
        data: { course: 'Safe Lifting' },
        ...(expiresInDays === null
          ? {}
          : { expiresAt: new Date(Date.now() + expiresInDays * DAY).toISOString() }),
      },
    },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; uniqueCode: string };
}

// What the SMTP server got, as "<recipient> <days before expiry>", via each message's send id.
async function received(): Promise<string[]> {
  const out: string[] = [];
  for (const mail of smtp.received) {
    const sendId = /^<([^@]+)@/.exec(messageIdOf(mail.raw) ?? '')?.[1];
    const { rows } = await deps.db.query<{ remind_days: number | null; kind: string }>(
      'SELECT kind, remind_days FROM email_sends WHERE id = $1',
      [sendId],
    );
    out.push(`${mail.rcptTo.join(',')} ${rows[0]?.kind} ${rows[0]?.remind_days}`);
  }
  return out.sort();
}

async function expectReceived(expected: string[]) {
  const want = [...expected].sort();
  await waitFor(`reminders ${want.join('; ')}`, async () => smtp.received.length >= want.length);
  // Time for a duplicate to show up if there were one.
  await new Promise((r) => setTimeout(r, 800));
  assert.deepEqual(await received(), want);
}

describe('renewal reminders', () => {
  it('keeps the reminders left at a moment, only the latest of those already due', () => {
    const issued = new Date('2026-11-25T00:00:00.000Z');
    const expires = (days: number) => new Date(issued.getTime() + days * DAY);
    assert.deepEqual(reminderPlan(expires(60), [7, 30], issued), {
      reminders: [30, 7],
      nextAt: expires(30),
    });
    // Issued 10 days before expiry: the 30-day one at once, the 7-day one on its day.
    assert.deepEqual(reminderPlan(expires(10), [30, 7], issued), {
      reminders: [30, 7],
      nextAt: expires(-20),
    });
    // Issued 5 days before: only the 7-day one, at once.
    assert.deepEqual(reminderPlan(expires(5), [30, 7], issued), { reminders: [7], nextAt: expires(-2) });
    assert.deepEqual(reminderPlan(null, [30, 7], issued), { reminders: [], nextAt: null });
    assert.deepEqual(reminderPlan(expires(-1), [30, 7], issued), { reminders: [], nextAt: null });
  });

  it('refuses remindBeforeDays that are not whole days and a renewalUrl that is not https', async () => {
    const design = (await readDesignFile(DEMO_DESIGN.pathname)) as Design;
    for (const [extra, path] of [
      [{ remindBeforeDays: [7.5] }, 'remindBeforeDays.0'],
      [{ remindBeforeDays: [0] }, 'remindBeforeDays.0'],
      [{ remindBeforeDays: [7, 7] }, 'remindBeforeDays'],
      [{ remindBeforeDays: [] }, 'remindBeforeDays'],
      [{ renewalUrl: 'http://academy.example/renew' }, 'renewalUrl'],
      [{ renewalUrl: 'academy.example/renew' }, 'renewalUrl'],
    ] as const) {
      await assert.rejects(
        deps.services.templates.create(SYSTEM, tenant.accountId, { ...design, ...extra }),
        (err: { issues?: { path: unknown[] }[] }) => {
          assert.ok(
            err.issues?.some((i) => i.path.join('.') === path),
            `${JSON.stringify(extra)}: ${JSON.stringify(err.issues)}`,
          );
          return true;
        },
      );
    }
  });

  it('two workers send each due reminder exactly once per certificate, across both reminder days and a restart; none for a revoked one', async () => {
    const far = await issue(1, 60); // both reminders ahead
    const near = await issue(2, 10); // the 30-day one is due at issue: at once; the 7-day one later
    const close = await issue(3, 5); // both due at issue: only the 7-day one, at once
    const revoked = await issue(4, 60);
    const revokedSoon = await issue(5, 20); // 30-day reminder due at issue, revoked before any worker
    await issue(6, null, tenant.templateId); // a template without reminders
    for (const c of [revoked, revokedSoon]) {
      const res = await app.inject({
        method: 'POST',
        url: `/api/v1/certificates/${c.id}/revoke`,
        headers: tenant.auth,
        payload: {},
      });
      assert.equal(res.statusCode, 200, res.body);
    }

    let a = startWorker();
    const b = startWorker();
    try {
      await expectReceived(['r2@example.com reminder 30', 'r3@example.com reminder 7']);

      // Day 4: near's 7-day reminder (due on day 3).
      offsetMs = 4 * DAY;
      await expectReceived([
        'r2@example.com reminder 30',
        'r3@example.com reminder 7',
        'r2@example.com reminder 7',
      ]);

      // Day 31, one worker restarted: far's 30-day reminder; near and close have expired.
      await a.stop();
      a = startWorker();
      offsetMs = 31 * DAY;
      await expectReceived([
        'r2@example.com reminder 30',
        'r3@example.com reminder 7',
        'r2@example.com reminder 7',
        'r1@example.com reminder 30',
      ]);

      // Day 54: far's 7-day reminder.
      offsetMs = 54 * DAY;
      await expectReceived([
        'r2@example.com reminder 30',
        'r3@example.com reminder 7',
        'r1@example.com reminder 30',
        'r2@example.com reminder 7',
        'r1@example.com reminder 7',
      ]);
      // Past every expiry: nothing more.
      offsetMs = 400 * DAY;
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(smtp.received.length, 5);
    } finally {
      await a.stop();
      await b.stop();
    }

    // The message links the renewal URL and names the expiry.
    const mail = smtp.received.find((m) => m.rcptTo.includes('r1@example.com'))!;
    const parsed = await parseMail(mail.raw);
    assert.match(parsed.subject ?? '', /^Your certificate expires on \d{1,2} \w+ \d{4}: Safe Lifting$/);
    assert.match(parsed.text ?? '', /https:\/\/academy\.example\/renew\?course=safety/);
    assert.match(String(parsed.html), /href="https:\/\/academy\.example\/renew\?course=safety"/);
    assert.equal(parsed.attachments.length, 0);

    // Recorded in the send history (and emailCount) of its certificate; nothing for the revoked ones.
    const history = await app.inject({ url: `/api/v1/certificates/${far.id}/emails`, headers: tenant.auth });
    const sends = history.json().data as { kind: string; remindBeforeDays: number; status: string }[];
    assert.deepEqual(
      sends.map((s) => [s.kind, s.remindBeforeDays, s.status]),
      [
        ['reminder', 7, 'sent'],
        ['reminder', 30, 'sent'],
      ],
    );
    const read = await app.inject({ url: `/api/v1/certificates/${far.id}`, headers: tenant.auth });
    assert.equal(read.json().data.emailCount, 2);
    for (const c of [revoked, revokedSoon, close, near]) {
      const h = await app.inject({ url: `/api/v1/certificates/${c.id}/emails`, headers: tenant.auth });
      const n = c === near ? 2 : c === close ? 1 : 0;
      assert.equal(h.json().data.length, n, c.uniqueCode);
    }
  });
});
