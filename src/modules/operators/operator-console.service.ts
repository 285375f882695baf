import type { Db } from '../../platform/db/db.js';
import { ConflictError } from '../../platform/errors.js';
import type { Doer } from '../../platform/principal.js';
import type { AccountOverview, AccountsService, AccountView } from '../accounts/accounts.service.js';
import { recordAudit, type AuditInput } from '../audit/audit-log.js';
import type { ContractsService, ContractView } from '../contracts/contracts.service.js';

// What an operator does to an account from /admin: each change calls the accounts or contracts
// service (the rules are theirs) inside a transaction that also records the audit event of the
// account it touched, so both commit together. The services' queries run on that transaction
// (db.transaction makes it theirs for the async context, platform/db/db.ts).
export const ACCOUNTS_PER_PAGE = 50;

type Audited<T> = { value: T; accountId: string; event: AuditInput };

export function createOperatorConsole(deps: {
  db: Db;
  accounts: AccountsService;
  contracts: ContractsService;
  now: () => Date;
}) {
  const { db, accounts, contracts } = deps;

  async function audited<T>(doer: Doer, change: () => Promise<Audited<T>>): Promise<T> {
    return db.transaction(async (tx) => {
      const { value, accountId, event } = await change();
      await recordAudit(tx, accountId, doer, [event], deps.now());
      return value;
    });
  }
  const target = (id: string) => ({ type: 'account', id });
  const contractStarted = (contract: ContractView): Audited<ContractView> => ({
    value: contract,
    accountId: contract.accountId,
    event: {
      action: 'account.updated',
      target: target(contract.accountId),
      changes: {
        contract: {
          started: contract.id,
          startsAt: contract.startsAt,
          endsAt: contract.endsAt,
          emailDelivery: contract.emailDelivery,
        },
      },
    },
  });
  const contractEnded = (contract: ContractView): Audited<ContractView> => ({
    value: contract,
    accountId: contract.accountId,
    event: {
      action: 'account.updated',
      target: target(contract.accountId),
      changes: { contract: { ended: contract.id } },
    },
  });

  return {
    /** A page of the accounts (newest first, 50 a page) with plan, this period's usage and contract. */
    async list(
      page = 1,
    ): Promise<{ accounts: AccountOverview[]; page: number; pages: number; total: number }> {
      const { accounts: list, total } = await accounts.overviews(page, ACCOUNTS_PER_PAGE);
      return { accounts: list, page, pages: Math.max(1, Math.ceil(total / ACCOUNTS_PER_PAGE)), total };
    },

    overview: (id: string) => accounts.overview(id),

    createAccount(
      doer: Doer,
      input: { name: string; plan: string; monthlyLimit?: number | null },
    ): Promise<AccountView> {
      return audited(doer, async () => {
        const account = await accounts.create(input);
        return {
          value: account,
          accountId: account.id,
          event: {
            action: 'account.updated',
            target: target(account.id),
            changes: { created: { name: account.name, plan: account.plan } },
          },
        };
      });
    },

    setPlan(doer: Doer, id: string, plan: string): Promise<AccountView> {
      return audited(doer, async () => {
        const before = await accounts.get(id);
        const account = await accounts.setPlan(id, plan);
        return {
          value: account,
          accountId: id,
          event: {
            action: 'account.updated',
            target: target(id),
            changes: { plan: { from: before.plan, to: account.plan } },
          },
        };
      });
    },

    // A partner contract from now, open-ended or up to `endsAt` (the contracts service's rules).
    startContract(doer: Doer, id: string, input: { endsAt?: Date | null }) {
      return audited(doer, async () => {
        const current = await accounts.overview(id);
        if (current.contract) throw new ConflictError('The account already has a partner contract in force');
        return contractStarted(await contracts.create({ accountId: id, endsAt: input.endsAt ?? null }));
      });
    },

    // The command line's contract: any start (a future one too) and email delivery on or off.
    createContract(
      doer: Doer,
      input: { accountId: string; startsAt?: Date; endsAt?: Date | null; emailDelivery?: boolean },
    ) {
      return audited(doer, async () => contractStarted(await contracts.create(input)));
    },

    // The command line's end of a contract, by the contract's id.
    endContractById(doer: Doer, contractId: string) {
      return audited(doer, async () => contractEnded(await contracts.end(contractId)));
    },

    endContract(doer: Doer, id: string) {
      return audited(doer, async () => {
        const current = await accounts.overview(id);
        if (!current.contract) throw new ConflictError('The account has no partner contract in force');
        return contractEnded(await contracts.end(current.contract.id));
      });
    },

    suspend(doer: Doer, id: string): Promise<AccountView> {
      return audited(doer, async () => ({
        value: await accounts.suspend(id),
        accountId: id,
        event: { action: 'account.suspended', target: target(id) },
      }));
    },

    resume(doer: Doer, id: string): Promise<AccountView> {
      return audited(doer, async () => ({
        value: await accounts.resume(id),
        accountId: id,
        event: { action: 'account.resumed', target: target(id) },
      }));
    },
  };
}

export type OperatorConsole = ReturnType<typeof createOperatorConsole>;
