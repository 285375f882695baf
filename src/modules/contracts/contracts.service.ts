import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { findAccount } from '../accounts/accounts.repository.js';

export interface ContractView {
  id: string;
  accountId: string;
  status: 'active' | 'ended';
  startsAt: string;
  endsAt: string | null;
  emailDelivery: boolean;
  createdAt: string;
}

interface ContractRow {
  id: string;
  account_id: string;
  status: 'active' | 'ended';
  starts_at: Date;
  ends_at: Date | null;
  email_delivery: boolean;
  created_at: Date;
}

const COLUMNS = 'id, account_id, status, starts_at, ends_at, email_delivery, created_at';

function view(row: ContractRow): ContractView {
  return {
    id: row.id,
    accountId: row.account_id,
    status: row.status,
    startsAt: row.starts_at.toISOString(),
    endsAt: row.ends_at?.toISOString() ?? null,
    emailDelivery: row.email_delivery,
    createdAt: row.created_at.toISOString(),
  };
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
      const { rows } = await db.query<ContractRow>(
        `INSERT INTO contracts (id, account_id, status, starts_at, ends_at, email_delivery)
         VALUES ($1, $2, 'active', $3, $4, $5) RETURNING ${COLUMNS}`,
        [uuidv7(), input.accountId, startsAt, input.endsAt ?? null, input.emailDelivery ?? true],
      );
      return view(rows[0]!);
    },

    async end(id: string): Promise<ContractView> {
      const { rows } = await db.query<ContractRow>(
        `UPDATE contracts SET status = 'ended', ends_at = CASE WHEN ends_at IS NULL OR ends_at > $2 THEN GREATEST($2, starts_at + interval '1 millisecond') ELSE ends_at END
          WHERE id = $1 AND status = 'active' RETURNING ${COLUMNS}`,
        [id, deps.now()],
      );
      if (rows[0]) return view(rows[0]);
      const exists = await db.query('SELECT 1 FROM contracts WHERE id = $1', [id]);
      if (exists.rowCount === 0) throw new NotFoundError('Contract');
      throw new ConflictError('The contract has already ended');
    },
  };
}

export type ContractsService = ReturnType<typeof createContractsService>;
