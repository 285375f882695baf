import net from 'node:net';
import path from 'node:path';
import { DEFAULT_TIMEOUTS, type Timeouts } from './platform/http/timeouts.js';

// The one module that reads process.env. Everything else receives a Config.

export interface PlanDefinition {
  name: string;
  apiAccess: boolean;
  emailDelivery: boolean;
  monthlyLimit: number;
}

export interface Config {
  port: number;
  host: string;
  publicBaseUrl: string;
  // Whether PUBLIC_BASE_URL was given (serve refuses a reachable HOST without it).
  publicBaseUrlSet: boolean;
  dataDir: string;
  // Whether DATA_DIR was given (the CLI says when it uses the default ./data).
  dataDirSet: boolean;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  corsPartnerDomains: string[];
  // false, a hop count, or the proxy addresses and CIDRs whose X-Forwarded-For is believed.
  trustProxy: false | number | string[];
  // Request, header and keep-alive timeouts of the HTTP server; the keep-alive one is
  // HTTP_KEEP_ALIVE_TIMEOUT_MS (a proxy in front must drop idle connections before it, see
  // docs/deploy.md), the others are not settable from the environment.
  httpTimeouts: Timeouts;
  rateLimit: { max: number; windowS: number };
  // VERIFY_QUEUE_MAX: public verifications that may wait for their turn (platform/http/verify-queue.ts);
  // one more is refused with 503 and Retry-After.
  verifyQueueMax: number;
  logLevel: string;
  plans: PlanDefinition[];
  email: { leaseMs: number; retryBaseMs: number; pollMs: number };
  // How long a stopping server or worker may drain before it exits anyway.
  shutdownTimeoutS: number;
  // Seconds between the signal (when /readyz turns 503) and the listener closing, so that a load
  // balancer polling /readyz stops routing to the server first. Counted within shutdownTimeoutS.
  shutdownDelayS: number;
  // GET /metrics needs this bearer token; unset, there is no metrics route.
  metricsToken: string | undefined;
  // Timeouts on the calls to PostgreSQL and Redis (docs/operations.md, Timeouts and outages).
  timeouts: { dbStatementMs: number; dbConnectMs: number; redisMs: number };
  smtp: { timeoutMs: number; allowInsecureAuth: boolean };
  // The master key that seals the accounts' signing keys (32 bytes). Unset on the embedded default,
  // one is generated into DATA_DIR; unset with DATABASE_URL, serve refuses to start.
  signingKeysSecret: Buffer | undefined;
  // An RFC 3161 time-stamp authority (TSA_URL): PDF signatures carry its time stamp (PAdES B-T).
  tsa: { url: string; timeoutMs: number } | undefined;
  // Seconds between two autosaves of the studio's unsaved edits (STUDIO_AUTOSAVE_S, default 30).
  studioAutosaveS: number;
}

export const DEFAULT_PLANS: PlanDefinition[] = [
  { name: 'Free', apiAccess: false, emailDelivery: false, monthlyLimit: 50 },
  { name: 'Pro', apiAccess: false, emailDelivery: false, monthlyLimit: 500 },
  { name: 'Business', apiAccess: true, emailDelivery: true, monthlyLimit: 2000 },
];

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = optional(env, name)?.toLowerCase();
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function parsePlans(raw: string | undefined): PlanDefinition[] {
  if (!raw) return DEFAULT_PLANS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('PLANS_JSON is not valid JSON');
  }
  if (!Array.isArray(parsed) || parsed.length === 0)
    throw new ConfigError('PLANS_JSON must be a non-empty array');
  return parsed.map((p: Record<string, unknown>, i) => {
    if (
      typeof p?.name !== 'string' ||
      typeof p.apiAccess !== 'boolean' ||
      typeof p.emailDelivery !== 'boolean' ||
      !Number.isInteger(p.monthlyLimit) ||
      (p.monthlyLimit as number) < 0
    ) {
      throw new ConfigError(`PLANS_JSON[${i}] needs name, apiAccess, emailDelivery and a monthlyLimit >= 0`);
    }
    return {
      name: p.name,
      apiAccess: p.apiAccess,
      emailDelivery: p.emailDelivery,
      monthlyLimit: p.monthlyLimit as number,
    };
  });
}

