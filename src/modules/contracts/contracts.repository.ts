import type { Queryable } from '../../platform/db/db.js';

export interface ContractRow {
  id: string;
  account_id: string;
  status: 'active' | 'ended';
  starts_at: Date;
  ends_at: Date | null;
  email_delivery: boolean;
  created_at: Date;
}

const COLUMNS = 'id, account_id, status, starts_at, ends_at, email_delivery, created_at';

export async function insertContract(
  db: Queryable,
  input: { id: string; accountId: string; startsAt: Date; endsAt: Date | null; emailDelivery: boolean },
): Promise<ContractRow> {
  const { rows } = await db.query<ContractRow>(
    `INSERT INTO contracts (id, account_id, status, starts_at, ends_at, email_delivery)
     VALUES ($1, $2, 'active', $3, $4, $5) RETURNING ${COLUMNS}`,
    [input.id, input.accountId, input.startsAt, input.endsAt, input.emailDelivery],
  );
  return rows[0]!;
}

// Ends an active contract now (or keeps an earlier end); undefined when none is active.
export async function endContract(db: Queryable, id: string, now: Date): Promise<ContractRow | undefined> {
  const { rows } = await db.query<ContractRow>(
    `UPDATE contracts SET status = 'ended', ends_at = CASE WHEN ends_at IS NULL OR ends_at > $2 THEN GREATEST($2, starts_at + interval '1 millisecond') ELSE ends_at END
      WHERE id = $1 AND status = 'active' RETURNING ${COLUMNS}`,
    [id, now],
  );
  return rows[0];
}

export async function contractExists(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM contracts WHERE id = $1', [id]);
  return rowCount === 1;
}
