// A program written against the client that @hey-api/openapi-ts (with @hey-api/client-fetch)
// generates from the served description. test/openapi/generated-clients.test.ts generates ./hey/
// beside a copy of this file, typechecks both with tsc in strict mode and runs the result against a
// live server.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { client } from './hey/client.gen.js';
import {
  downloadCertificatePdf,
  getCertificate,
  getUsage,
  issueCertificates,
  listCertificates,
  revokeCertificate,
  sendCertificate,
  verifyCertificate,
} from './hey/sdk.gen.js';

function setting(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

// The bearer scheme of the description: the client adds `Authorization: Bearer <key>` to the
// operations that declare it, and nothing to the public verification.
client.setConfig({ baseUrl: setting('BASE_URL'), auth: () => setting('API_KEY') });

const issue = await issueCertificates({
  body: {
    templateId: setting('TEMPLATE_ID'),
    recipient: { name: 'Grace Hopper', email: 'grace@example.com', data: { course: 'hey-api' } },
  },
});
if (!issue.data) throw new Error(`issue: ${issue.response.status} ${JSON.stringify(issue.error)}`);
const issued = issue.data.data;
if ('results' in issued) throw new Error('a single issue answered a batch');

const list = await listCertificates({ query: { status: 'Issued', perPage: 100 } });
if (!list.data) throw new Error(`list: ${list.response.status}`);
assert.ok(
  list.data.data.some((c) => c.id === issued.id),
  'the list has the new certificate',
);

const read = await getCertificate({ path: { id: issued.id } });
if (!read.data) throw new Error(`read: ${read.response.status}`);
assert.equal(read.data.data.uniqueCode, issued.uniqueCode);

const pdf = await downloadCertificatePdf({ path: { id: issued.id } });
if (!pdf.data) throw new Error(`pdf: ${pdf.response.status}`);
const bytes = Buffer.from(await pdf.data.arrayBuffer());
await writeFile(setting('PDF_OUT'), bytes);

const send = await sendCertificate({
  path: { id: issued.id },
  body: { recipientEmail: 'grace.h@example.com' },
});
if (!send.data) throw new Error(`send: ${send.response.status} ${JSON.stringify(send.error)}`);

const revoke = await revokeCertificate({ path: { id: issued.id }, body: { reason: 'Issued by a test' } });
if (!revoke.data) throw new Error(`revoke: ${revoke.response.status} ${JSON.stringify(revoke.error)}`);

const usage = await getUsage();
if (!usage.data) throw new Error(`usage: ${usage.response.status}`);

const verify = await verifyCertificate({ path: { code: issued.uniqueCode } });
if (!verify.data) throw new Error(`verify: ${verify.response.status}`);

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
