import type { ErrorObject, ValidateFunction } from 'ajv';
import { ValidationError, type Issue } from './errors.js';
import { bodyAjv } from './ajv.js';
import { describeError } from './issue-messages.js';

// Validation that is not tied to HTTP: JSON Schema checks to contract issues (used by the routes,
// by the per-recipient checks of a batch and by the CLI), and the values PostgreSQL cannot store.

export function compileBodyValidator(schema: object): ValidateFunction {
  return bodyAjv.compile(schema);
}

function pointerToPath(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
}

// Ajv errors to contract issues, with paths as the client sent them: ["recipients", 3, "email"].
export function toIssues(errors: ErrorObject[], prefix: (string | number)[] = []): Issue[] {
  const seen = new Set<string>();
  const issues: Issue[] = [];
  // Union branches produce one error per branch; the umbrella anyOf/oneOf error says enough.
  const unions = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .map((e) => e.schemaPath);
  const relevant = errors.filter((e) => !unions.some((u) => e.schemaPath.startsWith(`${u}/`)));
  for (const error of relevant) {
    const { extra, message } = describeError(error);
    const path = [...prefix, ...pointerToPath(error.instancePath), ...(extra === undefined ? [] : [extra])];
    const key = JSON.stringify(path) + message;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path, message });
  }
  return issues;
}

// PostgreSQL text cannot hold U+0000, lone surrogates cannot be encoded as UTF-8 (nor stored in
// jsonb), and a number beyond a double (1e400) parses as Infinity, which JSON cannot carry back:
// such a value anywhere in a JSON body, keys included, is refused with its path. `skip` names
// top-level array properties whose items the service validates (and checks) itself. The body parser
// bounds the nesting depth, so the recursion here is bounded too.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function unstorableValueIssues(
  value: unknown,
  path: (string | number)[] = [],
  skip: string[] = [],
): Issue[] {
  if (typeof value === 'string') {
    return value.includes('\u0000') || LONE_SURROGATE.test(value)
      ? [{ path, message: 'contains a NUL character or an unpaired surrogate' }]
      : [];
  }
  if (typeof value === 'number') {
    return Number.isFinite(value) ? [] : [{ path, message: 'must be a finite number' }];
  }
  if (Array.isArray(value)) return value.flatMap((v, i) => unstorableValueIssues(v, [...path, i]));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => [
      ...unstorableValueIssues(k, [...path, k]),
      ...(path.length === 0 && skip.includes(k) && Array.isArray(v)
        ? []
        : unstorableValueIssues(v, [...path, k])),
    ]);
  }
  return [];
}

// Text that reaches SQL as a parameter (a search, an email to look up) must be storable text: a NUL
// would make PostgreSQL refuse the statement (22021). Refused with the parameter's name as the path.
export function assertStorable(params: Record<string, unknown>): void {
  const issues = unstorableValueIssues(params);
  if (issues.length > 0) {
    throw new ValidationError(issues, `The ${String(issues[0]!.path[0])} ${issues[0]!.message}`);
  }
}
