import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { Issue } from '../errors.js';

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
  if (httpPart === 'body')
    return bodyAjv.compile(stripServiceValidatedItems(schema) as object) as ValidateFunction;
  return inputAjv.compile(schema as object) as ValidateFunction;
};

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

function describe(error: ErrorObject): { extra?: string; message: string } {
  switch (error.keyword) {
    case 'additionalProperties':
      return { extra: String(error.params.additionalProperty), message: 'is not a known field' };
    case 'required':
      return { extra: String(error.params.missingProperty), message: 'is required' };
    case 'pattern':
      return { message: 'has an invalid format' };
    default:
      return { message: error.message ?? 'is invalid' };
  }
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
    const { extra, message } = describe(error);
    const path = [...prefix, ...pointerToPath(error.instancePath), ...(extra === undefined ? [] : [extra])];
    const key = JSON.stringify(path) + message;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path, message });
  }
  return issues;
}
