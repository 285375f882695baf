import { type Issue, ValidationError } from '../../platform/errors.js';
import { compileBodyValidator, toIssues } from '../../platform/validation.js';
import {
  Design,
  ImageElement,
  LineElement,
  QrElement,
  RectElement,
  SignatoryElement,
  TableElement,
  TextElement,
} from '../../pdf/design.schema.js';
import { issueLine } from '../../pdf/element-labels.js';
import { DESIGN_MAX_BYTES, DESIGN_MAX_TEXT, MIB } from '../../platform/limits.js';

// A design as a template keeps it: checked against its schema and its limits (parseDesign), and
// compared with another whatever the order of its keys (sameDesign).

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

const validateDesign = compileBodyValidator(Design);
const validateElement = new Map<string, ReturnType<typeof compileBodyValidator>>([
  ['text', compileBodyValidator(TextElement)],
  ['image', compileBodyValidator(ImageElement)],
  ['qr', compileBodyValidator(QrElement)],
  ['rect', compileBodyValidator(RectElement)],
  ['line', compileBodyValidator(LineElement)],
  ['signatory', compileBodyValidator(SignatoryElement)],
  ['table', compileBodyValidator(TableElement)],
]);

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
  throw new ValidationError(issues, `The design is not valid: ${issues.map(issueLine).join('; ')}`);
}

// Checks a design beyond its schema (placeholders, images, fonts, layout); supplied by the PDF
// renderer's file checker, which reads the design's files away from the event loop.
export type DesignChecker = (design: Design) => Promise<Issue[]>;

/**
 * A design of the right shape and within the size limits, not checked further (an unsaved draft may
 * still be broken); a ValidationError (422) otherwise.
 */
export function designShape(input: unknown): Design {
  if (!validateDesign(input)) invalid(schemaIssues(input));
  const design = input as Design;
  const size = designBytes(design);
  if (size.counted > DESIGN_MAX_BYTES) {
    invalid([
      {
        path: [],
        message: `is ${(size.counted / MIB).toFixed(1)} MiB: a design may be at most ${DESIGN_MAX_TEXT}, its images and fonts included`,
      },
    ]);
  }
  if (size.stored > DESIGN_MAX_STORED) {
    invalid([
      {
        path: ['elements'],
        message: `repeat their images into ${(size.stored / MIB).toFixed(0)} MiB: a design with its repeated images may be at most 16 MiB`,
      },
    ]);
  }
  return design;
}

/** A valid design, or a ValidationError (422) whatever the input: it never throws anything else. */
export async function parseDesign(input: unknown, check?: DesignChecker): Promise<Design> {
  const design = designShape(input);
  const keys = design.fields.map((f) => f.key);
  const duplicate = keys.find((k, i) => keys.indexOf(k) !== i);
  const issues: Issue[] = duplicate
    ? [{ path: ['fields'], message: `duplicate field key "${duplicate}"` }]
    : [];
  issues.push(...((await check?.(design)) ?? []));
  if (issues.length > 0) invalid(issues);
  return design;
}
