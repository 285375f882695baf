// ISO 8601 durations of whole calendar units, as a template's `validity` (P2Y, P6M, P1Y6M, P90D,
// P4W). Time parts (PT12H) are refused: a certificate is valid for days, not hours.

export interface CalendarDuration {
  years: number;
  months: number;
  weeks: number;
  days: number;
}

const PATTERN = /^P(?:(\d{1,4})Y)?(?:(\d{1,5})M)?(?:(\d{1,5})W)?(?:(\d{1,6})D)?$/;

// Longer validities are almost certainly typing mistakes (P1000Y); an issuer that means "forever"
// sets no validity at all.
const MAX_DAYS = 100 * 366;

export const DURATION_HINT =
  'an ISO 8601 duration in years, months, weeks and/or days, such as P2Y, P6M, P1Y6M, P4W or P90D';

/** The duration, or a message saying what is wrong with it. */
export function parseDuration(
  text: string,
): { ok: true; duration: CalendarDuration } | { ok: false; message: string } {
  const m = PATTERN.exec(text);
  if (!m || text === 'P') {
    const time = /^P[^T]*T/.test(text) ? ' (hours, minutes and seconds are not allowed)' : '';
    return { ok: false, message: `must be ${DURATION_HINT}${time}` };
  }
  const duration = {
    years: Number(m[1] ?? 0),
    months: Number(m[2] ?? 0),
    weeks: Number(m[3] ?? 0),
    days: Number(m[4] ?? 0),
  };
  const approxDays = duration.years * 366 + duration.months * 31 + duration.weeks * 7 + duration.days;
  if (approxDays === 0) return { ok: false, message: 'must be longer than zero (e.g. P1Y)' };
  if (approxDays > MAX_DAYS) return { ok: false, message: 'must be at most 100 years' };
  return { ok: true, duration };
}

/**
 * `from` plus the duration, in UTC: years and months move the calendar date and keep the time of
 * day, a day that the target month lacks becomes its last day (31 January + P1M = 28 or 29 February),
 * then weeks and days are added.
 */
export function addDuration(from: Date, d: CalendarDuration): Date {
  const monthIndex = from.getUTCFullYear() * 12 + from.getUTCMonth() + d.years * 12 + d.months;
  const year = Math.floor(monthIndex / 12);
  const month = monthIndex % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(from.getUTCDate(), lastDay) + d.weeks * 7 + d.days;
  const out = new Date(from.getTime());
  out.setUTCFullYear(year, month, day);
  return out;
}

/** A duration as people read it: "2 years", "1 year and 6 months", "90 days". */
export function durationText(d: CalendarDuration): string {
  const parts = (
    [
      [d.years, 'year'],
      [d.months, 'month'],
      [d.weeks, 'week'],
      [d.days, 'day'],
    ] as const
  )
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n.toLocaleString('en-US')} ${unit}${n === 1 ? '' : 's'}`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '');
}
