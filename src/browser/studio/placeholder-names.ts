import type { Design } from '../../pdf/design.schema.js';

// Placeholders by name, without the DOM (tested in Node): what "Insert field" lists, and a text
// with its placeholders shown by their names ("[Recipient name]"). The design keeps the
// placeholders ({{recipient.name}}); pdf/placeholders.ts says which there are.

export interface FieldChoice {
  /** What a person reads: "Recipient name", "Course", "Signatory 1: name". */
  label: string;
  /** What goes into the text: "{{recipient.name}}". */
  placeholder: string;
}

const CERTIFICATE_CHOICES: FieldChoice[] = [
  { label: 'Recipient name', placeholder: '{{recipient.name}}' },
  { label: 'Issue date', placeholder: '{{certificate.issuedAt}}' },
  { label: 'Expiry date', placeholder: '{{certificate.expiresAt}}' },
  { label: 'Certificate code', placeholder: '{{certificate.uniqueCode}}' },
  { label: 'Verification link', placeholder: '{{certificate.verificationUrl}}' },
];

/**
 * The certificate's values, then each field of one value by its label (a list field fills a
 * table, not a text), then each signatory's name and title (and organisation when it has one).
 */
export function fieldChoices(design: Design): FieldChoice[] {
  const fields = design.fields.filter((f) => f.type !== 'list');
  const twice = (label: string) => fields.filter((f) => f.label === label).length > 1;
  const choices = [...CERTIFICATE_CHOICES];
  for (const f of fields)
    choices.push({
      label: twice(f.label) ? `${f.label} (${f.key})` : f.label,
      placeholder: `{{data.${f.key}}}`,
    });
  (design.signatories ?? []).forEach((s, i) => {
    const n = i + 1;
    choices.push(
      { label: `Signatory ${n}: name`, placeholder: `{{signatory.${n}.name}}` },
      { label: `Signatory ${n}: title`, placeholder: `{{signatory.${n}.title}}` },
    );
    if (s.organisation)
      choices.push({ label: `Signatory ${n}: organisation`, placeholder: `{{signatory.${n}.organisation}}` });
  });
  return choices;
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The text with each placeholder it knows shown as [its name]; others stay as typed. */
export function namedText(text: string, design: Design): string {
  const names = new Map<string, string>();
  for (const c of fieldChoices(design)) names.set(c.placeholder.slice(2, -2), c.label);
  // A list field, or a signatory the design does not have (yet): still read as names.
  for (const f of design.fields) if (!names.has(`data.${f.key}`)) names.set(`data.${f.key}`, f.label);
  return text.replace(PLACEHOLDER, (whole, body: string) => {
    const signatory = /^signatory\.([1-5])\.(name|title|organisation)$/.exec(body);
    const name = names.get(body) ?? (signatory ? `Signatory ${signatory[1]}: ${signatory[2]}` : undefined);
    return name === undefined ? whole : `[${name}]`;
  });
}
