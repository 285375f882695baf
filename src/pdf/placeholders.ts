import { DATA_KEY_PATTERN } from '../platform/ids.js';
import type { Signatory } from './design.schema.js';
import type { RenderValues } from './render-types.js';

// Placeholders in design texts: {{recipient.name}}, {{data.KEY}}, {{certificate.issuedAt}},
// {{certificate.expiresAt}}, {{certificate.uniqueCode}}, {{certificate.verificationUrl}}; whitespace inside the braces is allowed.
// {{signatory.N.name}}, {{signatory.N.title}}, {{signatory.N.organisation}} are the template's own
// (static) values: resolved when the template is compiled (resolveSignatories), never per recipient.

export type ValueRef =
  | { source: 'name' }
  | { source: 'data'; key: string }
  | { source: 'issuedAt' }
  | { source: 'expiresAt' }
  | { source: 'uniqueCode' }
  | { source: 'verificationUrl' }
  | { source: 'signatory'; index: number; part: SignatoryPart };

export type SignatoryPart = 'name' | 'title' | 'organisation';

export type Segment = { literal: string } | { ref: ValueRef };

export interface ParsedText {
  segments: Segment[];
  unknown: string[]; // placeholder bodies that are not recognised
}

const placeholderPattern = /\{\{\s*([^{}]*?)\s*\}\}/g;
const dataKeyPattern = new RegExp(`^data\\.(${DATA_KEY_PATTERN.slice(1, -1)})$`);

export function parseText(text: string): ParsedText {
  const segments: Segment[] = [];
  const unknown: string[] = [];
  let last = 0;
  for (const match of text.matchAll(placeholderPattern)) {
    const at = match.index ?? 0;
    if (at > last) segments.push({ literal: text.slice(last, at) });
    last = at + match[0].length;
    const ref = refFor(match[1] ?? '');
    if (ref) segments.push({ ref });
    else unknown.push(match[0]);
  }
  if (last < text.length) segments.push({ literal: text.slice(last) });
  return { segments, unknown };
}

function refFor(body: string): ValueRef | undefined {
  switch (body) {
    case 'recipient.name':
      return { source: 'name' };
    case 'certificate.issuedAt':
      return { source: 'issuedAt' };
    case 'certificate.expiresAt':
      return { source: 'expiresAt' };
    case 'certificate.uniqueCode':
      return { source: 'uniqueCode' };
    case 'certificate.verificationUrl':
      return { source: 'verificationUrl' };
  }
  const signatory = signatoryPattern.exec(body);
  if (signatory)
    return { source: 'signatory', index: Number(signatory[1]), part: signatory[2] as SignatoryPart };
  const data = dataKeyPattern.exec(body);
  return data?.[1] ? { source: 'data', key: data[1] } : undefined;
}

const signatoryPattern = /^signatory\.([1-5])\.(name|title|organisation)$/;

/** A signatory's value as a placeholder prints it; undefined when the design has no such signatory. */
export function signatoryValue(
  ref: { index: number; part: SignatoryPart },
  signatories: readonly Signatory[] | undefined,
): string | undefined {
  const signatory = signatories?.[ref.index - 1];
  return signatory === undefined ? undefined : (signatory[ref.part] ?? '').normalize('NFC');
}

export interface StaticText {
  segments: Segment[];
  /** Whether the text had placeholders, and whether every one it had is empty (a text not drawn). */
  placeholders: boolean;
  staticShown: boolean;
}

/**
 * The template's own values (signatories) put in as literal text, when the template is compiled: what
 * is left are the recipient's values. `staticShown` says whether any signatory value printed
 * something, for the rule that a text whose placeholders are all empty is not drawn.
 */
export function resolveSignatories(
  segments: Segment[],
  signatories: readonly Signatory[] | undefined,
): StaticText {
  let placeholders = false;
  let staticShown = false;
  const out: Segment[] = [];
  for (const segment of segments) {
    if ('ref' in segment) placeholders = true;
    if (!('ref' in segment) || segment.ref.source !== 'signatory') {
      out.push(segment);
      continue;
    }
    const value = signatoryValue(segment.ref, signatories) ?? '';
    if (value !== '') staticShown = true;
    out.push({ literal: value });
  }
  return { segments: out, placeholders, staticShown };
}

/** Where a value comes from, relative to the recipient (issue paths). */
export function refPath(ref: ValueRef): (string | number)[] {
  if (ref.source === 'signatory') return ['signatories', ref.index - 1, ref.part];
  return ref.source === 'data' ? ['data', ref.key] : [ref.source];
}

