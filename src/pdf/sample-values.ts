import { addDuration, parseDuration } from '../platform/duration.js';
import type { Design, TemplateField } from './design.schema.js';
import type { RenderValues } from './render-types.js';

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

/** Plausible values for a preview: a name with diacritics, today's date, a realistic value per field. */
export function sampleValues(design: Design): RenderValues {
  const data: Record<string, string> = {};
  for (const field of design.fields) data[field.key] = sampleFieldValue(field);
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
