import type { Issue } from '../../platform/errors.js';
import { plainTextProblem } from '../../platform/text.js';
import { compileBodyValidator, toIssues, unstorableValueIssues } from '../../platform/validation.js';
import type { TemplateField } from '../../pdf/design.schema.js';
import type { DataValue } from '../../pdf/pdf-renderer.js';
import { Recipient } from './certificates.schemas.js';
import { NAME_MAX_LENGTH } from '../../platform/limits.js';

export interface ValidRecipient {
  name: string;
  email: string;
  data: Record<string, DataValue>;
  /** The recipient's own expiry, overriding the template's validity. */
  expiresAt?: Date;
  /** The calendar day of expiresAt as written (its date part, whatever its offset): YYYY-MM-DD. */
  expiresOn?: string;
}

// An ISO 8601 date-time with a time zone, as the schema's date-time format accepts it.
const ISO_DATE_PART = /^(\d{4}-\d{2}-\d{2})[Tt ]/;

const validateShape = compileBodyValidator(Recipient);

/** The start of the message of an expiresAt that is not after the issue time. */
export const EXPIRES_AFTER_ISSUE = 'must be after the issue time';

/**
 * A calendar day (YYYY-MM-DD) as an expiry: the end of that day in UTC, as an ISO 8601 date-time
 * (decisions 24: the template's time zone, UTC while templates have none). The dashboard's issue form
 * and the CSV's `expiresAt` dates use it; the date part stays the day, so the day is what is shown.
 * Undefined unless `day` is a real date.
 */
export function dayExpiry(day: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const at = new Date(`${day}T23:59:59.999Z`);
  return Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== day ? undefined : at.toISOString();
}

// Validates one recipient against the schema and the template's declared fields. Issue paths
// start with `prefix` (["recipient"] or ["recipients", index]), as the client sent them. An
// expiresAt must be after `issuedAt`.
export function checkRecipient(
  input: unknown,
  fields: TemplateField[],
  prefix: (string | number)[],
  issuedAt: Date,
): { ok: true; recipient: ValidRecipient } | { ok: false; issues: Issue[] } {
  const unstorable = unstorableValueIssues(input, prefix);
  if (unstorable.length > 0) return { ok: false, issues: unstorable };
  if (!validateShape(input)) return { ok: false, issues: toIssues(validateShape.errors ?? [], prefix) };
  const raw = input as {
    name: string;
    email: string;
    data?: Record<string, DataValue>;
    expiresAt?: string;
  };
  const issues: Issue[] = [];
  const name = raw.name.trim();
  const nameProblem = plainTextProblem(name, NAME_MAX_LENGTH);
  if (nameProblem) issues.push({ path: [...prefix, 'name'], message: nameProblem });
  const data = raw.data ?? {};
  for (const field of fields)
    issues.push(...fieldIssues(field, data[field.key], [...prefix, 'data', field.key]));
  let expiresAt: Date | undefined;
  // The issuer's calendar day is the date part as written: 2028-11-26T00:00:00+01:00 is shown as
  // 26 November 2028 although its instant is 2028-11-25T23:00:00Z (docs/api.md, "Expiry").
  const expiresOn = raw.expiresAt === undefined ? undefined : ISO_DATE_PART.exec(raw.expiresAt)?.[1];
  if (raw.expiresAt !== undefined) {
    expiresAt = new Date(raw.expiresAt);
    if (Number.isNaN(expiresAt.getTime()) || expiresOn === undefined) {
      issues.push({
        path: [...prefix, 'expiresAt'],
        message: 'must be an ISO 8601 date-time with Z or an offset, such as 2028-11-26T00:00:00+01:00',
      });
    } else if (expiresAt.getTime() <= issuedAt.getTime()) {
      issues.push({
        path: [...prefix, 'expiresAt'],
        message: `${EXPIRES_AFTER_ISSUE} (${issuedAt.toISOString()})`,
      });
    }
  }
  if (issues.length > 0) return { ok: false, issues };
  return {
    ok: true,
    recipient: { name, email: raw.email, data, ...(expiresAt ? { expiresAt, expiresOn } : {}) },
  };
}

// A value against its field: a list for a list field, one value for a text field (decisions 24); a
// required field has a value that is not blank, a required list at least one item.
function fieldIssues(field: TemplateField, value: DataValue | undefined, path: (string | number)[]): Issue[] {
  const list = field.type === 'list';
  if (value !== undefined && Array.isArray(value) !== list) {
    return [
      {
        path,
        message: list
          ? `is a list field (${field.label}): give an array of objects, e.g. [{"name": "...", "hours": 6}]`
          : `is a text field (${field.label}): give a string, a number or a boolean, not a list`,
      },
    ];
  }
  const blank =
    value === undefined ||
    (typeof value === 'string' && value.trim() === '') ||
    (Array.isArray(value) && value.length === 0);
  if (field.required && blank) {
    return [
      {
        path,
        message: list
          ? `is required by the template (${field.label}): at least one item`
          : `is required by the template (${field.label})`,
      },
    ];
  }
  return [];
}
