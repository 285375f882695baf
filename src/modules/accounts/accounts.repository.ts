import type { Queryable } from '../../platform/db/db.js';
import type { PlanDefinition } from '../../config.js';

export interface AccountRow {
  id: string;
  name: string;
  plan: string;
  monthly_limit: number | null;
  created_at: Date;
  linkedin_organization_id: string | null;
  public_download: boolean;
  suspended_at: Date | null;
  website: string | null;
  contact_email: string | null;
  default_language: string | null;
  logo_type: string | null;
  logo_sha256: string | null;
  logo_size: number | null;
}

// Never the logo's bytes: every dashboard request reads its account (findLogo reads them).
const COLUMNS = `id, name, plan, monthly_limit, created_at, linkedin_organization_id, public_download,
  website, contact_email, default_language, logo_type, logo_sha256, octet_length(logo) AS logo_size, suspended_at`;

// The configured catalog is the truth: rows are upserted at start.
export async function upsertPlans(db: Queryable, plans: PlanDefinition[]): Promise<void> {
  for (const plan of plans) {
    await db.query(
      `INSERT INTO plans (name, api_access, email_delivery, monthly_limit) VALUES ($1, $2, $3, $4)
       ON CONFLICT (name) DO UPDATE SET api_access = $2, email_delivery = $3, monthly_limit = $4`,
      [plan.name, plan.apiAccess, plan.emailDelivery, plan.monthlyLimit],
    );
  }
}

export async function insertAccount(
  db: Queryable,
  account: { id: string; name: string; plan: string; monthlyLimit: number | null },
): Promise<AccountRow> {
  const { rows } = await db.query<AccountRow>(
    `INSERT INTO accounts (id, name, plan, monthly_limit) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [account.id, account.name, account.plan, account.monthlyLimit],
  );
  return rows[0]!;
}

export async function findAccount(db: Queryable, id: string): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [id]);
  return rows[0];
}

// Suspends (a time) or resumes (null) an account; undefined when it does not exist or is already so.
export async function setSuspended(
  db: Queryable,
  id: string,
  suspendedAt: Date | null,
): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    `UPDATE accounts SET suspended_at = $2
      WHERE id = $1 AND (suspended_at IS NULL) = ($2::timestamptz IS NOT NULL) RETURNING ${COLUMNS}`,
    [id, suspendedAt],
  );
  return rows[0];
}

export async function updatePlan(db: Queryable, id: string, plan: string): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    `UPDATE accounts SET plan = $2 WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, plan],
  );
  return rows[0];
}

// The sharing settings of an account (issue 19); a field left undefined keeps its value.
export async function updateSettings(
  db: Queryable,
  id: string,
  settings: { linkedinOrganizationId?: string | null; publicDownload?: boolean },
): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    `UPDATE accounts SET linkedin_organization_id = CASE WHEN $2 THEN $3 ELSE linkedin_organization_id END,
            public_download = COALESCE($4, public_download)
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [
      id,
      settings.linkedinOrganizationId !== undefined,
      settings.linkedinOrganizationId ?? null,
      settings.publicDownload ?? null,
    ],
  );
  return rows[0];
}

/** The organisation's profile as changed: a field left undefined keeps its value; null clears it. */
export interface ProfileChange {
  name?: string;
  website?: string | null;
  contactEmail?: string | null;
  defaultLanguage?: string | null;
  logo?: { bytes: Buffer; type: string; sha256: string } | null;
}

// The account as it is, locked for the change that reads it (the audit event's "from").
export async function lockAccount(db: Queryable, id: string): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1 FOR UPDATE`, [
    id,
  ]);
  return rows[0];
}

export async function updateProfile(db: Queryable, id: string, change: ProfileChange): Promise<AccountRow> {
  const set = (field: unknown) => field !== undefined;
  const { rows } = await db.query<AccountRow>(
    `UPDATE accounts SET name = COALESCE($2, name),
            website = CASE WHEN $3 THEN $4 ELSE website END,
            contact_email = CASE WHEN $5 THEN $6 ELSE contact_email END,
            default_language = CASE WHEN $7 THEN $8 ELSE default_language END,
            logo = CASE WHEN $9 THEN $10::bytea ELSE logo END,
            logo_type = CASE WHEN $9 THEN $11 ELSE logo_type END,
            logo_sha256 = CASE WHEN $9 THEN $12 ELSE logo_sha256 END
      WHERE id = $1 RETURNING ${COLUMNS}`,
    [
      id,
      change.name ?? null,
      set(change.website),
      change.website ?? null,
      set(change.contactEmail),
      change.contactEmail ?? null,
      set(change.defaultLanguage),
      change.defaultLanguage ?? null,
      set(change.logo),
      change.logo?.bytes ?? null,
      change.logo?.type ?? null,
      change.logo?.sha256 ?? null,
    ],
  );
  return rows[0]!;
}

export async function findLogo(
  db: Queryable,
  id: string,
): Promise<{ logo: Buffer; logo_type: string; logo_sha256: string } | undefined> {
  const { rows } = await db.query<{ logo: Buffer; logo_type: string; logo_sha256: string }>(
    'SELECT logo, logo_type, logo_sha256 FROM accounts WHERE id = $1 AND logo IS NOT NULL',
    [id],
  );
  return rows[0];
}

