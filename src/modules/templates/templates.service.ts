import type { Db } from '../../platform/db/db.js';
import { ConflictError, NotFoundError, ValidationError, type Issue } from '../../platform/errors.js';
import { uuidv7 } from '../../platform/ids.js';
import { paginated, toPage, type PageInput } from '../../platform/pagination.js';
import { toIssues, compileBodyValidator } from '../../platform/validation.js';
import { findAccount } from '../accounts/accounts.repository.js';
import { Design, ImageElement, QrElement, RectElement, TextElement } from '../../pdf/design.schema.js';
import * as repo from './templates.repository.js';
import type { TemplateView } from './templates.schemas.js';

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
const validateElement: Record<string, ReturnType<typeof compileBodyValidator>> = {
  text: compileBodyValidator(TextElement),
  image: compileBodyValidator(ImageElement),
  qr: compileBodyValidator(QrElement),
  rect: compileBodyValidator(RectElement),
};

// An element that matches none of the element types only gets "must match a schema in anyOf" from
// the union: check it against the schema of its own `type`, which says what is actually wrong.
function schemaIssues(input: unknown): Issue[] {
  const elements = (input as { elements?: unknown }).elements;
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
    const element = elements[index] as { type?: unknown } | null;
    const type = element && typeof element === 'object' ? element.type : undefined;
    const validate = typeof type === 'string' ? validateElement[type] : undefined;
    if (!validate) {
      return [
        {
          path: [...issue.path, 'type'],
          message: `must be one of ${Object.keys(validateElement).join(', ')}`,
        },
      ];
    }
    return validate(element) ? [issue] : toIssues(validate.errors ?? [], issue.path);
  });
}

// Checks a design beyond its schema (placeholders, images, layout); supplied by the PDF renderer.
export type DesignChecker = (design: Design) => Issue[];

export function parseDesign(input: unknown, check?: DesignChecker): Design {
  if (!validateDesign(input)) {
    const issues = schemaIssues(input);
    throw new ValidationError(
      issues,
      `The design is not valid: ${issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}`,
    );
  }
  const design = input as Design;
  const keys = design.fields.map((f) => f.key);
  const duplicate = keys.find((k, i) => keys.indexOf(k) !== i);
  const issues: Issue[] = duplicate
    ? [{ path: ['fields'], message: `duplicate field key "${duplicate}"` }]
    : [];
  issues.push(...(check?.(design) ?? []));
  if (issues.length > 0) {
    throw new ValidationError(
      issues,
      `The design is not valid: ${issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}`,
    );
  }
  return design;
}

export function createTemplatesService(deps: { db: Db; checkDesign?: DesignChecker }) {
  const { db } = deps;
  return {
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

    async create(accountId: string, designInput: unknown): Promise<TemplateView> {
      const design = parseDesign(designInput, deps.checkDesign);
      if (!(await findAccount(db, accountId))) throw new NotFoundError('Account');
      return templateView(await repo.insertTemplate(db, { id: uuidv7(), accountId, design }));
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

    // Validated exactly like create; the id stays, so integrations keep working.
    async update(id: string, designInput: unknown): Promise<TemplateView> {
      const design = parseDesign(designInput, deps.checkDesign);
      const row = await repo.updateDesign(db, { id, design });
      if (row) return templateView(row);
      if (await repo.findWithDesign(db, id))
        throw new ConflictError('An archived template cannot be updated');
      throw new NotFoundError('Template');
    },

    async archive(id: string): Promise<TemplateView> {
      const row = await repo.archiveTemplate(db, id);
      if (!row) throw new NotFoundError('Template');
      return templateView(row);
    },
  };
}

export type TemplatesService = ReturnType<typeof createTemplatesService>;
