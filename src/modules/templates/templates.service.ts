import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError, ValidationError, type Issue } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { paginated, toPage, type PageInput } from '../../platform/pagination.js';
import { toIssues, compileBodyValidator } from '../../platform/validation.js';
import { findAccount } from '../accounts/accounts.repository.js';
import { Design, ImageElement, QrElement, RectElement, TextElement } from '../../pdf/design.schema.js';
import { galleryDesign } from './gallery.js';
import * as versions from './template-versions.repository.js';
import * as repo from './templates.repository.js';
import type { TemplateView } from './templates.schemas.js';

// A template as the people who design it see it: its state and versions besides the resource.
export interface WorkingTemplate extends TemplateView {
  status: repo.TemplateRow['status'];
  // The version issuing renders (for a draft: the newest), and the newest saved one.
  version: number;
  latestVersion: number;
}

export function workingView(row: repo.TemplateRow): WorkingTemplate {
  return {
    ...templateView(row),
    status: row.status,
    version: row.version,
    latestVersion: row.latest_version,
  };
}

export interface TemplateVersion {
  version: number;
  name: string;
  note: string;
  elements: number;
  createdAt: string;
}

function versionView(row: versions.VersionRow): TemplateVersion {
  return {
    version: row.version,
    name: row.name,
    note: row.note,
    elements: row.elements,
    createdAt: row.created_at.toISOString(),
  };
}

const NAME_MAX = 200;

