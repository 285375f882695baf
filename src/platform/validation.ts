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
  // Union branches produce one error per branch; the umbrella anyOf/oneOf error says enough, unless
  // one branch alone was the value's kind (an array of a string-or-list union): then its own errors.
  const umbrellas = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  // Each union's branch kept (its schema path), or undefined for the umbrella error alone.
  const chosen = new Map(umbrellas.map((u) => [u, branchOfItsKind(u, errors)]));
  const hidden = (e: ErrorObject): boolean =>
    umbrellas.some((u) => {
      const branch = chosen.get(u);
      if (e === u) return branch !== undefined;
      return within(e, u) && !(branch && e.schemaPath.startsWith(`${branch}/`));
    });
  const relevant = errors.filter((e) => !hidden(e));
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

// An error of one of the union's branches, for the value the union error is about (the same union
// checks every item of an array: its errors differ by instance path).
function within(e: ErrorObject, union: ErrorObject): boolean {
  const at = union.instancePath;
  return (
    e.schemaPath.startsWith(`${union.schemaPath}/`) &&
    e.instancePath.startsWith(at) &&
    (e.instancePath.length === at.length || e.instancePath[at.length] === '/')
  );
}

// Errors a value gets only when it is of the branch's type: a list too long, a string too long.
const SIZE_KEYWORDS = new Set(['maxItems', 'minItems', 'maxLength', 'maxProperties']);

// The one branch of a union that the value was of the kind of (its schema path): the only branch with
// errors inside the value (deeper than the union) or on its size. None when several branches (or
// none) come that close: the umbrella error stands.
function branchOfItsKind(union: ErrorObject, errors: ErrorObject[]): string | undefined {
  const close = errors.filter(
    (e) =>
      within(e, union) && (e.instancePath.length > union.instancePath.length || SIZE_KEYWORDS.has(e.keyword)),
  );
  const branches = new Set(close.map((e) => e.schemaPath.slice(union.schemaPath.length + 1).split('/')[0]));
  return branches.size === 1 ? `${union.schemaPath}/${[...branches][0]!}` : undefined;
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
