import type { Db, Queryable } from '../../platform/db/db.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import type { Design } from '../../pdf/design.schema.js';
import type { Doer } from '../../platform/principal.js';
import { findAccount } from '../accounts/accounts.repository.js';
import { recordAudit } from '../audit/audit-log.js';
import * as versions from './template-versions.repository.js';
import * as repo from './templates.repository.js';

// The writes of a template together with its history (templates and template_versions), and the
// reads that refuse what is gone: what both halves of the templates service build on. Each write
// records its audit event in its transaction (`doer`: who made it).

const target = (id: string) => ({ type: 'template', id });
export function templateStore(db: Db) {
  return {
    // A new template with its first version.
    async insert(doer: Doer, accountId: string, design: Design, status: 'draft' | 'active', note: string) {
      if (!(await findAccount(db, accountId))) throw new NotFoundError('Account');
      return db.transaction(async () => {
        const row = await repo.insertTemplate(db, { id: uuidv7(), accountId, design, status });
        await versions.insertVersion(db, { templateId: row.id, accountId, version: 1, design, note });
        const changes = { name: design.name, version: 1, status, note };
        await recordAudit(
          db,
          accountId,
          doer,
          [{ action: 'template.saved', target: target(row.id), changes }],
          new Date(),
        );
        return row;
      });
    },

    // Saves `design` as the template's newest version. A draft's design follows its newest version;
    // an active template's issued design changes only when `publish` is set.
    async save(doer: Doer, accountId: string, id: string, design: Design, note: string, publish: boolean) {
      return db.transaction(async () => {
        const taken = await repo.takeVersionNumber(db, accountId, id);
        if (!taken) {
          if (await repo.findOwned(db, accountId, id))
            throw new ConflictError('An archived template cannot be changed');
          throw new NotFoundError('Template');
        }
        const version = taken.latest_version;
        await versions.insertVersion(db, { templateId: id, accountId, version, design, note });
        const row =
          publish || taken.status === 'draft'
            ? (await repo.setDesign(db, { accountId, id, design, version, publish }))!
            : (await repo.findOwned(db, accountId, id))!;
        // A save that publishes is one event: the version saved and made the one issued.
        const action = publish ? 'template.published' : 'template.saved';
        const changes = { name: design.name, version, note, ...(publish ? { status: row.status } : {}) };
        await recordAudit(db, accountId, doer, [{ action, target: target(id), changes }], new Date());
        return row;
      });
    },

    // A draft or active template of the account.
    async owned(accountId: string, id: string) {
      const row = await repo.findOwned(db, accountId, id);
      if (!row || row.status === 'archived') throw new NotFoundError('Template');
      return row;
    },

    async storedVersion(accountId: string, id: string, version: number) {
      const found = await versions.findVersion(db, accountId, id, version);
      if (!found) throw new NotFoundError('Template version');
      return found;
    },
  };
}

// The event of a template archived, in the archive's transaction.
export function archivedEvent(tx: Queryable, doer: Doer, accountId: string, id: string) {
  const event = { action: 'template.archived' as const, target: { type: 'template', id } };
  return recordAudit(tx, accountId, doer, [event], new Date());
}

export type TemplateStore = ReturnType<typeof templateStore>;
