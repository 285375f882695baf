import assert from 'node:assert/strict';
import type { ParsedMail } from 'mailparser';
import type { TestApp } from '../helpers/app.js';
import type { FormClient } from '../dashboard/form-client.js';
import type { TestSmtpServer } from '../emails/smtp-test-server.js';
import { parseMail, waitFor } from '../emails/support.js';

// What the recipients' tests share: addresses of their own (the list reads every account), the
// mails a real SMTP server received, and the "My certificates" sign-in as a recipient does it.

let counter = 0;
export function newAddress(name = 'learner'): string {
  return `${name}-${process.pid}-${Date.now()}-${++counter}@example.com`;
}

/** The parsed mails to `to` so far. */
export async function mailsTo(smtp: TestSmtpServer, to: string): Promise<ParsedMail[]> {
  const mine = smtp.received.filter((m) => m.rcptTo.includes(to.toLowerCase()) || m.rcptTo.includes(to));
  return Promise.all(mine.map((m) => parseMail(m.raw)));
}

/** Waits for a mail to `to` whose subject matches. */
export function mailTo(smtp: TestSmtpServer, to: string, subject: RegExp): Promise<ParsedMail> {
  return waitFor(`a mail to ${to} (${subject})`, async () =>
    (await mailsTo(smtp, to)).find((m) => subject.test(m.subject ?? '')),
  );
}

export function signInLinkOf(mail: ParsedMail): string {
  const link = /http:\/\/certs\.test(\/my\/enter\/[A-Za-z0-9_-]{43})/.exec(mail.text ?? '');
  assert.ok(link, `no sign-in link in: ${mail.text}`);
  return link[1]!;
}

/** Asks for the link of `email` and follows it: the client then holds a recipient session. */
export async function signInAsRecipient(
  t: TestApp,
  smtp: TestSmtpServer,
  client: FormClient,
  email: string,
): Promise<string> {
  const asked = await client.post('/my', { email });
  assert.equal(asked.statusCode, 202, asked.body);
  const path = signInLinkOf(await mailTo(smtp, email, /sign-in link/));
  const entered = await client.get(path);
  assert.equal(entered.statusCode, 303, entered.body);
  assert.equal(entered.headers.location, '/my/certificates');
  return path;
}
