// The Settings panel's values, without the DOM (tested in Node): a validity as a number and a unit,
// reminders as typed ("30, 7"), and the checks that say beside an input why a value is not applied.
// The service checks the saved design again (pdf/design-issues.ts, platform/duration.ts): these
// only answer at once, with the same limits.

export type ValidityUnit = 'Y' | 'M' | 'W' | 'D';

export const VALIDITY_UNITS: [ValidityUnit, string][] = [
  ['Y', 'years'],
  ['M', 'months'],
  ['W', 'weeks'],
  ['D', 'days'],
];

export interface ValidityParts {
  amount: number;
  unit: ValidityUnit;
}

const DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?$/;

/**
 * A validity as one number and one unit: P2Y -> 2 years, P1Y6M -> 18 months, P1W3D -> 10 days.
 * Undefined when it has none (no validity) or mixes months and days (P1M2D), which only the JSON
 * can say.
 */
export function validityParts(validity: string | undefined): ValidityParts | undefined {
  const m = validity === undefined || validity === 'P' ? null : DURATION.exec(validity);
  if (!m) return undefined;
  const [years, months, weeks, days] = [m[1], m[2], m[3], m[4]].map((v) => Number(v ?? 0)) as [
    number,
    number,
    number,
    number,
  ];
  const calendar = years * 12 + months;
  const plain = weeks * 7 + days;
  if (calendar > 0 && plain > 0) return undefined;
  if (calendar > 0)
    return calendar % 12 === 0 ? { amount: calendar / 12, unit: 'Y' } : { amount: calendar, unit: 'M' };
  if (plain > 0) return plain % 7 === 0 ? { amount: plain / 7, unit: 'W' } : { amount: plain, unit: 'D' };
  return undefined;
}

const APPROX_DAYS: Record<ValidityUnit, number> = { Y: 366, M: 31, W: 7, D: 1 };

/** The ISO 8601 duration of a number and a unit (2, Y -> P2Y), or a message saying what is wrong. */
export function validityText(
  amount: string,
  unit: ValidityUnit,
): { ok: true; validity: string } | { ok: false; message: string } {
  const n = Number(amount);
  if (amount.trim() === '' || !Number.isInteger(n) || n < 1)
    return { ok: false, message: 'Enter a whole number of at least 1.' };
  // platform/duration.ts refuses validities past 100 years (counted with long months and years).
  if (n * APPROX_DAYS[unit] > 100 * 366) return { ok: false, message: 'A validity is at most 100 years.' };
  return { ok: true, validity: `P${n}${unit}` };
}

/** Reminders typed as "30, 7": whole days before the expiry, each once, at most ten. */
export function parseReminders(text: string): { ok: true; days: number[] } | { ok: false; message: string } {
  const parts = text
    .split(/[\s,;]+/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const days: number[] = [];
  for (const part of parts) {
    const n = Number(part);
    if (!/^\d+$/.test(part) || n < 1 || n > 3650)
      return { ok: false, message: `"${part}" is not a number of days from 1 to 3650.` };
    if (days.includes(n)) return { ok: false, message: `${n} is there twice.` };
    days.push(n);
  }
  if (days.length > 10) return { ok: false, message: 'At most 10 reminders.' };
  return { ok: true, days };
}

export const remindersText = (days: number[] | undefined) => (days ?? []).join(', ');

/** Why a renewal URL cannot be used (empty means none), or undefined when it can. */
export function renewalUrlProblem(text: string): string | undefined {
  if (text === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (url?.protocol !== 'https:' || url.username !== '' || url.password !== '' || text.length > 2000)
    return 'The renewal URL must be an https:// address, e.g. https://academy.example/renew';
  return undefined;
}

/** Why a template name cannot be used, or undefined when it can. */
export function nameProblem(text: string): string | undefined {
  if (text.trim() === '') return 'The template needs a name.';
  if (text.length > 200) return 'A name is at most 200 characters.';
  return undefined;
}

/** Why a description cannot be used, or undefined when it can. */
export function descriptionProblem(text: string): string | undefined {
  return text.length > 2000 ? 'A description is at most 2000 characters.' : undefined;
}
