import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

// A real OpenID Provider (npm oidc-provider 8) on a loopback port, for the SSO tests: one client,
// people who sign in by typing their email at its development login form, and a switch that makes
// its token endpoint hand out an ID token altered the way a faulty or hostile provider would (another
// audience), signed with its own key so that only the claim check can catch it.

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Claims each person gets besides sub and email (e.g. groups, email_verified: false). */
  people: Map<string, Record<string, unknown>>;
  /** When set, the token endpoint's ID tokens carry these claims instead (re-signed). */
  tamper: Record<string, unknown> | undefined;
  /** When true, tampered ID tokens are signed with a key that is not in the provider's JWKS. */
  forge: boolean;
  close(): Promise<void>;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function resign(idToken: string, changes: Record<string, unknown>, key: KeyObject, kid: string): string {
  const payload = JSON.parse(Buffer.from(idToken.split('.')[1]!, 'base64url').toString('utf8'));
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid })}.${b64({ ...payload, ...changes })}`;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}

export async function startProvider(redirectUri: string): Promise<TestProvider> {
  let handler: http.RequestListener = (_req, res) => res.end();
  const server = http.createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = 'test-key-1';
  const jwk = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };
  const self: TestProvider = {
    issuer,
    clientId: 'certsvc-test',
    clientSecret: 'a-client-secret-of-the-test-provider',
    people: new Map(),
    tamper: undefined,
    forge: false,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: self.clientId,
        client_secret: self.clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ['a-cookie-key-of-the-test-provider'] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 3600 },
    // The email claims in the ID token itself, as most providers do.
    conformIdTokenClaims: false,
    claims: { openid: ['sub', 'groups'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: true } },
    pkce: { required: () => true },
    findAccount: async (_ctx: unknown, id: string) => ({
      accountId: id,
      claims: async () => ({ sub: id, email: id, email_verified: true, ...self.people.get(id) }),
    }),
  });
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && self.tamper && body?.id_token) {
      const key = self.forge ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey : privateKey;
      ctx.body = { ...body, id_token: resign(body.id_token, self.tamper, key, kid) };
    }
  });
  handler = provider.callback();
  return self;
}

// A browser's cookie jar for the provider's origin.
function jar() {
  const cookies = new Map<string, string>();
  return {
    header: () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    take(res: Response) {
      for (const line of res.headers.getSetCookie()) {
        const pair = line.split(';')[0]!;
        const eq = pair.indexOf('=');
        const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
        if (!value || /expires=Thu, 01 Jan 1970/i.test(line)) cookies.delete(name);
        else cookies.set(name, value);
      }
    },
  };
}

/**
 * Plays the person at the provider: from the authorization URL, signs in as `email` at its login
 * form and consents, following redirects, until the provider sends the browser back to `returnTo`;
 * returns that callback URL.
 */
export async function signInAtProvider(
  authorizationUrl: string,
  email: string,
  returnTo: string,
): Promise<URL> {
  const cookies = jar();
  let res = await fetch(authorizationUrl, { redirect: 'manual', headers: { cookie: cookies.header() } });
  for (let step = 0; step < 20; step++) {
    cookies.take(res);
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location')!, res.url || authorizationUrl);
      if (next.href.startsWith(returnTo)) return next;
      res = await fetch(next, { redirect: 'manual', headers: { cookie: cookies.header() } });
      continue;
    }
    const body = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(body)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(body)?.[1];
    if (!action || !prompt) throw new Error(`the provider answered ${res.status}: ${body.slice(0, 500)}`);
    res = await fetch(new URL(action.replace(/&amp;/g, '&'), authorizationUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: cookies.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ prompt, login: email, password: 'any' }).toString(),
    });
  }
  throw new Error('the provider never sent the browser back');
}
