import { SYSTEM } from '../../src/platform/principal.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createDeps, createLogger, type Deps } from '../../src/deps.js';
import { readDesignFile } from '../../src/cli/design-file.js';
import { DEMO_DESIGN } from '../../src/cli/demo.js';

export const TEST_SIGNING_KEYS_SECRET = '5e'.repeat(32);

export function testDatabaseUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set: run the tests with `npm test`');
  return url;
}

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    DATABASE_URL: testDatabaseUrl(),
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'certsvc-test-')),
    LOG_LEVEL: 'silent',
    PUBLIC_BASE_URL: 'http://certs.test',
    CORS_PARTNER_DOMAINS: 'partner.example,academy.test',
    // A fixed master key for the suite's signing keys (all runs share one database per run).
    SIGNING_KEYS_SECRET: TEST_SIGNING_KEYS_SECRET,
    ...env,
  });
}

export interface TestApp {
  app: FastifyInstance;
  deps: Deps;
  close(): Promise<void>;
}

export async function startTestApp(
  env: Record<string, string> = {},
  overrides: Partial<Config> = {},
): Promise<TestApp> {
  const config = { ...testConfig(env), ...overrides };
  const deps = await createDeps(config, { logger: createLogger(config) });
  const app = await createApp(deps);
  return {
    app,
    deps,
    async close() {
      await app.close();
      await deps.close();
      rmSync(config.dataDir, { recursive: true, force: true });
    },
  };
}

export interface Tenant {
  accountId: string;
  key: string;
  keyId: string;
  templateId: string;
  auth: { authorization: string };
}

// A fresh account per test keeps tests independent without truncating tables.
export async function createTenant(
  deps: Deps,
  opts: { plan?: string; monthlyLimit?: number; scopes?: string[]; name?: string } = {},
): Promise<Tenant> {
  const s = deps.services;
  const account = await s.accounts.create({
    name: opts.name ?? 'Test Academy',
    plan: opts.plan ?? 'Business',
    monthlyLimit: opts.monthlyLimit ?? null,
  });
  const key = await s.keys.create(account.id, { scopes: opts.scopes });
  const template = await s.templates.create(SYSTEM, account.id, await readDesignFile(DEMO_DESIGN.pathname));
  return {
    accountId: account.id,
    key: key.key,
    keyId: key.id,
    templateId: template.id,
    auth: { authorization: `Bearer ${key.key}` },
  };
}

// Issues one certificate through the API, as a client would.
export async function issueCertificate(
  app: FastifyInstance,
  owner: Tenant,
  recipient: { name: string; email: string; data?: Record<string, string | number | boolean> } = {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    data: { course: 'Analytical Engines' },
  },
): Promise<{ id: string; uniqueCode: string; verificationUrl: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/certificates',
    headers: owner.auth,
    payload: { templateId: owner.templateId, recipient },
  });
  if (res.statusCode !== 201) throw new Error(`issue answered ${res.statusCode}: ${res.body}`);
  return res.json().data;
}
