import type { Db } from '../../platform/db/db.js';
import type { Principal } from '../../platform/principal.js';
import { isoDate, periodEnd, periodStart } from './period.js';
import { usedInPeriod } from './usage.repository.js';
import type { UsageView } from './usage.schemas.js';

export function createUsageService(deps: { db: Db; now: () => Date }) {
  return {
    async get(principal: Principal): Promise<UsageView> {
      const now = deps.now();
      const used = await usedInPeriod(deps.db, principal.accountId, isoDate(periodStart(now)));
      const limit = principal.monthlyLimit;
      return {
        tier: principal.plan,
        certificates: {
          limit,
          used,
          remaining: limit === null ? null : Math.max(0, limit - used),
          resetAt: periodEnd(now).toISOString(),
        },
      };
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
