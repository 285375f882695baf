import type { Config } from '../../config.js';
import type { Db } from '../../platform/db/db.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import * as repo from './accounts.repository.js';

export interface AccountView {
  id: string;
  name: string;
  plan: string;
  monthlyLimit: number | null;
  createdAt: string;
}

function view(row: repo.AccountRow): AccountView {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    monthlyLimit: row.monthly_limit,
    createdAt: row.created_at.toISOString(),
  };
}

export function createAccountsService(deps: { db: Db; config: Config }) {
  const { db } = deps;
  const planNames = deps.config.plans.map((p) => p.name);

  function checkPlan(plan: string): string {
    const match = planNames.find((p) => p.toLowerCase() === plan.toLowerCase());
    if (!match) {
      throw new ValidationError(
        [{ path: ['plan'], message: `unknown plan "${plan}"; known: ${planNames.join(', ')}` }],
        `Unknown plan "${plan}" (known: ${planNames.join(', ')})`,
      );
    }
    return match;
  }

  return {
    async create(input: { name: string; plan: string; monthlyLimit?: number | null }): Promise<AccountView> {
      const name = input.name.trim();
      if (name.length < 1 || name.length > 200) {
        throw new ValidationError(
          [{ path: ['name'], message: 'must be 1 to 200 characters' }],
          'The account name must be 1 to 200 characters',
        );
      }
      const row = await repo.insertAccount(db, {
        id: uuidv7(),
        name,
        plan: checkPlan(input.plan),
        monthlyLimit: input.monthlyLimit ?? null,
      });
      return view(row);
    },

    async setPlan(id: string, plan: string): Promise<AccountView> {
      const row = await repo.updatePlan(db, id, checkPlan(plan));
      if (!row) throw new NotFoundError('Account');
      return view(row);
    },

    async get(id: string): Promise<AccountView> {
      const row = await repo.findAccount(db, id);
      if (!row) throw new NotFoundError('Account');
      return view(row);
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
