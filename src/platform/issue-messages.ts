import type { ErrorObject } from 'ajv';
import { DATA_KEY_PATTERN, UUID_PATTERN } from './ids.js';

// Validator errors in plain words a developer can act on: each says what is allowed (the values of
// an enum, the types of a union, the shape of a key), never the validator's own vocabulary.
// Needs Ajv's `verbose` option, which gives each error its schema and parent schema.

const PATTERNS: Record<string, string> = {
  [UUID_PATTERN]: 'must be a UUID such as 0192f1c4-5b6e-7a8b-9c0d-1e2f3a4b5c6d',
  [DATA_KEY_PATTERN]: 'must start with a letter and hold only letters, digits and _ (at most 64 characters)',
  '^#[0-9A-Fa-f]{6}$': 'must be a hex colour such as #1F2937',
};

const FORMATS: Record<string, string> = {
  email: 'must be an email address',
  // Any offset is accepted (Z, +01:00, -05:00), not only UTC; seconds are required.
  'date-time':
    'must be an ISO 8601 date-time with seconds and a time zone (Z or an offset), such as 2026-11-21T09:30:00Z or 2026-11-21T10:30:00+01:00',
  uri: 'must be an absolute URL',
  uuid: 'must be a UUID',
};

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function list(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

const quoted = (values: unknown[]) => values.map((v) => JSON.stringify(v)).join(', ');

function typeWords(type: unknown): string[] {
  return (Array.isArray(type) ? type : [type]).map((t) => TYPE_NAMES[String(t)] ?? String(t));
}

// What a union allows: its literal values, or the types of its branches.
function unionMessage(branches: unknown): string {
  const schemas = (Array.isArray(branches) ? branches : []) as Record<string, unknown>[];
  if (schemas.length > 0 && schemas.every((s) => 'const' in s)) {
    return `must be one of ${quoted(schemas.map((s) => s.const))}`;
  }
  const kinds = schemas.flatMap((s) => {
    if ('const' in s) return [JSON.stringify(s.const)];
    if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v));
    if (s.type === 'object' && s.properties && typeof s.properties === 'object') {
      const type = (s.properties as Record<string, { const?: unknown }>).type;
      if (type && 'const' in type) return [`an object of type ${JSON.stringify(type.const)}`];
    }
    return s.type === undefined ? [] : typeWords(s.type);
  });
  return kinds.length > 0 ? `must be ${list([...new Set(kinds)])}` : 'is not one of the allowed forms';
}

export function describeError(error: ErrorObject): { extra?: string; message: string } {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(p.additionalProperty);
      const allowed = (error.parentSchema as { patternProperties?: Record<string, unknown> } | undefined)
        ?.patternProperties;
      const pattern = allowed ? Object.keys(allowed)[0] : undefined;
      if (pattern) {
        return {
          extra: key,
          message: `is not an allowed key: keys ${PATTERNS[pattern] ?? `look like ${pattern}`}`,
        };
      }
      const known = Object.keys(
        (error.parentSchema as { properties?: object } | undefined)?.properties ?? {},
      );
      return {
        extra: key,
        message:
          known.length > 0 ? `is not a known field (known: ${known.join(', ')})` : 'is not a known field',
      };
    }
    case 'required':
      return { extra: String(p.missingProperty), message: 'is required' };
    case 'pattern':
      return {
        message: PATTERNS[String(p.pattern)] ?? `has an invalid format (expected ${String(p.pattern)})`,
      };
    case 'format':
      return { message: FORMATS[String(p.format)] ?? `must be in the ${String(p.format)} format` };
    case 'type':
      return { message: `must be ${list(typeWords(p.type))}` };
    case 'enum':
      return { message: `must be one of ${quoted(p.allowedValues as unknown[])}` };
    case 'const':
      return { message: `must be ${JSON.stringify(p.allowedValue)}` };
    case 'anyOf':
    case 'oneOf':
      return { message: unionMessage(error.schema) };
    case 'minLength':
      return {
        message: p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters`,
      };
    case 'maxLength':
      return { message: `must be at most ${String(p.limit)} characters` };
    case 'minimum':
      return { message: `must be at least ${String(p.limit)}` };
    case 'maximum':
      return { message: `must be at most ${String(p.limit)}` };
    case 'exclusiveMinimum':
      return { message: `must be greater than ${String(p.limit)}` };
    case 'exclusiveMaximum':
      return { message: `must be less than ${String(p.limit)}` };
    case 'minItems':
      return { message: `must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}` };
    case 'maxItems':
      return { message: `must have at most ${String(p.limit)} items` };
    case 'minProperties':
      return { message: `must have at least ${String(p.limit)} keys` };
    case 'maxProperties':
      return { message: `must have at most ${String(p.limit)} keys` };
    default:
      return { message: 'is not valid' };
  }
}
