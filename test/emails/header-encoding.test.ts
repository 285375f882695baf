import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser, type AddressObject, type ParsedMail } from 'mailparser';
import { buildCertificateMessage } from '../../src/modules/emails/mail-message.js';
import { createSmtpTransport, type MailTransport } from '../../src/modules/emails/mail-transport.js';
import { startSmtpServer, type TestSmtpServer } from './smtp-test-server.js';
import { baseInput } from './fixtures.js';
import { SMTP_OPTIONS } from './support.js';

// docs/operations.md, Email: a name or title reaches the headers exactly as it was typed. Text that
// looks like an RFC 2047 encoded-word (=?utf-8?b?...?=) must not be decoded by the reader's mail
// client into something else, such as a second address in To.

const ENCODED_WORD_NAME = '=?utf-8?b?RXZlIDxldmlsQHgudGVzdD4=?='; // decodes to "Eve <evil@x.test>"

function only(field: AddressObject | AddressObject[] | undefined) {
  const list = Array.isArray(field) ? field : field ? [field] : [];
  return list.flatMap((a) => a.value);
}

describe('user text in the headers of a real message', () => {
  let server: TestSmtpServer;
  let transport: MailTransport;
  before(async () => {
    server = await startSmtpServer();
    transport = createSmtpTransport(server.url, SMTP_OPTIONS);
  });
  after(async () => {
    await transport.close();
    await server.close();
  });

  async function roundTrip(recipientName: string, title = baseInput.title): Promise<ParsedMail> {
    await transport.send(buildCertificateMessage({ ...baseInput, recipientName, title }));
    const got = server.received.at(-1)!;
    assert.deepEqual(got.rcptTo, ['ada@example.test']);
    const headers = got.raw.toString('latin1').split('\r\n\r\n')[0]!;
    for (const line of headers.split('\r\n')) assert.ok(line.length <= 78, `folded: ${line}`);
    return simpleParser(got.raw);
  }

  test('a name that is an encoded-word stays that literal text, with the one address', async () => {
    const mail = await roundTrip(ENCODED_WORD_NAME, ENCODED_WORD_NAME);
    assert.deepEqual(only(mail.to), [{ address: 'ada@example.test', name: ENCODED_WORD_NAME }]);
    assert.equal(mail.subject, `Your certificate: ${ENCODED_WORD_NAME} — ${ENCODED_WORD_NAME}`);
    assert.doesNotMatch(mail.subject ?? '', /evil/);
  });

  test('names in other scripts and with quotes or brackets round-trip exactly', async () => {
    for (const name of [
      'Zoë Ångström',
      'محمد علي',
      '王小明',
      '김민준',
      'Eve "the" <Admin>, x@y.test',
      "O'Brien (Jr.) \\ =?= ?=",
      `Anna-${'Maria-'.repeat(30)}Łukasiewicz`,
    ]) {
      const mail = await roundTrip(name, `Course ${name}`);
      assert.deepEqual(only(mail.to), [{ address: 'ada@example.test', name }], name);
      assert.equal(mail.subject, `Your certificate: Course ${name} — ${name}`);
    }
  });
});