// The same design whatever the order of its keys (jsonb keeps its own order).
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function sameDesign(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

export function templateView(row: repo.TemplateRow): TemplateView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    fields: row.fields,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const validateDesign = compileBodyValidator(Design);
const validateElement = new Map<string, ReturnType<typeof compileBodyValidator>>([
  ['text', compileBodyValidator(TextElement)],
  ['image', compileBodyValidator(ImageElement)],
  ['qr', compileBodyValidator(QrElement)],
  ['rect', compileBodyValidator(RectElement)],
]);

/** Decisions section 25: a design at most 2 MiB (each distinct image or font counted once). */
export const DESIGN_MAX_BYTES = 2 * 1024 * 1024;
const DESIGN_MAX_TEXT = '2 MiB';

// An element that matches none of the element types only gets "must match a schema in anyOf" from
// the union: check it against the schema of its own `type` (an own key of the map, never one of
// Object's), which says what is actually wrong.
function schemaIssues(input: unknown): Issue[] {
  const elements =
    input && typeof input === 'object' ? (input as { elements?: unknown }).elements : undefined;
  return toIssues(validateDesign.errors ?? []).flatMap((issue): Issue[] => {
    const [first, index] = issue.path;
    if (
      issue.path.length !== 2 ||
      first !== 'elements' ||
      typeof index !== 'number' ||
      !Array.isArray(elements)
    ) {
      return [issue];
    }
    const element: unknown = elements[index];
    const type = element && typeof element === 'object' ? (element as { type?: unknown }).type : undefined;
    const validate = typeof type === 'string' ? validateElement.get(type) : undefined;
    if (!validate) {
      return [
        {
          path: [...issue.path, 'type'],
          message: `must be one of ${[...validateElement.keys()].join(', ')}`,
        },
      ];
    }
    return validate(element) ? [issue] : toIssues(validate.errors ?? [], issue.path);
  });
}

// The design's size as stored, with each distinct data URL (an image or font used by several
// elements) counted once; measured without building the repeated JSON (a design file that names
// one image in hundreds of elements would be gigabytes of it).
function designBytes(design: Design): { counted: number; stored: number } {
  const seen = new Set<string>();
  let inline = 0;
  let repeated = 0;
  const strip = <T extends { src?: string; image?: string }>(o: T, key: 'src' | 'image'): T => {
    const value = o[key];
    if (value === undefined) return o;
    if (seen.has(value)) repeated += value.length;
    else {
      seen.add(value);
      inline += Buffer.byteLength(value);
    }
    return { ...o, [key]: '' };
  };
  const skeleton = {
    ...design,
    ...(design.background ? { background: strip(design.background, 'image') } : {}),
    elements: design.elements.map((e) => (e.type === 'image' ? strip(e, 'src') : e)),
    ...(design.fonts ? { fonts: design.fonts.map((f) => strip(f, 'src')) } : {}),
  };
  const counted = Buffer.byteLength(JSON.stringify(skeleton)) + inline;
  return { counted, stored: counted + repeated };
}

/** However often a design repeats its images, what is stored (and rendered from) stays bounded. */
const DESIGN_MAX_STORED = 16 * 1024 * 1024;

function invalid(issues: Issue[]): never {
  throw new ValidationError(
    issues,
    `The design is not valid: ${issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}`,
  );
}

// Checks a design beyond its schema (placeholders, images, fonts, layout); supplied by the PDF
// renderer's file checker, which reads the design's files away from the event loop.
export type DesignChecker = (design: Design) => Promise<Issue[]>;

/** A valid design, or a ValidationError (422) whatever the input: it never throws anything else. */
export async function parseDesign(input: unknown, check?: DesignChecker): Promise<Design> {
  if (!validateDesign(input)) invalid(schemaIssues(input));
  const design = input as Design;
  const size = designBytes(design);
  if (size.counted > DESIGN_MAX_BYTES) {
    invalid([
      {
        path: [],
        message: `is ${(size.counted / 1048576).toFixed(1)} MiB: a design may be at most ${DESIGN_MAX_TEXT}, its images and fonts included`,
      },
    ]);
  }
  if (size.stored > DESIGN_MAX_STORED) {
    invalid([
      {
        path: ['elements'],
        message: `repeat their images into ${(size.stored / 1048576).toFixed(0)} MiB: a design with its repeated images may be at most 16 MiB`,
      },
    ]);
  }
  const keys = design.fields.map((f) => f.key);
  const duplicate = keys.find((k, i) => keys.indexOf(k) !== i);
  const issues: Issue[] = duplicate
    ? [{ path: ['fields'], message: `duplicate field key "${duplicate}"` }]
    : [];
  issues.push(...((await check?.(design)) ?? []));
  if (issues.length > 0) invalid(issues);
  return design;
}

export function createTemplatesService(deps: { db: Db; checkDesign?: DesignChecker }) {
  const { db } = deps;

  async function insert(accountId: string, design: Design, status: 'draft' | 'active', note: string) {
    if (!(await findAccount(db, accountId))) throw new NotFoundError('Account');
    return db.transaction(async () => {
      const row = await repo.insertTemplate(db, { id: uuidv7(), accountId, design, status });
      await versions.insertVersion(db, { templateId: row.id, accountId, version: 1, design, note });
      return row;
    });
  }

  // Saves `design` as the template's newest version. A draft's design follows its newest version;
  // an active template's issued design changes only when `publish` is set.
  async function save(accountId: string, id: string, design: Design, note: string, publish: boolean) {
    return db.transaction(async () => {
      const taken = await repo.takeVersionNumber(db, accountId, id);
      if (!taken) {
        if (await repo.findOwned(db, accountId, id))
          throw new ConflictError('An archived template cannot be changed');
        throw new NotFoundError('Template');
      }
      const version = taken.latest_version;
      await versions.insertVersion(db, { templateId: id, accountId, version, design, note });
      if (publish || taken.status === 'draft') {
        return (await repo.setDesign(db, { accountId, id, design, version, publish }))!;
      }
      return (await repo.findOwned(db, accountId, id))!;
    });
  }

  async function owned(accountId: string, id: string) {
    const row = await repo.findOwned(db, accountId, id);
    if (!row || row.status === 'archived') throw new NotFoundError('Template');
    return row;
  }

  async function storedVersion(accountId: string, id: string, version: number) {
    const found = await versions.findVersion(db, accountId, id, version);
    if (!found) throw new NotFoundError('Template version');
    return found;
  }

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
    async create(accountId: string, designInput: unknown): Promise<TemplateView> {
      const design = await parseDesign(designInput, deps.checkDesign);
      return templateView(await insert(accountId, design, 'active', 'created'));
    },

    // The dashboard's new templates: drafts, unseen by the API until published.
    async createDraft(accountId: string, designInput: unknown, note = 'created'): Promise<WorkingTemplate> {
      const design = await parseDesign(designInput, deps.checkDesign);
      return workingView(await insert(accountId, design, 'draft', note));
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
      const row = await owned(accountId, id);
      const latest =
        row.latest_version === row.version
          ? row.design
          : (await storedVersion(accountId, id, row.latest_version)).design;
      return { ...workingView(row), design: latest, issuedDesign: row.design };
    },

    // "New template" from one of the built-in starting designs: a draft.
    async createFromGallery(accountId: string, slug: string): Promise<WorkingTemplate> {
      const start = await galleryDesign(slug);
      if (!start) throw new NotFoundError('Starting design');
      return this.createDraft(
        accountId,
        start.design,
        `created from the starting design ${start.design.name}`,
      );
    },

    // A new version from the dashboard, validated like create; `publish` also makes it the one issued.
    async saveVersion(
      accountId: string,
      id: string,
      designInput: unknown,
      opts: { publish?: boolean } = {},
    ): Promise<WorkingTemplate & { saved: boolean }> {
      const design = await parseDesign(designInput, deps.checkDesign);
      const current = await this.working(accountId, id);
      // Nothing changed: no new version (Publish then publishes the newest one).
      if (sameDesign(design, current.design)) {
        const row = opts.publish ? await this.publish(accountId, id) : current;
        return { ...row, saved: false };
      }
      return {
        ...workingView(await save(accountId, id, design, 'saved', opts.publish ?? false)),
        saved: true,
      };
    },

    // Makes a saved version (the newest by default) the design issued, and a draft active.
    async publish(accountId: string, id: string, version?: number): Promise<WorkingTemplate> {
      const row = await owned(accountId, id);
      const chosen = await storedVersion(accountId, id, version ?? row.latest_version);
      const published = await repo.setDesign(db, {
        accountId,
        id,
        design: chosen.design,
        version: chosen.version,
        publish: true,
      });
      if (!published) throw new ConflictError('An archived template cannot be changed');
      return workingView(published);
    },

    async versions(accountId: string, id: string): Promise<TemplateVersion[]> {
      await owned(accountId, id);
      return (await versions.listVersions(db, accountId, id)).map(versionView);
    },

    async version(
      accountId: string,
      id: string,
      version: number,
    ): Promise<TemplateVersion & { design: Design }> {
      await owned(accountId, id);
      const found = await storedVersion(accountId, id, version);
      return { ...versionView(found), design: found.design };
    },

    // A copy of an old version becomes the newest (history only grows); publishing it is a
    // separate step for an active template, as for any save.
    async restore(accountId: string, id: string, version: number): Promise<WorkingTemplate> {
      await owned(accountId, id);
      const old = await storedVersion(accountId, id, version);
      return workingView(await save(accountId, id, old.design, `restored from version ${version}`, false));
    },

    // A new draft from a template's newest design, named "Copy of ...".
    async duplicate(accountId: string, id: string): Promise<WorkingTemplate> {
      const source = await this.working(accountId, id);
      const name = `Copy of ${source.design.name}`;
      const design = { ...source.design, name: [...name].slice(0, NAME_MAX).join('') };
      return workingView(
        await insert(
          accountId,
          design,
          'draft',
          `duplicated from ${source.name}, version ${source.latestVersion}`,
        ),
      );
    },

    async archiveOwned(accountId: string, id: string): Promise<WorkingTemplate> {
      const row = await repo.archiveOwned(db, accountId, id);
      if (!row) throw new NotFoundError('Template');
      return workingView(row);
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
    async update(id: string, designInput: unknown): Promise<TemplateView> {
      const design = await parseDesign(designInput, deps.checkDesign);
      const row = await repo.findWithDesign(db, id);
      if (!row) throw new NotFoundError('Template');
      if (row.status === 'archived') throw new ConflictError('An archived template cannot be updated');
      const note = 'updated with certsvc template update';
      return templateView(await save(row.account_id, id, design, note, row.status === 'active'));
    },

    async archive(id: string): Promise<TemplateView> {
      const row = await repo.archiveTemplate(db, id);
      if (!row) throw new NotFoundError('Template');
      return templateView(row);
    },
  };
}

export type TemplatesService = ReturnType<typeof createTemplatesService>;
