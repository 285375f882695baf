import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { paginated, toPage, type PageInput } from '../../platform/pagination.js';
import type { Design } from '../../pdf/design.schema.js';
import type { Doer } from '../../platform/principal.js';
import { findAccount } from '../accounts/accounts.repository.js';
import { parseDesign, type DesignChecker } from './template-design.js';
import { archivedEvent, templateStore, type TemplateStore } from './template-store.js';
import * as repo from './templates.repository.js';
import type { TemplateView } from './templates.schemas.js';
import { templateView } from './templates.views.js';
import { templateDrafts } from './template-drafts.service.js';
import { workingTemplates } from './working-templates.service.js';

// The templates of an account: the API's and the operator's (CLI) published templates here, the
// dashboard's drafts, versions and publishing in working-templates.service.ts; one service of both.

export function createTemplatesService(deps: { db: Db; checkDesign?: DesignChecker }) {
  const store = templateStore(deps.db);
  return {
    ...publishedTemplates(deps, store),
    ...workingTemplates(deps, store),
    ...templateDrafts(deps, store),
  };
}

function publishedTemplates(deps: { db: Db; checkDesign?: DesignChecker }, store: TemplateStore) {
  const { db } = deps;
  return {
    // A design checked exactly like create (for previews of unsaved designs).
    parse(designInput: unknown): Promise<Design> {
      return parseDesign(designInput, deps.checkDesign);
    },

    async list(accountId: string, input: PageInput) {
      const page = toPage(input);
      const { rows, total } = await repo.listActive(db, accountId, page);
      return paginated(rows.map(templateView), page, total);
    },

    async get(accountId: string, id: string): Promise<TemplateView> {
      const row = await repo.findActive(db, accountId, id);
      if (!row) throw new NotFoundError('Template');
      return templateView(row);
    },

    // A published template, as `certsvc template create` has always made.
    async create(doer: Doer, accountId: string, designInput: unknown): Promise<TemplateView> {
      const design = await parseDesign(designInput, deps.checkDesign);
      return templateView(await store.insert(doer, accountId, design, 'active', 'created'));
    },

    // The operator's views (CLI): every template of an account with its status, and one with its design.
    async listAll(accountId: string): Promise<(TemplateView & { status: string })[]> {
      if (!(await findAccount(db, accountId))) throw new NotFoundError('Account');
      return (await repo.listAll(db, accountId)).map((row) => ({ ...templateView(row), status: row.status }));
    },

    async show(id: string): Promise<TemplateView & { accountId: string; status: string; design: Design }> {
      const row = await repo.findWithDesign(db, id);
      if (!row) throw new NotFoundError('Template');
      return { ...templateView(row), accountId: row.account_id, status: row.status, design: row.design };
    },

    // Validated exactly like create; the id stays, so integrations keep working. A new version,
    // issued at once (a draft stays a draft).
    async update(doer: Doer, id: string, designInput: unknown): Promise<TemplateView> {
      const design = await parseDesign(designInput, deps.checkDesign);
      const row = await repo.findWithDesign(db, id);
      if (!row) throw new NotFoundError('Template');
      if (row.status === 'archived') throw new ConflictError('An archived template cannot be updated');
      const note = 'updated with certsvc template update';
      return templateView(await store.save(doer, row.account_id, id, design, note, row.status === 'active'));
    },

    async archive(doer: Doer, id: string): Promise<TemplateView> {
      return db.transaction(async (tx) => {
        const row = await repo.archiveTemplate(tx, id);
        if (!row) throw new NotFoundError('Template');
        await archivedEvent(tx, doer, row.account_id, id);
        return templateView(row);
      });
    },
  };
}

export type TemplatesService = ReturnType<typeof createTemplatesService>;
