import type { Queryable } from '../../platform/db/db.js';

export async function usedInPeriod(db: Queryable, accountId: string, period: string): Promise<number> {
  const { rows } = await db.query<{ used: number }>(
    'SELECT used FROM usage_periods WHERE account_id = $1 AND period_start = $2',
    [accountId, period],
  );
  return rows[0]?.used ?? 0;
}

// Reserves up to `wanted` certificates of the period under a row lock, inside the caller's
// transaction: concurrent issuers on any instance queue on the lock, so the quota is never
// exceeded. `limit` null means unlimited (partner contract). Returns how many were granted.
export async function reserve(
  tx: Queryable,
  input: { accountId: string; period: string; wanted: number; limit: number | null },
): Promise<{ granted: number; usedBefore: number }> {
  // The usual case in one statement: the period's row exists and has room for everything wanted.
  // The UPDATE takes the row lock and re-checks the room on the row as it is once locked.
  const whole = await tx.query<{ used_before: number }>(
    `UPDATE usage_periods SET used = used + $3, quota = $4
      WHERE account_id = $1 AND period_start = $2 AND ($4::integer IS NULL OR used + $3 <= $4::integer)
      RETURNING used - $3 AS used_before`,
    [input.accountId, input.period, input.wanted, input.limit],
  );
  if (whole.rows[0]) return { granted: input.wanted, usedBefore: whole.rows[0].used_before };
  await tx.query(
    'INSERT INTO usage_periods (account_id, period_start) VALUES ($1, $2) ON CONFLICT DO NOTHING',
    [input.accountId, input.period],
  );
  const { rows } = await tx.query<{ used: number }>(
    'SELECT used FROM usage_periods WHERE account_id = $1 AND period_start = $2 FOR UPDATE',
    [input.accountId, input.period],
  );
  const usedBefore = rows[0]!.used;
  const granted =
    input.limit === null ? input.wanted : Math.max(0, Math.min(input.wanted, input.limit - usedBefore));
  if (granted > 0) {
    // quota is recorded with the grant so that the CHECK (used <= quota) backs the rule up.
    await tx.query(
      'UPDATE usage_periods SET used = used + $3, quota = $4 WHERE account_id = $1 AND period_start = $2',
      [input.accountId, input.period, granted, input.limit],
    );
  }
  return { granted, usedBefore };
}
