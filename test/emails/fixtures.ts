import type { CertificateMessageInput } from '../../src/modules/emails/mail-message.js';

export const baseInput: CertificateMessageInput = {
  messageId: '<0190f0c2-7e1a-7000-8000-000000000001@certsvc.test>',
  from: 'Certsvc <no-reply@certsvc.test>',
  to: 'ada@example.test',
  recipientName: 'Ada Lovelace',
  title: 'Analytical Engines 101',
  issuerName: 'Babbage & Co <Ltd>',
  verificationUrl: 'https://certs.example.test/verify/ABC123',
  uniqueCode: 'ABC123',
  pdf: Buffer.from('%PDF-1.7\nfake pdf bytes\n%%EOF\n'),
};
