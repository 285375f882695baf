import { addDuration, parseDuration } from '../platform/duration.js';
import type { Design, TemplateField } from './design.schema.js';
import type { ListItem, RenderValues } from './render-types.js';

// Values for previews that read like a real certificate: a field's key and label are matched
// against common meanings (a course, hours, a date, a place ...). "Hours of instruction: 12", not
// "Hours of instruction: Hours of instruction". The first rule with a word that starts one of theirs wins.

const RULES: { words: RegExp; value: string }[] = [
  { words: /\b(?:hour|duration)/, value: '12' },
  { words: /\b(?:credit|ects|point)/, value: '6' },
  { words: /\b(?:grade|score|result|mark)/, value: 'Distinction' },
  { words: /\b(?:date|day|when)/, value: '14 March 2026' },
  { words: /\b(?:year)/, value: '2026' },
  { words: /\b(?:location|venue|place|city|where|address)/, value: 'Lisbon, Portugal' },
  { words: /\b(?:event|conference|summit|workshop|webinar|meetup)/, value: 'Open Data Summit 2026' },
  { words: /\b(?:degree|diploma|qualification)/, value: 'Bachelor of Science in Marine Biology' },
  {
    words: /\b(?:course|module|training|class|subject|programme|program|lesson)/,
    value: 'Safe Lifting Techniques',
  },
  {
    words: /\b(?:instructor|teacher|trainer|tutor|director|signator|speaker|presenter|lecturer)/,
    value: 'Dr. Amara Okafor',
  },
  {
    words: /\b(?:school|university|college|academy|institut|organi[sz]|company|issuer|provider)/,
    value: 'Northfield Academy',
  },
  { words: /\b(?:role|position|job)/, value: 'Workshop facilitator' },
  { words: /\b(?:level)/, value: 'Advanced' },
  { words: /\b(?:id|number|reference|code)\b/, value: 'NA-2026-0412' },
  { words: /\b(?:email|mail)/, value: 'zoe@example.com' },
];

export function sampleFieldValue(field: Pick<TemplateField, 'key' | 'label'>): string {
  // camelCase and snake_case keys read as words too (courseName -> course name).
  const words =
    `${field.key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ')} ${field.label}`.toLowerCase();
  const rule = RULES.find((r) => r.words.test(words));
  return rule ? rule.value : `Sample ${field.label.toLowerCase()}`;
}

export const SAMPLE_CODE = '7K3M9Q2XRB4D8F1H';
export const SAMPLE_NAME = 'Zoë Ångström-Łukasiewicz';

/** Rows in a preview of a list field. */
export const SAMPLE_LIST_ITEMS = 3;

// A list field's sample: a few items, each with a value for every column of the tables that show it
// (numbered where the value would otherwise repeat: "Sample unit 1", "Sample unit 2").
function sampleList(design: Design, key: string): ListItem[] {
  const columns = design.elements.flatMap((e) => (e.type === 'table' && e.field === key ? e.columns : []));
  return Array.from({ length: SAMPLE_LIST_ITEMS }, (_, i) => {
    const item: ListItem = {};
    for (const column of columns) {
      const value = sampleFieldValue({ key: column.key, label: column.label });
      item[column.key] = value.startsWith('Sample ') ? `${value} ${i + 1}` : value;
    }
    return item;
  });
}

/** Plausible values for a preview: a name with diacritics, today's date, a realistic value per field. */
export function sampleValues(design: Design): RenderValues {
  const data: RenderValues['data'] = {};
  for (const field of design.fields) {
    data[field.key] = field.type === 'list' ? sampleList(design, field.key) : sampleFieldValue(field);
  }
  const now = new Date();
  const validity = design.validity === undefined ? undefined : parseDuration(design.validity);
  return {
    recipientName: SAMPLE_NAME,
    issuedAt: now.toISOString(),
    // The expiry the template's validity gives; none without one.
    expiresAt: validity?.ok ? addDuration(now, validity.duration).toISOString() : null,
    uniqueCode: SAMPLE_CODE,
    verificationUrl: `https://certificates.example.com/verify/${SAMPLE_CODE}`,
    data,
  };
}
