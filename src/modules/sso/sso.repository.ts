import type { Queryable } from '../../platform/db/db.js';
import type { Role } from '../shared/roles.js';

export interface SsoRow {
  account_id: string;
  issuer_url: string;
  client_id: string;
  client_secret: Buffer;
  allowed_domains: string[];
  default_role: Exclude<Role, 'owner'>;
  role_claim: string | null;
  role_map: Record<string, Exclude<Role, 'owner'>>;
  password_sign_in: boolean;
  updated_at: Date;
}

const COLUMNS =
  'account_id, issuer_url, client_id, client_secret, allowed_domains, default_role, role_claim, role_map, password_sign_in, updated_at';

export async function findSso(db: Queryable, accountId: string): Promise<SsoRow | undefined> {
  const { rows } = await db.query<SsoRow>(`SELECT ${COLUMNS} FROM account_sso WHERE account_id = $1`, [
    accountId,
  ]);
  return rows[0];
}

// The account whose provider signs in the people of this email domain.
export async function findAccountByDomain(db: Queryable, domain: string): Promise<string | undefined> {
  const { rows } = await db.query<{ account_id: string }>(
    'SELECT account_id FROM sso_domains WHERE domain = $1',
    [domain],
  );
  return rows[0]?.account_id;
}

export async function upsertSso(db: Queryable, row: SsoRow): Promise<void> {
  await db.query(
    `INSERT INTO account_sso (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (account_id) DO UPDATE SET issuer_url = $2, client_id = $3, client_secret = $4,
       allowed_domains = $5, default_role = $6, role_claim = $7, role_map = $8, password_sign_in = $9,
       updated_at = $10`,
    [
      row.account_id,
      row.issuer_url,
      row.client_id,
      row.client_secret,
      row.allowed_domains,
      row.default_role,
      row.role_claim,
      JSON.stringify(row.role_map),
      row.password_sign_in,
      row.updated_at,
    ],
  );
}

// Replaces the account's domains; the domain another account already signs in with, or undefined.
export async function replaceDomains(
  db: Queryable,
  accountId: string,
  domains: string[],
): Promise<string | undefined> {
  const { rows } = await db.query<{ domain: string }>(
    'SELECT domain FROM sso_domains WHERE domain = ANY($1) AND account_id <> $2 LIMIT 1',
    [domains, accountId],
  );
  if (rows[0]) return rows[0].domain;
  await db.query('DELETE FROM sso_domains WHERE account_id = $1', [accountId]);
  await db.query('INSERT INTO sso_domains (domain, account_id) SELECT unnest($1::text[]), $2', [
    domains,
    accountId,
  ]);
  return undefined;
}

export async function deleteSso(db: Queryable, accountId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM account_sso WHERE account_id = $1', [accountId]);
  return (rowCount ?? 0) > 0;
}
