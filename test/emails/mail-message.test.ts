import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildCertificateMessage,
  parseMailAddress,
  sanitizeHeaderText,
} from '../../src/modules/emails/mail-message.js';
import { baseInput } from './fixtures.js';

test('builds subject, both parts and the attachment', () => {
  const msg = buildCertificateMessage(baseInput);
  assert.deepEqual(msg.from, { name: 'Certsvc', address: 'no-reply@certsvc.test' });
  assert.deepEqual(msg.to, { name: 'Ada Lovelace', address: 'ada@example.test' });
  assert.equal(msg.subject, 'Your certificate: Analytical Engines 101 — Ada Lovelace');
  for (const part of [msg.text, msg.html]) {
    assert.match(part, /Ada Lovelace/);
    assert.match(part, /Analytical Engines 101/);
    assert.ok(part.includes('https://certs.example.test/verify/ABC123'));
  }
  assert.match(msg.text, /Babbage & Co <Ltd>/);
  assert.match(msg.html, /Babbage &amp; Co &lt;Ltd&gt;/);
  assert.doesNotMatch(msg.html, /<Ltd>/);
  assert.deepEqual(msg.attachments, [
    { filename: 'certificate-ABC123.pdf', content: baseInput.pdf, contentType: 'application/pdf' },
  ]);
});

test('control characters in names become spaces', () => {
  const msg = buildCertificateMessage({
    ...baseInput,
    recipientName: 'Eve\r\nBcc: x@evil.test',
    title: 'T\u0000\u2028X',
  });
  assert.equal(msg.to.name, 'Eve Bcc: x@evil.test');
  assert.equal(msg.subject, 'Your certificate: T X — Eve Bcc: x@evil.test');
  assert.equal(sanitizeHeaderText('\ta\n\n b\u0085c\u007f'), 'a b c');
});

test('refuses addresses with control characters or several addresses', () => {
  for (const to of [
    'ada@example.test\r\nBcc: x@evil.test',
    'ada@example.test\n',
    'a@b.test, c@d.test',
    'a b@c.test',
    'nope',
    '<a@b.test>',
  ]) {
    assert.throws(() => buildCertificateMessage({ ...baseInput, to }), /invalid recipient email address/, to);
  }
  assert.throws(() => buildCertificateMessage({ ...baseInput, from: 'X <a@b.test>\r\nBcc: x@evil.test' }));
  assert.deepEqual(parseMailAddress('a@b.test'), { name: '', address: 'a@b.test' });
  assert.deepEqual(parseMailAddress('"Cert Svc" <a@b.test>'), { name: 'Cert Svc', address: 'a@b.test' });
});

test('refuses non-web verification URLs, which would become links', () => {
  assert.throws(() => buildCertificateMessage({ ...baseInput, verificationUrl: 'javascript:alert(1)' }));
  assert.throws(() => buildCertificateMessage({ ...baseInput, verificationUrl: 'not a url' }));
});
