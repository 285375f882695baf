import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  buildReminderMessage,
  type ReminderMessageInput,
} from '../../src/modules/emails/reminder-message.js';

// The renewal reminder speaks the template's language (its locale), as the certificate email does.

const input: ReminderMessageInput = {
  messageId: '<r1@certsvc.test>',
  from: 'Certsvc <no-reply@certsvc.test>',
  to: 'marie@example.test',
  recipientName: 'Marie Curie',
  title: 'Radioprotection',
  issuerName: 'Institut <Pasteur>',
  verificationUrl: 'https://certs.example.test/verify/ABC123',
  uniqueCode: 'ABC123',
  expiresAt: new Date('2027-03-05T10:00:00Z'),
  renewalUrl: 'https://institut.example/renouveler',
};

test('in English by default, with the expiry date and the renewal link', () => {
  const msg = buildReminderMessage(input);
  assert.equal(msg.subject, 'Your certificate expires on 5 March 2027: Radioprotection');
  assert.match(
    msg.text,
    /^Hello Marie Curie,\r\n\r\nYour certificate from Institut <Pasteur>, Radioprotection, expires on 5 March 2027\./,
  );
  assert.match(msg.html, /<html lang="en" dir="ltr">/);
  assert.match(
    msg.html,
    /<a id="renewal-link" href="https:\/\/institut\.example\/renouveler">Renew it here<\/a>/,
  );
  assert.match(msg.html, /Institut &lt;Pasteur&gt;/);
  assert.deepEqual(msg.attachments, []);
});

test("in the template's language: French text and date, Arabic right to left", () => {
  const fr = buildReminderMessage({ ...input, locale: 'fr' });
  assert.equal(fr.subject, 'Votre certificat expire le 5 mars 2027\u00a0: Radioprotection');
  assert.match(fr.text, /^Bonjour Marie Curie,/);
  assert.match(
    fr.text,
    /Votre certificat délivré par Institut <Pasteur>, Radioprotection, expire le 5 mars 2027\./,
  );
  assert.match(fr.text, /Renouvelez-le ici\u00a0:\r\nhttps:\/\/institut\.example\/renouveler/);
  assert.match(fr.html, /<html lang="fr" dir="ltr">/);
  assert.match(fr.html, />Renouvelez-le ici<\/a>/);

  const ar = buildReminderMessage({ ...input, locale: 'ar-EG', renewalUrl: null });
  assert.match(ar.html, /<html lang="ar" dir="rtl">/);
  assert.match(ar.text, /لتجديدها، تواصل مع Institut <Pasteur>\./);
  assert.doesNotMatch(ar.html, /renewal-link/);
  assert.doesNotMatch(ar.text, /expires/);
});

test('a language without a catalog gets English words and its own date', () => {
  const msg = buildReminderMessage({ ...input, locale: 'it' });
  assert.equal(msg.subject, 'Your certificate expires on 5 marzo 2027: Radioprotection');
});