export function refKey(ref: ValueRef): string {
  if (ref.source === 'signatory') return `signatory.${ref.index}.${ref.part}`;
  return ref.source === 'data' ? `data.${ref.key}` : ref.source;
}

const months = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const dateFormats = new Map<string, Intl.DateTimeFormat>();
const numberFormats = new Map<string, Intl.NumberFormat>();

// Intl formats, made once per locale (making one costs far more than using it).
function dateFormat(locale: string): Intl.DateTimeFormat {
  let f = dateFormats.get(locale);
  if (!f) {
    f = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
    dateFormats.set(locale, f);
  }
  return f;
}

/**
 * `2026-11-21T09:30:00.000Z` -> `21 November 2026` (UTC). With a locale other than `en` (a
 * design's `locale`), the date as that language writes it, with its digits where Intl gives them:
 * fr `21 novembre 2026`, de `21. November 2026`, ar-EG `٢١ نوفمبر ٢٠٢٦`, ja `2026年11月21日`.
 */
export function formatIssuedAt(iso: string, locale = 'en'): string | undefined {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return undefined;
  if (locale === 'en') return `${date.getUTCDate()} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
  // Intl's format costs microseconds; a batch (or the verification page) writes the same few days.
  const key = `${locale} ${Math.floor(date.getTime() / 86_400_000)}`;
  let text = formattedDays.get(key);
  if (text === undefined) {
    if (formattedDays.size >= 10_000) formattedDays.clear();
    text = dateFormat(locale).format(date);
    formattedDays.set(key, text);
  }
  return text;
}

const formattedDays = new Map<string, string>();

/**
 * A number as the locale writes it: its decimal sign and digits, without grouping (a year or an
 * id must not become 2,026). `en` keeps JavaScript's own form.
 */
export function formatNumber(value: number, locale = 'en'): string {
  if (locale === 'en' || !Number.isFinite(value)) return String(value);
  let f = numberFormats.get(locale);
  if (!f) {
    f = new Intl.NumberFormat(locale, { useGrouping: false, maximumFractionDigits: 20 });
    numberFormats.set(locale, f);
  }
  return f.format(value);
}

/** Whether Intl can write dates in this language tag; the canonical tag, or undefined. */
export function supportedLocale(tag: string): string | undefined {
  try {
    const [canonical] = Intl.getCanonicalLocales(tag);
    if (!canonical) return undefined;
    return Intl.DateTimeFormat.supportedLocalesOf([canonical]).length > 0 ? canonical : undefined;
  } catch {
    return undefined;
  }
}

/** The text a placeholder stands for; undefined when the value is missing or of the wrong type. */
export function valueOf(ref: ValueRef, values: RenderValues, locale = 'en'): string | undefined {
  switch (ref.source) {
    case 'name':
      return typeof values.recipientName === 'string' ? values.recipientName.normalize('NFC') : undefined;
    case 'data': {
      const value = values.data?.[ref.key];
      if (value === undefined || value === null) return '';
      if (Array.isArray(value)) return undefined; // a list is shown by a table, not in a text
      if (typeof value === 'number') return formatNumber(value, locale);
      return typeof value === 'string' ? value.normalize('NFC') : String(value);
    }
    case 'issuedAt':
      return formatIssuedAt(values.issuedAt, locale);
    case 'expiresAt':
      // No expiry prints nothing; an expiry that is not a date is an error like issuedAt's.
      return values.expiresAt === undefined || values.expiresAt === null
        ? ''
        : formatIssuedAt(values.expiresAt, locale);
    case 'uniqueCode':
      return typeof values.uniqueCode === 'string' ? values.uniqueCode : undefined;
    case 'verificationUrl':
      return typeof values.verificationUrl === 'string' ? values.verificationUrl : undefined;
    case 'signatory':
      // The template's own value, put in when the template is compiled (resolveSignatories); the
      // title (in the credential) refuses them (design-issues.ts).
      return '';
  }
}

/** A text with its placeholders filled, white space collapsed and trimmed (the design's `title`), dates
 * and numbers in `locale` (the issue service passes none yet: titles are written in English). */
export function fillText(text: string, values: RenderValues, locale = 'en'): string {
  let filled = '';
  for (const s of parseText(text).segments) {
    filled += 'literal' in s ? s.literal : (valueOf(s.ref, values, locale) ?? '');
  }
  return filled.replace(/\s+/g, ' ').trim();
}
