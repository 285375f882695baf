import type { LightMyRequestResponse } from 'fastify';
import type { Tenant, TestApp } from '../helpers/app.js';

export const CROCKFORD_16 = /^[0-9A-HJKMNP-TV-Z]{16}$/;
export const ISO_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export interface RecipientInput {
  name?: unknown;
  email?: unknown;
  data?: unknown;
  [key: string]: unknown;
}

export function recipient(n = 0, overrides: RecipientInput = {}): RecipientInput {
  return {
    name: `Recipient ${n}`,
    email: `r${n}@example.com`,
    data: { course: 'Graph Theory', hours: 12 },
    ...overrides,
  };
}

export function recipients(count: number, from = 0): RecipientInput[] {
  return Array.from({ length: count }, (_, i) => recipient(from + i));
}

export function issue(t: TestApp, tenant: Tenant, body: unknown): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/certificates',
    headers: tenant.auth,
    payload: body as object,
  });
}

export async function issueOne(t: TestApp, tenant: Tenant, r: RecipientInput = recipient()) {
  const res = await issue(t, tenant, { templateId: tenant.templateId, recipient: r });
  if (res.statusCode !== 201) throw new Error(`issue failed: ${res.statusCode} ${res.body}`);
  return res.json().data as Record<string, unknown> & { id: string; uniqueCode: string };
}

export async function usageOf(t: TestApp, tenant: Tenant) {
  const res = await t.app.inject({ url: '/api/v1/usage', headers: tenant.auth });
  if (res.statusCode !== 200) throw new Error(`usage failed: ${res.statusCode} ${res.body}`);
  return res.json().data.certificates as {
    limit: number | null;
    used: number;
    remaining: number | null;
    resetAt: string;
  };
}

export async function certificateCount(t: TestApp, accountId: string): Promise<number> {
  const { rows } = await t.deps.db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM certificates WHERE account_id = $1',
    [accountId],
  );
  return rows[0]!.n;
}

/** Used quota straight from the table (no request, so it does not touch the key's rate limit). */
export async function usedInDb(t: TestApp, accountId: string): Promise<number> {
  const { rows } = await t.deps.db.query<{ used: number }>(
    'SELECT coalesce(sum(used), 0)::int AS used FROM usage_periods WHERE account_id = $1',
    [accountId],
  );
  return rows[0]!.used;
}

export function firstOfNextMonthUtc(now = new Date()): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
}

/** Inserts a Draft certificate directly (the API never creates one). */
export async function insertDraft(t: TestApp, tenant: Tenant, code: string): Promise<string> {
  const { rows } = await t.deps.db.query<{ id: string }>(
    `INSERT INTO certificates (id, account_id, template_id, unique_code, recipient_name, search_name, recipient_email, title, data, status, created_at)
     VALUES (gen_random_uuid(), $1, $2, $3, 'Drafty McDraft', 'drafty mcdraft', 'draft@example.com', 'Draft', '{}'::jsonb, 'Draft', now())
     RETURNING id`,
    [tenant.accountId, tenant.templateId, code],
  );
  return rows[0]!.id;
}

/** A random well-formed unique code (Crockford base32, 16 characters). */
export function randomCode(): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let s = '';
  for (let i = 0; i < 16; i++) s += alphabet[Math.floor(Math.random() * 32)];
  return s;
}

/** One item of a batch result, as the API sends it. */
export interface BatchItem {
  index: number;
  status: 'created' | 'failed';
  certificate?: { id: string; uniqueCode: string; recipientName: string; [field: string]: unknown };
  error?: {
    code: string;
    message: string;
    details: { issues: { path: (string | number)[]; message: string }[] };
  };
}