function parseDomains(raw: string | undefined): string[] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((d) => d.trim().toLowerCase().replace(/\.$/, ''))
    .filter((d) => d.length > 0)
    .map((d) => {
      if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(d)) {
        throw new ConfigError(`CORS_PARTNER_DOMAINS: "${d}" is not a domain name`);
      }
      return d;
    });
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isAddressOrCidr(entry: string): boolean {
  const [address, bits, ...rest] = entry.split('/');
  const family = net.isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

// TRUST_PROXY: unset or false trusts nobody; a number trusts that many proxy hops in front of the
// service; otherwise a comma-separated list of proxy addresses or CIDRs (or loopback, linklocal,
// uniquelocal). "true" is refused: it would believe any client's X-Forwarded-For.
function parseTrustProxy(raw: string | undefined): false | number | string[] {
  if (raw === undefined || ['false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 10) throw new ConfigError(`TRUST_PROXY hop count must be 0 to 10, got ${raw}`);
    return hops === 0 ? false : hops;
  }
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.length > 0);
  const bad = entries.filter((e) => !PROXY_NAMES.includes(e.toLowerCase()) && !isAddressOrCidr(e));
  if (entries.length === 0 || bad.length > 0) {
    throw new ConfigError(
      `TRUST_PROXY must name the proxies to trust (addresses or CIDRs such as 10.0.0.0/8, or loopback) or a hop count; ` +
        `"${bad[0] ?? raw}" is neither`,
    );
  }
  return entries.map((e) => (PROXY_NAMES.includes(e.toLowerCase()) ? e.toLowerCase() : e));
}

// A guessable token would publish the metrics: at least 16 characters.
function metricsToken(raw: string | undefined): string | undefined {
  if (raw !== undefined && raw.length < 16)
    throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
  return raw;
}

// 32 bytes, written as 64 hex digits or in base64 (openssl rand -hex 32, or -base64 32).
function tsaOf(env: NodeJS.ProcessEnv): Config['tsa'] {
  const url = optional(env, 'TSA_URL');
  if (url === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('TSA_URL must be an http or https URL of an RFC 3161 time-stamp authority');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError('TSA_URL must be an http or https URL of an RFC 3161 time-stamp authority');
  }
  return { url: parsed.href, timeoutMs: integer(env, 'TSA_TIMEOUT_MS', 10_000, 100, 120_000) };
}

function signingKeysSecret(raw: string | undefined): Buffer | undefined {
  if (raw === undefined) return undefined;
  const bytes = /^[0-9a-fA-F]{64}$/.test(raw)
    ? Buffer.from(raw, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(raw)
      ? Buffer.from(raw, 'base64')
      : undefined;
  if (bytes?.length !== 32) {
    throw new ConfigError(
      'SIGNING_KEYS_SECRET must be 32 random bytes, as 64 hex digits (openssl rand -hex 32) or base64',
    );
  }
  return bytes;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const publicBaseUrl = (optional(env, 'PUBLIC_BASE_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '');
  try {
    new URL(publicBaseUrl);
  } catch {
    throw new ConfigError(`PUBLIC_BASE_URL is not a URL: "${publicBaseUrl}"`);
  }
  const trustProxy = optional(env, 'TRUST_PROXY');
  const shutdownTimeoutS = integer(env, 'SHUTDOWN_TIMEOUT_S', 25, 1, 3_600);
  const shutdownDelayS = integer(env, 'SHUTDOWN_DELAY_S', 0, 0, 3_600);
  if (shutdownDelayS >= shutdownTimeoutS) {
    throw new ConfigError(
      `SHUTDOWN_DELAY_S (${shutdownDelayS}) must be less than SHUTDOWN_TIMEOUT_S (${shutdownTimeoutS}): the delay counts within the deadline`,
    );
  }
  return {
    port,
    host: optional(env, 'HOST') ?? '127.0.0.1',
    publicBaseUrl,
    publicBaseUrlSet: optional(env, 'PUBLIC_BASE_URL') !== undefined,
    dataDir: path.resolve(optional(env, 'DATA_DIR') ?? './data'),
    dataDirSet: optional(env, 'DATA_DIR') !== undefined,
    databaseUrl: optional(env, 'DATABASE_URL'),
    redisUrl: optional(env, 'REDIS_URL'),
    smtpUrl: optional(env, 'SMTP_URL'),
    mailFrom: optional(env, 'MAIL_FROM') ?? 'certsvc <certificates@localhost>',
    corsPartnerDomains: parseDomains(env.CORS_PARTNER_DOMAINS),
    trustProxy: parseTrustProxy(trustProxy),
    httpTimeouts: {
      ...DEFAULT_TIMEOUTS,
      keepAliveMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', DEFAULT_TIMEOUTS.keepAliveMs, 1_000, 600_000),
    },
    rateLimit: {
      max: integer(env, 'RATE_LIMIT_MAX', 60, 1, 1_000_000),
      windowS: integer(env, 'RATE_LIMIT_WINDOW_S', 60, 1, 86_400),
    },
    verifyQueueMax: integer(env, 'VERIFY_QUEUE_MAX', 512, 1, 100_000),
    logLevel: optional(env, 'LOG_LEVEL') ?? 'info',
    plans: parsePlans(optional(env, 'PLANS_JSON')),
    email: {
      leaseMs: integer(env, 'EMAIL_LEASE_MS', 60_000, 100, 3_600_000),
      retryBaseMs: integer(env, 'EMAIL_RETRY_BASE_MS', 30_000, 1, 3_600_000),
      pollMs: integer(env, 'EMAIL_POLL_MS', 1_000, 10, 60_000),
    },
    shutdownTimeoutS,
    shutdownDelayS,
    metricsToken: metricsToken(optional(env, 'METRICS_TOKEN')),
    timeouts: {
      dbStatementMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', 10_000, 100, 3_600_000),
      dbConnectMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 10_000, 100, 600_000),
      redisMs: integer(env, 'REDIS_TIMEOUT_MS', 1_000, 10, 60_000),
    },
    smtp: {
      timeoutMs: integer(env, 'SMTP_TIMEOUT_MS', 20_000, 100, 600_000),
      allowInsecureAuth: flag(env, 'SMTP_ALLOW_INSECURE_AUTH'),
    },
    signingKeysSecret: signingKeysSecret(optional(env, 'SIGNING_KEYS_SECRET')),
    tsa: tsaOf(env),
    studioAutosaveS: integer(env, 'STUDIO_AUTOSAVE_S', 30, 1, 3_600),
  };
}
