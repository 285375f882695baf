import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { TestApp } from '../helpers/app.js';

// A browser's part in a form exchange, over inject: a cookie jar, the CSRF token of the last page,
// urlencoded and multipart forms. remoteAddress plays the client's address.
export interface FormClient {
  get(url: string): Promise<LightMyRequestResponse>;
  post(url: string, fields: Record<string, string | string[]>): Promise<LightMyRequestResponse>;
  upload(
    url: string,
    fields: Record<string, string>,
    file: { name: string; content: Buffer | string },
  ): Promise<LightMyRequestResponse>;
  csrf: string;
  cookies: Map<string, string>;
}

export function formClient(t: TestApp, remoteAddress = '127.0.0.1'): FormClient {
  const cookies = new Map<string, string>();
  const client: FormClient = {
    csrf: '',
    cookies,
    get: (url) => send({ method: 'GET', url }),
    post: (url, fields) => {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries({ _csrf: client.csrf, ...fields }))
        for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
      return send({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: params.toString(),
      });
    },
    upload: (url, fields, file) => {
      const boundary = '----certsvc-test-boundary';
      const parts: Buffer[] = [];
      for (const [k, v] of Object.entries({ _csrf: client.csrf, ...fields })) {
        parts.push(
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`),
        );
      }
      parts.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\nContent-Type: text/csv\r\n\r\n`,
        ),
        Buffer.from(file.content),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      );
      return send({
        method: 'POST',
        url,
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload: Buffer.concat(parts),
      });
    },
  };
  async function send(req: {
    method: 'GET' | 'POST';
    url: string;
    headers?: Record<string, string>;
    payload?: string | Buffer;
  }) {
    const cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await t.app.inject({
      ...req,
      remoteAddress,
      headers: { ...req.headers, ...(cookie ? { cookie } : {}) },
    });
    const set = res.headers['set-cookie'];
    for (const line of set === undefined ? [] : Array.isArray(set) ? set : [set]) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/expires=Thu, 01 Jan 1970/i.test(line) || value === '') cookies.delete(name);
      else cookies.set(name, value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (token) client.csrf = token[1]!;
    return res;
  }
  return client;
}

export async function signInWith(client: FormClient, email: string, password: string) {
  await client.get('/dashboard');
  const res = await client.post('/dashboard/sign-in', { email, password });
  assert.equal(res.statusCode, 303, res.body);
  return res;
}

let members = 0;

// A new dashboard user of the account, signed in on a new form client.
export async function signedInMember(t: TestApp, accountId: string): Promise<FormClient> {
  const email = `member-${process.pid}-${Date.now()}-${++members}@academy.test`;
  const password = 'correct horse battery staple';
  await t.deps.services.users.create({ accountId, email, password });
  const client = formClient(t);
  await signInWith(client, email, password);
  return client;
}
