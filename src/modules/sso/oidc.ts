import * as oidc from 'openid-client';

// The relying party's part of OpenID Connect, through openid-client 6 (no hand-written JWT checks):
// discovery, the authorization request (code flow with PKCE, state and nonce) and the code exchange,
// whose ID token is checked for issuer, audience, expiry, nonce and, with the non-repudiation checks,
// its signature against the provider's JWKS. TLS is Node's: the system's CAs and NODE_EXTRA_CA_CERTS.

export interface Client {
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
}

/** What the browser's sign-in must come back with: kept in a signed cookie between start and callback. */
export interface Pending {
  accountId: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  /** Epoch milliseconds after which the callback is refused. */
  expiresAt: number;
}

/** The claims the sign-in reads, from the verified ID token (or UserInfo when it lacks the email). */
export type Claims = Record<string, unknown>;

// Plain http is allowed for a provider on the loopback interface only (tests, a provider on the
// same host); anything else must be https.
export function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === 'localhost' || hostname === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/**
 * The provider's configuration from its discovery document. `skewS` is how far this service's clock
 * (its `now`) is ahead of the system's, so token times are judged by the service's clock.
 */
export async function discover(client: Client, skewS = 0): Promise<oidc.Configuration> {
  const url = new URL(client.issuerUrl);
  const execute = [oidc.enableNonRepudiationChecks];
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) execute.push(oidc.allowInsecureRequests);
  return oidc.discovery(
    url,
    client.clientId,
    { client_secret: client.clientSecret, [oidc.clockSkew]: skewS },
    oidc.ClientSecretBasic(client.clientSecret),
    { execute, timeout: 10 },
  );
}

/** The provider's authorization URL for a new sign-in, and what its callback must match. */
export async function authorizationRequest(
  config: oidc.Configuration,
  opts: { accountId: string; redirectUri: string; expiresAt: number; loginHint?: string },
): Promise<{ url: URL; pending: Pending }> {
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const pending: Pending = {
    accountId: opts.accountId,
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    codeVerifier,
    expiresAt: opts.expiresAt,
  };
  const params: Record<string, string> = {
    redirect_uri: opts.redirectUri,
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
  };
  if (opts.loginHint) params.login_hint = opts.loginHint;
  return { url: oidc.buildAuthorizationUrl(config, params), pending };
}

/** Exchanges the code of `callbackUrl` and returns the verified ID token's claims. */
export async function exchangeCode(
  config: oidc.Configuration,
  callbackUrl: URL,
  pending: Pending,
): Promise<Claims> {
  const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
    pkceCodeVerifier: pending.codeVerifier,
    expectedState: pending.state,
    expectedNonce: pending.nonce,
    idTokenExpected: true,
  });
  const claims: Claims = { ...tokens.claims()! };
  // Some providers put the email in UserInfo only; it is asked for the same subject.
  if (typeof claims.email !== 'string' && tokens.access_token) {
    const info = await oidc.fetchUserInfo(config, tokens.access_token, String(claims.sub));
    return { ...info, ...claims, email: info.email, email_verified: info.email_verified };
  }
  return claims;
}

/** Why the provider or openid-client refused, in words for the refusal page. */
export function refusalReason(err: unknown): string {
  if (err instanceof oidc.AuthorizationResponseError) {
    return `the provider answered "${err.error}"${err.error_description ? `: ${err.error_description}` : ''}`;
  }
  if (err instanceof oidc.ResponseBodyError) {
    return `the provider refused the sign-in code ("${err.error}"): it may have been used already or have expired`;
  }
  if (err instanceof oidc.ClientError) {
    // openid-client's message is generic; the check that failed names itself in the cause.
    const detail = err.cause instanceof Error ? err.cause.message : err.message;
    if (err.code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED')
      return `the provider's ID token has expired (${detail})`;
    if (err.code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED')
      return `the provider's ID token is not for this sign-in: ${detail}`;
    return `the provider's answer could not be verified: ${detail}`;
  }
  if (err instanceof Error) return `the provider could not be reached or answered wrongly: ${err.message}`;
  return 'the provider could not be reached';
}

// A request that never got an answer (refused connection, unknown host, timeout), not a refusal.
export function unreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return (
    err.name === 'TimeoutError' ||
    err.name === 'AbortError' ||
    (err instanceof TypeError && err.message === 'fetch failed')
  );
}
