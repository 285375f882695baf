import type { Db } from '../../platform/db/db.js';
import type { Doer } from '../../platform/principal.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import * as holds from './import-holds.repository.js';
import * as repo from './imports.repository.js';
import { AT_ONCE_ROWS, stored, type NewImport } from './new-import.js';

// The quota in view (issue 29): an upload whose rows exceed the quota left is held, parsed and
// checked, until the user starts its first N rows or cancels it; and "Retry the failed rows" makes a
// new import of an ended import's failed rows, once. Both start their import as every upload does,
// through the imports service's create or issueAtOnce.

/** An upload held before it starts: its rows exceed the quota left (issue 29). */
export interface HoldView {
  id: string;
  templateId: string;
  fileName: string;
  rows: number;
  createdAt: string;
}

// How the imports service starts and reads imports (its ImportView as V).
interface Starts<V> {
  create(doer: Doer, input: NewImport): Promise<V>;
  issueAtOnce(doer: Doer, input: NewImport): Promise<V>;
  get(accountId: string, id: string): Promise<V>;
}

export function heldUploads<V>(db: Db, imports: Starts<V>) {
  async function held(accountId: string, id: string): Promise<HoldView> {
    const row = await holds.findHold(db, accountId, id);
    if (!row) throw new NotFoundError('Upload');
    const { template_id: templateId, file_name: fileName, rows } = row;
    return { id, templateId, fileName, rows, createdAt: row.created_at.toISOString() };
  }

  return {
    held,

    // An upload whose rows exceed the quota left, parsed and checked, held until it is started.
    async hold(input: NewImport): Promise<HoldView> {
      const id = uuidv7();
      await holds.insertHold(db, { ...stored(id, input) });
      return held(input.accountId, id);
    },

    // Starts a held upload with its first `limit` rows (the others fail as over the quota), as any
    // upload starts: at once when it is small, else as an import for the workers. Once: the hold
    // is taken away, and a second start finds nothing.
    async startHeld(doer: Doer, accountId: string, id: string, limit: number, createdBy: string): Promise<V> {
      const hold = await holds.takeHold(db, accountId, id);
      if (!hold) throw new NotFoundError('Upload');
      const input: NewImport = {
        ...{ accountId, templateId: hold.template_id, fileName: hold.file_name, createdBy, limit },
        rows: hold.recipients.map(({ line, ...recipient }) => ({ line, recipient })),
      };
      try {
        return hold.rows > AT_ONCE_ROWS
          ? await imports.create(doer, input)
          : await imports.issueAtOnce(doer, input);
      } catch (err) {
        await holds.insertHold(db, { ...stored(id, { ...input, createdBy: hold.created_by }) });
        throw err;
      }
    },

    async dropHeld(accountId: string, id: string): Promise<void> {
      if (!(await holds.takeHold(db, accountId, id))) throw new NotFoundError('Upload');
    },

    // "Retry the failed rows": a new import of exactly the failed rows of an ended import (same
    // template, same values), started as any import. Once per import: a second retry answers the
    // first one's import, so no row is issued twice.
    async retryFailed(doer: Doer, accountId: string, id: string, createdBy: string): Promise<V> {
      const imp = await repo.findImport(db, accountId, id);
      if (!imp) throw new NotFoundError('Import');
      const retryId = uuidv7();
      if (!(await repo.claimRetry(db, accountId, id, retryId))) {
        const again = await repo.findImport(db, accountId, id);
        if (again?.retried_by) return imports.get(accountId, again.retried_by);
        throw new ConflictError('Only an import that has ended with failed rows can retry them');
      }
      try {
        const rows = (await repo.failedRows(db, id)).map(({ line, ...recipient }) => ({ line, recipient }));
        const { template_id: templateId, file_name: fileName } = imp;
        return await imports.create(doer, {
          accountId,
          templateId,
          fileName,
          createdBy,
          rows,
          retryOf: id,
          id: retryId,
        });
      } catch (err) {
        await repo.releaseRetry(db, id, retryId);
        throw err;
      }
    },
  };
}
