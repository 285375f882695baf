import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { rowView } from '../../platform/row-view.js';
import { findAccount } from '../accounts/accounts.repository.js';
import * as repo from './contracts.repository.js';

export interface ContractView {
  id: string;
  accountId: string;
  status: 'active' | 'ended';
  startsAt: string;
  endsAt: string | null;
  emailDelivery: boolean;
  createdAt: string;
}

function view(row: repo.ContractRow): ContractView {
  return rowView(row, ['id', 'account_id', 'status', 'starts_at', 'ends_at', 'email_delivery', 'created_at']);
}

// A partner contract grants API access while active: status active and now within [startsAt, endsAt).
export function createContractsService(deps: { db: Db; now: () => Date }) {
  const { db } = deps;
  return {
    async create(input: {
      accountId: string;
      startsAt?: Date;
      endsAt?: Date | null;
      emailDelivery?: boolean;
    }) {
      if (!(await findAccount(db, input.accountId))) throw new NotFoundError('Account');
      const startsAt = input.startsAt ?? deps.now();
      if (input.endsAt && input.endsAt <= startsAt) {
        throw new ValidationError(
          [{ path: ['endsAt'], message: 'must be after startsAt' }],
          'The end must be after the start',
        );
      }
      const row = await repo.insertContract(db, {
        id: uuidv7(),
        accountId: input.accountId,
        startsAt,
        endsAt: input.endsAt ?? null,
        emailDelivery: input.emailDelivery ?? true,
      });
      return view(row);
    },

    async end(id: string): Promise<ContractView> {
      const row = await repo.endContract(db, id, deps.now());
      if (row) return view(row);
      if (!(await repo.contractExists(db, id))) throw new NotFoundError('Contract');
      throw new ConflictError('The contract has already ended');
    },
  };
}

export type ContractsService = ReturnType<typeof createContractsService>;
