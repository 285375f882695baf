import type { PlanDefinition } from '../../config.js';
import type { Db } from '../../platform/db/db.js';
import type { Principal } from '../../platform/principal.js';
import { isoDate, periodEnd, periodStart } from './period.js';
import { usedInPeriod } from './usage.repository.js';
import type { UsageView } from './usage.schemas.js';

/** A plan as the dashboard offers it: its name and monthly limit (PLANS_JSON). */
export interface PlanOffer {
  name: string;
  monthlyLimit: number;
}

export function createUsageService(deps: { db: Db; now: () => Date; config: { plans: PlanDefinition[] } }) {
  return {
    // The configured plans, smallest first: what an account may be moved to for more certificates.
    plans(): PlanOffer[] {
      return deps.config.plans
        .map((p) => ({ name: p.name, monthlyLimit: p.monthlyLimit }))
        .sort((a, b) => a.monthlyLimit - b.monthlyLimit);
    },

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
