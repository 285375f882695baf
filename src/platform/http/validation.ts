import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ValidationError, type Issue } from '../errors.js';
import { describeError } from '../issue-messages.js';

// Bodies are validated strictly (no coercion, unknown fields refused by the schemas); query strings
// and path parameters are strings on the wire, so they are coerced to the declared types.

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

// A schema marked with this keyword keeps `items` for documentation only: the service validates
// each item itself (a batch must report per-recipient failures instead of failing the request).
export const SERVICE_VALIDATED_ITEMS = 'x-items-validated-by-service';

// A body schema marked with this keyword is documented by the route but validated by the service,
// when the contract orders other checks (404, 403) before the body's 422.
export const SERVICE_VALIDATED_BODY = 'x-body-validated-by-service';

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    // Errors carry their schema, so that messages can say what is allowed (issue-messages.ts).
    verbose: true,
  });
  addFormats(ajv);
  ajv.addKeyword({ keyword: SERVICE_VALIDATED_ITEMS });
  ajv.addKeyword({ keyword: SERVICE_VALIDATED_BODY });
  return ajv;
}

const bodyAjv = makeAjv(false);
const inputAjv = makeAjv(true);

function stripServiceValidatedItems(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(stripServiceValidatedItems);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  const source = schema as Record<string, unknown>;
  for (const [key, value] of Object.entries(source)) {
    if (key === 'items' && source[SERVICE_VALIDATED_ITEMS]) continue;
    out[key] = stripServiceValidatedItems(value);
  }
  return out;
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  if (httpPart === 'body' && (schema as Record<string, unknown>)[SERVICE_VALIDATED_BODY]) return () => true;
  if (httpPart === 'body') {
    const validate = bodyAjv.compile(stripServiceValidatedItems(schema) as object);
    const properties = (schema as { properties?: Record<string, Record<string, unknown>> }).properties ?? {};
    const serviceItems = Object.keys(properties).filter((k) => properties[k]?.[SERVICE_VALIDATED_ITEMS]);
    const check = (data: unknown) => {
      const issues = unstorableValueIssues(data, [], serviceItems);
      if (issues.length > 0) return { error: new ValidationError(issues) };
      const ok = validate(data);
      check.errors = validate.errors;
      return ok;
    };
    check.errors = null as ValidateFunction['errors'];
    return check;
  }
  const validate = inputAjv.compile(schema as object);
  const integers = integerProperties(schema);
  if (integers.length === 0) return validate as ValidateFunction;
  // Query and path integers are plain decimal digits: Number() would also read "0x10", "1e1",
  // " 1" and "Infinity", which the coercion would then accept.
  const check = (data: unknown) => {
    const raw = (data ?? {}) as Record<string, unknown>;
    const issues = integers
      .filter((k) => raw[k] !== undefined && !(typeof raw[k] === 'string' && /^[0-9]{1,20}$/.test(raw[k])))
      .map((k) => ({ path: [k], message: 'must be a whole number written in decimal digits' }));
    if (issues.length > 0) return { error: new ValidationError(issues) };
    const ok = validate(data);
    check.errors = validate.errors;
    return ok;
  };
  check.errors = null as ValidateFunction['errors'];
  return check;
};

function integerProperties(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.keys(properties).filter((k) => properties[k]?.type === 'integer');
}

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
