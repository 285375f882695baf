import type { Db } from '../../platform/db/db.js';
import { NotFoundError } from '../../platform/errors.js';
import { paginated, toPage, type PageInput } from '../../platform/pagination.js';
import type { Doer } from '../../platform/principal.js';
import { ChainChecker, type AuditEvent, type ChainCheck } from './audit-chain.js';
import { recordAudit } from './audit-log.js';
import * as repo from './audit.repository.js';

export type { AuditFilter } from './audit.repository.js';

const VERIFY_PAGE = 5_000;
const EXPORT_PAGE = 2_000;

// The audit trail of an account (decisions 21): its events are written by the services that make
// the changes (audit-log.ts); this reads and checks them.
export function createAuditService(deps: { db: Db; now?: () => Date }) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  return {
    // A page of the account's events, newest first (the API's list, Settings > Audit log).
    async list(accountId: string, input: PageInput & repo.AuditFilter) {
      const page = toPage(input);
      const { page: _p, perPage: _pp, ...filter } = input;
      const { rows, total } = await repo.listEvents(db, accountId, filter, page);
      return paginated(rows.map(repo.eventOf), page, total);
    },

    // Every event the filter matches, newest first, read a page at a time. The export is recorded
    // first (`audit.exported`, with its filter), before anything is read, so it is in what it exports.
    async exportEvents(
      doer: Doer,
      accountId: string,
      filter: repo.AuditFilter,
    ): Promise<AsyncGenerator<AuditEvent[]>> {
      const changes = Object.fromEntries(
        Object.entries(filter).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v]),
      );
      await recordAudit(db, accountId, doer, [{ action: 'audit.exported', changes }], now());
      return (async function* () {
        let before: { occurredAt: Date; seq: string } | undefined;
        for (;;) {
          const rows = await repo.eventsBefore(db, accountId, filter, before, EXPORT_PAGE);
          if (rows.length > 0) yield rows.map(repo.eventOf);
          if (rows.length < EXPORT_PAGE) return;
          const last = rows[rows.length - 1]!;
          before = { occurredAt: last.occurred_at, seq: last.seq };
        }
      })();
    },

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
