// Renewal reminders (issue 19): a template's remindBeforeDays, e.g. [30, 7], against a certificate's
// expiry. A reminder is due at expiresAt minus its days. Of the reminders already due at a moment
// (the issue, or a worker that was down) only the latest is worth sending: issued 5 days before
// expiry with [30, 7], only the 7-day one goes, at once.

const DAY_MS = 86_400_000;

export interface ReminderPlan {
  /** Days before expiry of the reminders still to send, in the order they fall due. */
  reminders: number[];
  /** When the first of them is due; null when none is left. */
  nextAt: Date | null;
}

export function reminderDueAt(expiresAt: Date, days: number): Date {
  return new Date(expiresAt.getTime() - days * DAY_MS);
}

/** The reminders left at `now`, the ones overtaken by a later reminder already due dropped. */
export function reminderPlan(expiresAt: Date | null, remindBeforeDays: number[], now: Date): ReminderPlan {
  if (expiresAt === null || expiresAt.getTime() <= now.getTime() || remindBeforeDays.length === 0)
    return { reminders: [], nextAt: null };
  const inDueOrder = [...new Set(remindBeforeDays)].sort((a, b) => b - a);
  const due = inDueOrder.filter((d) => reminderDueAt(expiresAt, d).getTime() <= now.getTime());
  const reminders = inDueOrder.slice(Math.max(0, due.length - 1));
  return { reminders, nextAt: reminderDueAt(expiresAt, reminders[0]!) };
}
