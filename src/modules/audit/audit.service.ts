import type { Db } from '../../platform/db/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { ChainChecker, type ChainCheck } from './audit-chain.js';
import * as repo from './audit.repository.js';

const VERIFY_PAGE = 5_000;

// The audit trail of an account (decisions 21): its events are written by the services that make
// the changes (audit-log.ts); this reads and checks them.
export function createAuditService(deps: { db: Db }) {
  const { db } = deps;
  return {
    // Walks the whole chain in order of seq, a page at a time, in one snapshot (a repeatable-read
    // transaction), so events appended meanwhile neither break nor lengthen the walk.
    async verify(accountId: string): Promise<ChainCheck> {
      return db.transaction(async (tx) => {
        await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
        const head = await repo.auditHead(tx, accountId);
        if (!head) throw new NotFoundError('Account');
        const checker = new ChainChecker();
        let after = 0;
        for (;;) {
          const rows = await repo.chainPage(tx, accountId, after, VERIFY_PAGE);
          for (const row of rows) if (!checker.add(repo.chainedOf(row))) return checker.finish(head);
          if (rows.length < VERIFY_PAGE) break;
          after = Number(rows[rows.length - 1]!.seq);
        }
        return checker.finish(head);
      });
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
