import type { Queryable } from '../../platform/db/db.js';
import type { PlanDefinition } from '../../config.js';

export interface AccountRow {
  id: string;
  name: string;
  plan: string;
  monthly_limit: number | null;
  created_at: Date;
}

const COLUMNS = 'id, name, plan, monthly_limit, created_at';

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

export async function updatePlan(db: Queryable, id: string, plan: string): Promise<AccountRow | undefined> {
  const { rows } = await db.query<AccountRow>(
    `UPDATE accounts SET plan = $2 WHERE id = $1 RETURNING ${COLUMNS}`,
    [id, plan],
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
}

// What the account may do right now: its plan and its active partner contract, if any (the same
// rules as key authentication, for callers without a key: the dashboard).
export async function findEntitlement(
  db: Queryable,
  accountId: string,
  now: Date,
): Promise<EntitlementRow | undefined> {
  const { rows } = await db.query<EntitlementRow>(
    `SELECT a.plan, p.api_access, p.email_delivery AS plan_email_delivery,
            COALESCE(a.monthly_limit, p.monthly_limit) AS monthly_limit,
            c.id AS contract_id, c.email_delivery AS contract_email_delivery
       FROM accounts a
       JOIN plans p ON p.name = a.plan
       LEFT JOIN LATERAL (
         SELECT id, email_delivery FROM contracts
          WHERE account_id = a.id AND status = 'active' AND starts_at <= $2 AND (ends_at IS NULL OR ends_at > $2)
          ORDER BY starts_at DESC LIMIT 1
       ) c ON true
      WHERE a.id = $1`,
    [accountId, now],
  );
  return rows[0];
}
