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
