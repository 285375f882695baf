import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../helpers/app.js';
import { formClient, signInWith, type FormClient } from '../dashboard/form-client.js';

export interface Member {
  client: FormClient;
  userId: string;
  email: string;
}

let members = 0;

// A new owner of the account, signed in on a new form client.
export async function signedMember(t: TestApp, accountId: string): Promise<Member> {
  const email = `org-${process.pid}-${Date.now()}-${++members}@academy.test`;
  const password = 'correct horse battery staple';
  const { user } = await t.deps.services.users.create({ accountId, email, password });
  const client = formClient(t);
  await signInWith(client, email, password);
  return { client, userId: user.id, email };
}

// Settings > Organisation's form as a browser sends it: multipart, the logo as the `logo` file.
export async function logoForm(
  t: TestApp,
  client: FormClient,
  input: { fields: Record<string, string>; logo?: { name: string; bytes: Buffer } },
): Promise<LightMyRequestResponse> {
  const boundary = '----certsvc-organisation';
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries({ _csrf: client.csrf, ...input.fields })) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  const logo = input.logo ?? { name: '', bytes: Buffer.alloc(0) };
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="logo"; filename="${logo.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    logo.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  assert.ok(client.csrf, 'a page with a form was read first');
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const res = await t.app.inject({
    method: 'POST',
    url: '/dashboard/settings/organisation',
    remoteAddress: '127.0.0.1',
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie },
    payload: Buffer.concat(parts),
  });
  const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
  if (token) client.csrf = token[1]!;
  return res;
}
