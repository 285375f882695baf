import type { Db } from '../../platform/db/db.js';
import type { Design } from '../../pdf/design.schema.js';
import { designShape, sameDesign } from './template-design.js';
import * as drafts from './template-drafts.repository.js';
import type { TemplateStore } from './template-store.js';

// The studio's unsaved edits (issue 30, item 8): a draft per template and user, autosaved by the
// editor while it has edits not yet saved. A draft is not a version: nothing issues from it and no
// audit event is written; Save and Publish delete it. Part of the templates service.

export interface TemplateDraft {
  design: Design;
  savedAt: Date;
}

export function templateDrafts(deps: { db: Db; now?: () => Date }, store: TemplateStore) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  return {
    /** Stores the design being edited (its shape and size checked, not its content: it may be broken). */
    async saveDraft(accountId: string, userId: string, templateId: string, designInput: unknown) {
      await store.owned(accountId, templateId);
      const design = designShape(designInput);
      const savedAt = now();
      await drafts.upsertDraft(db, { templateId, userId, accountId, design, savedAt });
      return { savedAt };
    },

    /**
     * The user's draft of the template when it is worth offering: saved after the newest version
     * and different from it (an autosave that crossed a Save is not).
     */
    async newerDraft(
      accountId: string,
      userId: string,
      templateId: string,
    ): Promise<TemplateDraft | undefined> {
      const row = await store.owned(accountId, templateId);
      const draft = await drafts.findDraft(db, accountId, templateId, userId);
      if (!draft) return undefined;
      const latest = await store.storedVersion(accountId, templateId, row.latest_version);
      if (draft.saved_at <= latest.created_at || sameDesign(draft.design, latest.design)) return undefined;
      return { design: draft.design, savedAt: draft.saved_at };
    },

    /** Forgets the user's draft (Discard, Save, Publish). */
    async discardDraft(accountId: string, userId: string, templateId: string): Promise<void> {
      await drafts.deleteDraft(db, accountId, templateId, userId);
    },
  };
}