export async function countAccounts(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts');
  return rows[0]!.n;
}

export interface EntitlementRow {
  plan: string;
  api_access: boolean;
  plan_email_delivery: boolean;
  monthly_limit: number;
  contract_id: string | null;
  contract_email_delivery: boolean | null;
  suspended: boolean;
}

// What entitlement reads (EntitlementRow) of an account `a`: its plan `p` and the partner contract
// `c` in force at $2, if any. Key authentication reads it too (api-keys.repository).
export const ENTITLEMENT_COLUMNS = `a.plan, p.api_access, p.email_delivery AS plan_email_delivery,
            COALESCE(a.monthly_limit, p.monthly_limit) AS monthly_limit,
            c.id AS contract_id, c.email_delivery AS contract_email_delivery,
            a.suspended_at IS NOT NULL AS suspended`;
export const ENTITLEMENT_JOINS = `JOIN plans p ON p.name = a.plan
       LEFT JOIN LATERAL (
         SELECT id, email_delivery FROM contracts
          WHERE account_id = a.id AND status = 'active' AND starts_at <= $2 AND (ends_at IS NULL OR ends_at > $2)
          ORDER BY starts_at DESC LIMIT 1
       ) c ON true`;

// What the account may do right now: its plan and its active partner contract, if any (the same
// rules as key authentication, for callers without a key: the dashboard).
export async function findEntitlement(
  db: Queryable,
  accountId: string,
  now: Date,
): Promise<EntitlementRow | undefined> {
  const { rows } = await db.query<EntitlementRow>(
    `SELECT ${ENTITLEMENT_COLUMNS}
       FROM accounts a
       ${ENTITLEMENT_JOINS}
      WHERE a.id = $1`,
    [accountId, now],
  );
  return rows[0];
}

export async function listAccounts(db: Queryable): Promise<AccountRow[]> {
  const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts ORDER BY created_at, id`);
  return rows;
}

export interface AccountOverviewRow extends AccountRow {
  api_access: boolean;
  plan_email_delivery: boolean;
  effective_limit: number | null;
  contract_id: string | null;
  contract_starts_at: Date | null;
  contract_ends_at: Date | null;
  contract_email_delivery: boolean | null;
  active_keys: number;
  revoked_keys: number;
  used: number;
}

// Everything an operator reads about one account: its plan's rights and limit, the partner contract
// in force at `now`, its keys and its use of the period starting on `period`.
// An account with its plan, contract in force, keys and this period's usage ($2 now, $3 the period).
const OVERVIEW = `SELECT a.id, a.name, a.plan, a.monthly_limit, a.created_at, a.linkedin_organization_id, a.public_download,
            a.suspended_at, a.website, a.contact_email, a.default_language, a.logo_type, a.logo_sha256,
            octet_length(a.logo) AS logo_size, p.api_access, p.email_delivery AS plan_email_delivery,
            COALESCE(a.monthly_limit, p.monthly_limit) AS effective_limit,
            c.id AS contract_id, c.starts_at AS contract_starts_at, c.ends_at AS contract_ends_at,
            c.email_delivery AS contract_email_delivery,
            (SELECT count(*)::int FROM api_keys k WHERE k.account_id = a.id AND k.revoked_at IS NULL) AS active_keys,
            (SELECT count(*)::int FROM api_keys k WHERE k.account_id = a.id AND k.revoked_at IS NOT NULL) AS revoked_keys,
            COALESCE((SELECT u.used FROM usage_periods u WHERE u.account_id = a.id AND u.period_start = $3), 0) AS used
       FROM accounts a
       JOIN plans p ON p.name = a.plan
       LEFT JOIN LATERAL (
         SELECT id, starts_at, ends_at, email_delivery FROM contracts
          WHERE account_id = a.id AND status = 'active' AND starts_at <= $2 AND (ends_at IS NULL OR ends_at > $2)
          ORDER BY starts_at DESC LIMIT 1
       ) c ON true`;

export async function accountOverview(
  db: Queryable,
  input: { id: string; now: Date; period: string },
): Promise<AccountOverviewRow | undefined> {
  const { rows } = await db.query<AccountOverviewRow>(`${OVERVIEW} WHERE a.id = $1`, [
    input.id,
    input.now,
    input.period,
  ]);
  return rows[0];
}

/** One page of every account's overview, newest first, and how many accounts there are. */
export async function accountOverviews(
  db: Queryable,
  input: { now: Date; period: string; limit: number; offset: number },
): Promise<{ rows: AccountOverviewRow[]; total: number }> {
  const [{ rows }, count] = await Promise.all([
    db.query<AccountOverviewRow>(`${OVERVIEW} ORDER BY a.created_at DESC, a.id DESC LIMIT $1 OFFSET $4`, [
      input.limit,
      input.now,
      input.period,
      input.offset,
    ]),
    db.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts'),
  ]);
  return { rows, total: count.rows[0]!.n };
}
