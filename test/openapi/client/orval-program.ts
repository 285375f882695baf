// A program written against the client that orval 7 (`client: 'fetch'`) generates from the served
// description. test/openapi/generated-clients.test.ts generates ./api.ts beside a copy of this file,
// typechecks both with tsc in strict mode and runs the result against a live server.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import {
  downloadCertificatePdf,
  getCertificate,
  getUsage,
  issueCertificates,
  listCertificates,
  revokeCertificate,
  sendCertificate,
  verifyCertificate,
} from './api.js';

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

const auth = { headers: { Authorization: `Bearer ${setting('API_KEY')}` } };

const issue = await issueCertificates(
  {
    templateId: setting('TEMPLATE_ID'),
    recipient: { name: 'Ada Lovelace', email: 'ada@example.com', data: { course: 'orval' } },
  },
  auth,
);
if (issue.status !== 201) throw new Error(`issue: ${issue.status} ${JSON.stringify(issue.data)}`);
const issued = issue.data.data;
if ('results' in issued) throw new Error('a single issue answered a batch');

const list = await listCertificates({ status: 'Issued', perPage: 100 }, auth);
if (list.status !== 200) throw new Error(`list: ${list.status}`);
assert.ok(
  list.data.data.some((c) => c.id === issued.id),
  'the list has the new certificate',
);

const read = await getCertificate(issued.id, auth);
if (read.status !== 200) throw new Error(`read: ${read.status}`);
assert.equal(read.data.data.uniqueCode, issued.uniqueCode);

const pdf = await downloadCertificatePdf(issued.id, auth);
if (pdf.status !== 200) throw new Error(`pdf: ${pdf.status}`);
const bytes = Buffer.from(await pdf.data.arrayBuffer());
await writeFile(setting('PDF_OUT'), bytes);

const send = await sendCertificate(issued.id, { recipientEmail: 'ada.l@example.com' }, auth);
if (send.status !== 202) throw new Error(`send: ${send.status} ${JSON.stringify(send.data)}`);

const revoke = await revokeCertificate(issued.id, { reason: 'Issued by a test' }, auth);
if (revoke.status !== 200) throw new Error(`revoke: ${revoke.status} ${JSON.stringify(revoke.data)}`);

const usage = await getUsage(auth);
if (usage.status !== 200) throw new Error(`usage: ${usage.status}`);

// Public: no key.
const verify = await verifyCertificate(issued.uniqueCode);
if (verify.status !== 200) throw new Error(`verify: ${verify.status}`);

console.log(
  JSON.stringify({
    id: issued.id,
    listed: list.data.pagination.total,
    pdfType: pdf.data.type,
    pdfBytes: bytes.byteLength,
    sendStatus: send.data.data.status,
    revoked: revoke.data.data.status,
    used: usage.data.data.certificates.used,
    verified: [verify.data.data.valid, verify.data.data.status, verify.data.data.revocationReason],
  }),
);
