import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { Design } from '../../pdf/design.schema.js';
import { galleryDesign } from './gallery.js';
import { parseDesign, sameDesign, type DesignChecker } from './template-design.js';
import { archivedEvent, type TemplateStore } from './template-store.js';
import * as versions from './template-versions.repository.js';
import * as repo from './templates.repository.js';
import { versionView, workingView, type TemplateVersion, type WorkingTemplate } from './templates.views.js';
import { NAME_MAX_LENGTH } from '../../platform/limits.js';
import type { Doer } from '../../platform/principal.js';
import { recordAudit } from '../audit/audit-log.js';

// The dashboard's side of templates: drafts (unseen by the API until published), every saved
// version, publishing one, restoring and duplicating. Part of the templates service.

export function workingTemplates(deps: { db: Db; checkDesign?: DesignChecker }, store: TemplateStore) {
  const { db } = deps;
  return {
    // The dashboard's new templates: drafts, unseen by the API until published.
    async createDraft(
      doer: Doer,
      accountId: string,
      designInput: unknown,
      note = 'created',
    ): Promise<WorkingTemplate> {
      const design = await parseDesign(designInput, deps.checkDesign);
      return workingView(await store.insert(doer, accountId, design, 'draft', note));
    },

    // The account's drafts and active templates, newest first (the dashboard's list).
    async listWorking(accountId: string, limit: number): Promise<WorkingTemplate[]> {
      return (await repo.listWorking(db, accountId, limit)).map(workingView);
    },

    // A draft or active template of the account with its newest saved design (what the studio edits).
    // (and issuedDesign, the one issued; for a draft the same).
    async working(
      accountId: string,
      id: string,
    ): Promise<WorkingTemplate & { design: Design; issuedDesign: Design }> {
      const row = await store.owned(accountId, id);
      const latest =
        row.latest_version === row.version
          ? row.design
          : (await store.storedVersion(accountId, id, row.latest_version)).design;
      return { ...workingView(row), design: latest, issuedDesign: row.design };
    },

    // "New template" from one of the built-in starting designs: a draft.
    async createFromGallery(doer: Doer, accountId: string, slug: string): Promise<WorkingTemplate> {
      const start = await galleryDesign(slug);
      if (!start) throw new NotFoundError('Starting design');
      return this.createDraft(
        doer,
        accountId,
        start.design,
        `created from the starting design ${start.design.name}`,
      );
    },

    // A new version from the dashboard, validated like create; `publish` also makes it the one issued.
    async saveVersion(
      doer: Doer,
      accountId: string,
      id: string,
      designInput: unknown,
      opts: { publish?: boolean } = {},
    ): Promise<WorkingTemplate & { saved: boolean }> {
      const design = await parseDesign(designInput, deps.checkDesign);
      const current = await this.working(accountId, id);
      // Nothing changed: no new version (Publish then publishes the newest one).
      if (sameDesign(design, current.design)) {
        const row = opts.publish ? await this.publish(doer, accountId, id) : current;
        return { ...row, saved: false };
      }
      return {
        ...workingView(await store.save(doer, accountId, id, design, 'saved', opts.publish ?? false)),
        saved: true,
      };
    },

    // Makes a saved version (the newest by default) the design issued, and a draft active.
    async publish(doer: Doer, accountId: string, id: string, version?: number): Promise<WorkingTemplate> {
      const row = await store.owned(accountId, id);
      const chosen = await store.storedVersion(accountId, id, version ?? row.latest_version);
      return db.transaction(async (tx) => {
        const published = await repo.setDesign(tx, {
          accountId,
          id,
          design: chosen.design,
          version: chosen.version,
          publish: true,
        });
        if (!published) throw new ConflictError('An archived template cannot be changed');
        const changes = {
          version: { old: row.version, new: chosen.version },
          status: { old: row.status, new: 'active' },
        };
        const target = { type: 'template', id };
        await recordAudit(
          tx,
          accountId,
          doer,
          [{ action: 'template.published', target, changes }],
          new Date(),
        );
        return workingView(published);
      });
    },

    async versions(accountId: string, id: string): Promise<TemplateVersion[]> {
      await store.owned(accountId, id);
      return (await versions.listVersions(db, accountId, id)).map(versionView);
    },

    async version(
      accountId: string,
      id: string,
      version: number,
    ): Promise<TemplateVersion & { design: Design }> {
      await store.owned(accountId, id);
      const found = await store.storedVersion(accountId, id, version);
      return { ...versionView(found), design: found.design };
    },

    // A copy of an old version becomes the newest (history only grows); publishing it is a
    // separate step for an active template, as for any save.
    async restore(doer: Doer, accountId: string, id: string, version: number): Promise<WorkingTemplate> {
      await store.owned(accountId, id);
      const old = await store.storedVersion(accountId, id, version);
      return workingView(
        await store.save(doer, accountId, id, old.design, `restored from version ${version}`, false),
      );
    },

    // A new draft from a template's newest design, named "Copy of ...".
    async duplicate(doer: Doer, accountId: string, id: string): Promise<WorkingTemplate> {
      const source = await this.working(accountId, id);
      const name = `Copy of ${source.design.name}`;
      const design = { ...source.design, name: [...name].slice(0, NAME_MAX_LENGTH).join('') };
      return workingView(
        await store.insert(
          doer,
          accountId,
          design,
          'draft',
          `duplicated from ${source.name}, version ${source.latestVersion}`,
        ),
      );
    },

    async archiveOwned(doer: Doer, accountId: string, id: string): Promise<WorkingTemplate> {
      return db.transaction(async (tx) => {
        const row = await repo.archiveOwned(tx, accountId, id);
        if (!row) throw new NotFoundError('Template');
        await archivedEvent(tx, doer, accountId, id);
        return workingView(row);
      });
    },
  };
}
