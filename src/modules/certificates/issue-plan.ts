import { addDuration, parseDuration, type CalendarDuration } from '../../platform/duration.js';
import type { Principal } from '../../platform/principal.js';
import type { RenderValues } from '../../pdf/pdf-renderer.js';
import { fillText } from '../../pdf/placeholders.js';
import { verificationUrl } from '../shared/certificate-links.js';
import { reminderDueAt, reminderPlan } from '../shared/reminders.js';
import type { TemplateWithDesign } from '../templates/templates.repository.js';
import type { NewCertificate } from './certificates.repository.js';
import type { ValidRecipient } from './recipient.js';

// The plan of an issue, before anything is rendered or written: for each valid recipient, what its
// certificate will be (values of the design, expiry, title, reminders). Pure functions of what they
// are given (ids and codes included): the rules of issuing, testable without a database.

/** The expiry of recipients who do not write their own. */
export interface DefaultExpiry {
  at: Date | null;
  /** The issuer's calendar day of it (YYYY-MM-DD), when the issuer wrote it. */
  on: string | null;
  /** Kept from the certificate a reissue corrects. */
  inherited: boolean;
}

/** A recipient planned for issue: its certificate's id, values and expiry. */
export interface Candidate {
  /** The recipient's position in the request (or 0 for a single issue). */
  index: number;
  recipient: ValidRecipient;
  values: RenderValues;
  id: string;
  expiresAt: Date | null;
  /** The issuer's calendar day of the expiry (YYYY-MM-DD), when the issuer wrote it. */
  expiresOn: string | null;
  /** A reissue that keeps the old certificate's expiry. */
  inheritedExpiry: boolean;
}

// The template's validity as a function of the issue time (null: its certificates do not expire).
// Templates are checked when saved, so an unparsable validity is a stored fault, not the caller's.
export function validityOf(template: TemplateWithDesign): ((issuedAt: Date) => Date) | null {
  if (template.design.validity === undefined) return null;
  const parsed = parseDuration(template.design.validity);
  if (!parsed.ok) throw new Error(`template ${template.id} has an invalid validity`);
  return (issuedAt) => addDuration(issuedAt, parsed.duration);
}

/**
 * What a design's validity gives for an issue at `issuedAt`, as the issue form shows it before
 * anything is issued: the validity read (null: the certificates do not expire) and the expiry.
 */
export function validityExpiry(
  design: { validity?: string },
  issuedAt: Date,
): { validity: CalendarDuration; expiresAt: Date } | null {
  const parsed = design.validity === undefined ? undefined : parseDuration(design.validity);
  if (!parsed?.ok) return null;
  return { validity: parsed.duration, expiresAt: addDuration(issuedAt, parsed.duration) };
}

/** An issue's default expiry: the template's validity from the issue time, if it has one. */
export function issueExpiry(template: TemplateWithDesign, issuedAt: Date): DefaultExpiry {
  return { at: validityOf(template)?.(issuedAt) ?? null, on: null, inherited: false };
}

/**
 * A reissue's default expiry (decisions 19): the old certificate's while it lies ahead, else the
 * template's validity from the reissue time.
 */
export function reissueExpiry(
  template: TemplateWithDesign,
  old: { expiresAt: Date | null; expiresOn: string | null },
  issuedAt: Date,
): DefaultExpiry {
  if (old.expiresAt && old.expiresAt.getTime() > issuedAt.getTime()) {
    return { at: old.expiresAt, on: old.expiresOn, inherited: true };
  }
  return issueExpiry(template, issuedAt);
}

/** A recipient's certificate as planned: its own expiry when it wrote one, else the default. */
export function planCandidate(input: {
  index: number;
  recipient: ValidRecipient;
  issuedAt: Date;
  expiry: DefaultExpiry;
  id: string;
  code: string;
  publicBaseUrl: string;
}): Candidate {
  const { recipient, issuedAt, expiry } = input;
  const expiresAt = recipient.expiresAt ?? expiry.at;
  const expiresOn = recipient.expiresAt ? (recipient.expiresOn ?? null) : expiry.on;
  return {
    index: input.index,
    recipient,
    id: input.id,
    expiresAt,
    expiresOn,
    inheritedExpiry: recipient.expiresAt === undefined && expiry.inherited,
    values: {
      recipientName: recipient.name,
      issuedAt: issuedAt.toISOString(),
      expiresAt: expiresAt?.toISOString() ?? null,
      uniqueCode: input.code,
      verificationUrl: verificationUrl(input.publicBaseUrl, input.code),
      data: recipient.data,
    },
  };
}

// What was earned, frozen on the certificate: the design's title filled with the recipient's values
// (dates and numbers written in the design's language, as on its PDF), or the template name when the
// design has none (or it fills to nothing).
export function titleOf(template: TemplateWithDesign, values: RenderValues): string {
  const { title: text, locale } = template.design;
  const title = text === undefined ? '' : fillText(text, values, locale);
  return title || template.name;
}

// A certificate being issued, as the database gets it. A correction (`correcting`) that keeps its
// predecessor's expiry keeps its reminders too: those already due went to the old certificate,
// only the ones ahead are left.
export function certificateOf(
  template: TemplateWithDesign,
  c: Candidate,
  issuedAt: Date,
  correcting = false,
): NewCertificate {
  const remindBeforeDays = template.design.remindBeforeDays ?? [];
  const plan = reminderPlan(
    c.expiresAt,
    correcting && c.inheritedExpiry
      ? remindBeforeDays.filter((d) => reminderDueAt(c.expiresAt!, d) > issuedAt)
      : remindBeforeDays,
    issuedAt,
  );
  return {
    id: c.id,
    uniqueCode: c.values.uniqueCode,
    recipientName: c.recipient.name,
    recipientEmail: c.recipient.email,
    title: titleOf(template, c.values),
    data: c.recipient.data,
    expiresAt: c.expiresAt,
    expiresOn: c.expiresOn,
    reminders: plan.reminders,
    nextReminderAt: plan.nextAt,
  };
}

// Email on issue, when the plan or contract delivers email at all (a send would be 403).
export function emailedOnIssue(principal: Principal, template: TemplateWithDesign): boolean {
  return template.design.emailOnIssue === true && principal.emailDelivery;
}
