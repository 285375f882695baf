import { DATA_KEY_PATTERN } from '../platform/ids.js';
import type { RenderValues } from './render-types.js';

// Placeholders in design texts: {{recipient.name}}, {{data.KEY}}, {{certificate.issuedAt}},
// {{certificate.expiresAt}}, {{certificate.uniqueCode}}, {{certificate.verificationUrl}}; whitespace inside the braces is allowed.

export type ValueRef =
  | { source: 'name' }
  | { source: 'data'; key: string }
  | { source: 'issuedAt' }
  | { source: 'expiresAt' }
  | { source: 'uniqueCode' }
  | { source: 'verificationUrl' };

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
  const data = dataKeyPattern.exec(body);
  return data?.[1] ? { source: 'data', key: data[1] } : undefined;
}

/** Where a value comes from, relative to the recipient (issue paths). */
export function refPath(ref: ValueRef): (string | number)[] {
  return ref.source === 'data' ? ['data', ref.key] : [ref.source];
}

export function refKey(ref: ValueRef): string {
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

/** `2026-11-21T09:30:00.000Z` -> `21 November 2026` (UTC). */
export function formatIssuedAt(iso: string): string | undefined {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return undefined;
  return `${date.getUTCDate()} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()}`;
}

/** The text a placeholder stands for; undefined when the value is missing or of the wrong type. */
export function valueOf(ref: ValueRef, values: RenderValues): string | undefined {
  switch (ref.source) {
    case 'name':
      return typeof values.recipientName === 'string' ? values.recipientName.normalize('NFC') : undefined;
    case 'data': {
      const value = values.data?.[ref.key];
      if (value === undefined || value === null) return '';
      return typeof value === 'string' ? value.normalize('NFC') : String(value);
    }
    case 'issuedAt':
      return formatIssuedAt(values.issuedAt);
    case 'expiresAt':
      // No expiry prints nothing; an expiry that is not a date is an error like issuedAt's.
      return values.expiresAt === undefined || values.expiresAt === null
        ? ''
        : formatIssuedAt(values.expiresAt);
    case 'uniqueCode':
      return typeof values.uniqueCode === 'string' ? values.uniqueCode : undefined;
    case 'verificationUrl':
      return typeof values.verificationUrl === 'string' ? values.verificationUrl : undefined;
  }
}

/** A text with its placeholders filled, white space collapsed and trimmed (the design's `title`). */
export function fillText(text: string, values: RenderValues): string {
  const filled = parseText(text)
    .segments.map((s) => ('literal' in s ? s.literal : (valueOf(s.ref, values) ?? '')))
    .join('');
  return filled.replace(/\s+/g, ' ').trim();
}
