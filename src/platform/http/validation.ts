import type { ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { bodyAjv, inputAjv, SERVICE_VALIDATED_ITEMS } from '../ajv.js';
import { ValidationError, type Issue } from '../errors.js';
import { PLAIN_TEXT_CHARACTERS, hasForbiddenCharacter } from '../text.js';
import { unstorableValueIssues } from '../validation.js';

// Fastify's schema compiler: the route's schemas validate its body, query and path parameters.

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
  if (httpPart === 'body') {
    const validate = bodyAjv.compile(stripServiceValidatedItems(schema) as object);
    const properties = (schema as { properties?: Record<string, Record<string, unknown>> }).properties ?? {};
    const serviceItems = Object.keys(properties).filter((k) => properties[k]?.[SERVICE_VALIDATED_ITEMS]);
    return checkedFirst(validate, (data) => unstorableValueIssues(data, [], serviceItems));
  }
  const validate = inputAjv.compile(schema as object);
  if (httpPart === 'headers') return validate;
  const integers = integerProperties(schema);
  return checkedFirst(validate, (data) => {
    const raw = (data ?? {}) as Record<string, unknown>;
    return [
      // Query and path text is typed text: it refuses what typed text in a body refuses, NUL first
      // (PostgreSQL can neither store nor compare it: a 500 otherwise), whatever the parameter.
      ...Object.keys(raw)
        .filter((k) => [raw[k]].flat().some((v) => typeof v === 'string' && hasForbiddenCharacter(v)))
        .map((k) => ({ path: [k], message: PLAIN_TEXT_CHARACTERS })),
      // Query and path integers are plain decimal digits: Number() would also read "0x10", "1e1",
      // " 1" and "Infinity", which the coercion would then accept.
      ...integers
        .filter((k) => raw[k] !== undefined && !(typeof raw[k] === 'string' && /^[0-9]{1,20}$/.test(raw[k])))
        .map((k) => ({ path: [k], message: 'must be a whole number written in decimal digits' })),
    ];
  });
};

// An Ajv validator behind checks of its own: what `precheck` finds is the answer (a 422 with those
// issues), else Ajv's verdict.
function checkedFirst(validate: ValidateFunction, precheck: (data: unknown) => Issue[]) {
  const check = (data: unknown) => {
    const issues = precheck(data);
    if (issues.length > 0) return { error: new ValidationError(issues) };
    const ok = validate(data);
    check.errors = validate.errors;
    return ok;
  };
  check.errors = null as ValidateFunction['errors'];
  return check;
}

function integerProperties(schema: unknown): string[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.keys(properties).filter((k) => properties[k]?.type === 'integer');
}
