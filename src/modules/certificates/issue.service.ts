import pg from 'pg';
import type { Db, Queryable } from '../../platform/db/db.js';
import {
  ConflictError,
  NotFoundError,
  QuotaExceededError,
  ValidationError,
  type Issue,
} from '../../platform/errors.js';
import { addDuration, parseDuration } from '../../platform/duration.js';
import { uniqueCode, uuidv7 } from '../../platform/ids.js';
import { type PdfRenderer, type RenderValues, type UnsealedPdf } from '../../pdf/pdf-renderer.js';
import { fillText } from '../../pdf/placeholders.js';
import type { Principal } from '../../platform/principal.js';
import type { CredentialIssue, CredentialsService } from '../credentials/credentials.service.js';
import type { PdfCertificateRow } from '../credentials/pdf-certificates.repository.js';
import type { PdfSigningService } from '../credentials/pdf-signing.service.js';
import { readSigningContext } from '../credentials/signing-context.repository.js';
import type { SigningKeyRow } from '../credentials/signing-keys.repository.js';
import { FILL_LIMIT, randomEntries } from '../credentials/status-lists.repository.js';
import { enqueueIssued } from '../emails/emails.repository.js';
import { findActiveWithDesign, type TemplateWithDesign } from '../templates/templates.repository.js';
import { isoDate, periodEnd, periodStart } from '../usage/period.js';
import { reserve, usedInPeriod } from '../usage/usage.repository.js';
import { certificateView, type CertificateView } from './certificate.view.js';
import { verificationUrl } from '../shared/certificate-links.js';
import {
  findCertificate,
  insertIssued,
  insertPdfs,
  supersede,
  type NewCertificate,
} from './certificates.repository.js';
import { CREDENTIAL_ENTRY_KEY, issueAtOnce, NO_ROOM } from './issue-at-once.repository.js';
import { checkRecipient, type ValidRecipient } from './recipient.js';
import { reminderDueAt, reminderPlan } from '../shared/reminders.js';

export type BatchItem =
  | { index: number; status: 'created'; certificate: CertificateView }
  | {
      index: number;
      status: 'failed';
      error: { code: string; message: string; details?: Record<string, unknown> };
    };

export interface BatchOutcome {
  created: number;
  failed: number;
  results: BatchItem[];
}

interface Candidate {
  index: number;
  recipient: ValidRecipient;
  values: RenderValues;
  id: string;
  expiresAt: Date | null;
  /** The issuer's calendar day of the expiry (YYYY-MM-DD), when the issuer wrote it. */
  expiresOn: string | null;
  /** A reissue that keeps the old certificate's expiry. */
  inheritedExpiry?: boolean;
}

interface Signing {
  accountName: string;
  key: SigningKeyRow;
  pdfCertificate: PdfCertificateRow;
  /** The newest status list as read, with those of the guessed entries that were free. */
  statusList: { n: number; used: number; free: number[] } | undefined;
}

// Status entries looked up for a single issue, so that one of them is nearly always free: a list is
// left once half full, so each is taken with a chance of at most 1/2, all eight with 1/256.
const ENTRY_GUESSES = 8;
const DEADLOCK = '40P01';

interface Rendered extends Candidate {
  unsealed: UnsealedPdf;
}

// What was earned, frozen on the certificate: the design's title filled with the recipient's values
// (dates and numbers written in the design's language, as on its PDF), or the template name when the
// design has none (or it fills to nothing).
function titleOf(template: TemplateWithDesign, values: RenderValues): string {
  const { title: text, locale } = template.design;
  const title = text === undefined ? '' : fillText(text, values, locale);
  return title || template.name;
}

// The template's validity as a function of the issue time (null: its certificates do not expire).
// Templates are checked when saved, so an unparsable validity is a stored fault, not the caller's.
function validityOf(template: TemplateWithDesign): ((issuedAt: Date) => Date) | null {
  if (template.design.validity === undefined) return null;
  const parsed = parseDuration(template.design.validity);
  if (!parsed.ok) throw new Error(`template ${template.id} has an invalid validity`);
  return (issuedAt) => addDuration(issuedAt, parsed.duration);
}

const QUOTA_MESSAGE = 'The certificate quota of the current period is exhausted';

export function createIssueService(deps: {
  db: Db;
  renderer: () => PdfRenderer;
  credentials: CredentialsService;
  pdfSigning: PdfSigningService;
  /** Told how many certificates each issue created (metrics). */
  onIssued?: (count: number) => void;
  publicBaseUrl: string;
  now: () => Date;
}) {
  const { db } = deps;

  async function loadTemplate(accountId: string, templateId: string): Promise<TemplateWithDesign> {
    const template = await findActiveWithDesign(db, accountId, templateId);
    if (!template) throw new NotFoundError('Template');
    return template;
  }

  // What signing an issue takes (the account's name, its current credential key and PDF
  // certificate, each made on first use), read while the issue renders: outside the transaction, so
  // that it stays short. Every issue reads them afresh: a rotation takes effect at once everywhere.
  // One statement in the usual case; first use makes the key or certificate, then reads it again.
  // `guesses`: how many random status entries to look up (for commitAtOnce). (Starting this read
  // beside the template's, rather than after it, was measured slower on 2 cores.)
  function prepareSigning(accountId: string, at: Date, guesses = 0): Promise<Signing> {
    const signing = (async () => {
      const context = await readSigningContext(db, accountId, randomEntries(guesses));
      if (!context) throw new NotFoundError('Account');
      const key = await deps.credentials.prepare(accountId, context.key);
      const pdfCertificate = await deps.pdfSigning.prepare(accountId, at, context.pdfCertificate);
      return { accountName: context.accountName, key, pdfCertificate, statusList: context.statusList };
    })();
    // Awaited only once rendering is done: a render that fails first leaves it unobserved.
    signing.catch(() => undefined);
    return signing;
  }

  function candidate(
    index: number,
    recipient: ValidRecipient,
    issuedAt: Date,
    templateExpiry: Date | null,
    templateExpiresOn: string | null = null,
  ): Candidate {
    const code = uniqueCode();
    const expiresAt = recipient.expiresAt ?? templateExpiry;
    const expiresOn = recipient.expiresAt ? (recipient.expiresOn ?? null) : templateExpiresOn;
    return {
      index,
      recipient,
      id: uuidv7(issuedAt.getTime()),
      expiresAt,
      expiresOn,
      values: {
        recipientName: recipient.name,
        issuedAt: issuedAt.toISOString(),
        expiresAt: expiresAt?.toISOString() ?? null,
        uniqueCode: code,
        verificationUrl: verificationUrl(deps.publicBaseUrl, code),
        data: recipient.data,
      },
    };
  }

  // Renders candidates in order until `wanted` PDFs exist (or none are left); a candidate whose
  // text cannot be rendered becomes a validation failure and does not use quota.
  async function renderUpTo(
    template: TemplateWithDesign,
    candidates: Candidate[],
    wanted: number,
    prefixOf: (c: Candidate) => (string | number)[],
  ): Promise<{ rendered: Rendered[]; failures: Map<number, Issue[]>; untried: Candidate[] }> {
    const rendered: Rendered[] = [];
    const failures = new Map<number, Issue[]>();
    let cursor = 0;
    // updated_at moves with every design change (migration 002): (id, updated_at) is the cache key.
    const renderTemplate = {
      id: template.id,
      version: template.updated_at.toISOString(),
      design: template.design,
    };
    while (rendered.length < wanted && cursor < candidates.length) {
      const slice = candidates.slice(cursor, cursor + (wanted - rendered.length));
      cursor += slice.length;
      const outcomes = await deps.renderer().renderSealable(
        renderTemplate,
        slice.map((c) => c.values),
      );
      outcomes.forEach((outcome, i) => {
        const c = slice[i]!;
        if (outcome.ok) rendered.push({ ...c, unsealed: outcome.unsealed });
        else
          failures.set(
            c.index,
            outcome.issues.map((issue) => ({ ...issue, path: [...prefixOf(c), ...issue.path] })),
          );
      });
    }
    return { rendered, failures, untried: candidates.slice(cursor) };
  }

  // A certificate being issued, as the database gets it. A correction (`correcting`) that keeps its
  // predecessor's expiry keeps its reminders too: those already due went to the old certificate,
  // only the ones ahead are left.
  function newCertificate(
    template: TemplateWithDesign,
    r: Rendered,
    issuedAt: Date,
    correcting = false,
  ): NewCertificate {
    const remindBeforeDays = template.design.remindBeforeDays ?? [];
    const plan = reminderPlan(
      r.expiresAt,
      correcting && r.inheritedExpiry
        ? remindBeforeDays.filter((d) => reminderDueAt(r.expiresAt!, d) > issuedAt)
        : remindBeforeDays,
      issuedAt,
    );
    return {
      id: r.id,
      uniqueCode: r.values.uniqueCode,
      recipientName: r.recipient.name,
      recipientEmail: r.recipient.email,
      title: titleOf(template, r.values),
      data: r.recipient.data,
      expiresAt: r.expiresAt,
      expiresOn: r.expiresOn,
      reminders: plan.reminders,
      nextReminderAt: plan.nextAt,
    };
  }

  function credentialIssue(
    principal: Principal,
    template: TemplateWithDesign,
    signing: Signing,
    issuedAt: Date,
    items: NewCertificate[],
  ): CredentialIssue {
    return {
      accountId: principal.accountId,
      accountName: signing.accountName,
      template: { id: template.id, name: template.name, description: template.description },
      issuedAt,
      subjects: items.map((item) => ({
        certificateId: item.id,
        recipientName: item.recipientName,
        recipientEmail: item.recipientEmail,
        title: item.title,
        expiresAt: item.expiresAt,
      })),
    };
  }

  // A single issue with one statement (issue-at-once.repository.ts) instead of a transaction of
  // seven: its credential is signed and its PDF sealed first, at a status entry read as free (with
  // the signing context). Undefined when that statement could not take it (no guessed entry free,
  // the list full, the entry taken meanwhile, no room in the quota or no usage row for the period):
  // the caller then commits it the usual way, which settles each of those cases.
  async function commitAtOnce(
    principal: Principal,
    template: TemplateWithDesign,
    r: Rendered,
    issuedAt: Date,
    signing: Signing,
  ): Promise<CertificateView | undefined> {
    const list = signing.statusList;
    const index = list?.free[0];
    if (!list || list.used >= FILL_LIMIT || index === undefined) return undefined;
    const item = newCertificate(template, r, issuedAt);
    const [credential] = await deps.credentials.sign(
      signing.key,
      credentialIssue(principal, template, signing, issuedAt, [item]),
      [{ list: list.n, index }],
    );
    const [sealed] = await deps.pdfSigning.seal(
      signing.pdfCertificate,
      [{ unsealed: r.unsealed, credential: credential!.body }],
      issuedAt,
    );
    try {
      const row = await issueAtOnce(db, {
        accountId: principal.accountId,
        templateId: template.id,
        templateVersion: template.version,
        issuedAt,
        period: isoDate(periodStart(issuedAt)),
        limit: principal.monthlyLimit,
        item,
        credential: credential!,
        pdf: sealed!,
        ...(emailedOnIssue(principal, template) ? { emailId: uuidv7(issuedAt.getTime()) } : {}),
      });
      return row && certificateView(row, deps.publicBaseUrl);
    } catch (err) {
      // Each of these means the statement wrote nothing. (A deadlock is not expected, the lock order
      // being everyone's; should one pick this statement, the issue still goes through.)
      if (!(err instanceof pg.DatabaseError)) throw err;
      const taken = err.code === '23505' && err.constraint === CREDENTIAL_ENTRY_KEY;
      if (taken || err.code === NO_ROOM || err.code === DEADLOCK) return undefined;
      throw err;
    }
  }

  // Reserves quota and writes certificates, their signed credentials and their sealed PDFs (the
  // credential attached, signed) in one transaction: no certificate without both proofs. Returns
  // the created views (input order) and the candidates left without quota. A reissue (`supersedes`:
  // the certificate it corrects) uses no quota and revokes the old certificate in the same
  // transaction, or fails with 409 (and leaves nothing) when it is no longer Issued.
  async function commit(
    principal: Principal,
    template: TemplateWithDesign,
    rendered: Rendered[],
    issuedAt: Date,
    signing: Signing,
    opts: { outer?: Queryable; supersedes?: string } = {},
  ) {
    const { outer, supersedes } = opts;
    const inTransaction = <T>(work: (tx: Queryable) => Promise<T>) =>
      outer ? work(outer) : db.transaction(work);
    return inTransaction(async (tx) => {
      const { granted } =
        supersedes === undefined
          ? await reserve(tx, {
              accountId: principal.accountId,
              period: isoDate(periodStart(issuedAt)),
              wanted: rendered.length,
              limit: principal.monthlyLimit,
            })
          : { granted: rendered.length };
      const accepted = rendered.slice(0, granted);
      const items = accepted.map((r) => newCertificate(template, r, issuedAt, supersedes !== undefined));
      const emailed = emailedOnIssue(principal, template);
      const rows =
        items.length > 0
          ? await insertIssued(tx, {
              accountId: principal.accountId,
              templateId: template.id,
              templateVersion: template.version,
              issuedAt,
              items,
              emailed,
            })
          : [];
      if (emailed) {
        await enqueueIssued(tx, {
          accountId: principal.accountId,
          now: issuedAt,
          sends: items.map((item) => ({
            id: uuidv7(issuedAt.getTime()),
            certificateId: item.id,
            email: item.recipientEmail,
          })),
        });
      }
      if (items.length > 0) {
        const credentials = await deps.credentials.issue(
          tx,
          signing.key,
          credentialIssue(principal, template, signing, issuedAt, items),
        );
        const sealed = await deps.pdfSigning.seal(
          signing.pdfCertificate,
          accepted.map((r, i) => ({ unsealed: r.unsealed, credential: credentials[i]! })),
          issuedAt,
        );
        await insertPdfs(
          tx,
          sealed.map((s, i) => ({ certificateId: items[i]!.id, ...s })),
        );
      }
      if (supersedes !== undefined) {
        const replacement = items[0]!;
        const old = await supersede(tx, {
          accountId: principal.accountId,
          id: supersedes,
          by: replacement.id,
          at: issuedAt,
          reason: `Superseded by ${replacement.uniqueCode}`,
        });
        if (!old) throw new ConflictError('Only an Issued certificate can be corrected and reissued');
        await deps.credentials.revoke(tx, principal.accountId, supersedes);
      }
      return {
        created: rows.map((row) => certificateView(row, deps.publicBaseUrl)),
        rejected: rendered.slice(granted),
      };
    });
  }

  async function quotaDetails(principal: Principal, now: Date) {
    const used = await usedInPeriod(db, principal.accountId, isoDate(periodStart(now)));
    const limit = principal.monthlyLimit ?? 0;
    return { remaining: Math.max(0, limit - used), limit, resetAt: periodEnd(now).toISOString() };
  }

  async function remainingQuota(principal: Principal, now: Date): Promise<number> {
    if (principal.monthlyLimit === null) return Number.POSITIVE_INFINITY;
    const used = await usedInPeriod(db, principal.accountId, isoDate(periodStart(now)));
    return Math.max(0, principal.monthlyLimit - used);
  }

  return {
    async issueOne(principal: Principal, templateId: string, input: unknown): Promise<CertificateView> {
      const template = await loadTemplate(principal.accountId, templateId);
      const issuedAt = deps.now();
      const checked = checkRecipient(input, template.fields, ['recipient'], issuedAt);
      if (!checked.ok) throw new ValidationError(checked.issues);
      // No quota check before rendering: the reservation in the transaction is the check (an
      // account out of quota costs one render, every other issue two reads less).
      const signing = prepareSigning(principal.accountId, issuedAt, ENTRY_GUESSES);
      const c = candidate(0, checked.recipient, issuedAt, validityOf(template)?.(issuedAt) ?? null);
      const { rendered, failures } = await renderUpTo(template, [c], 1, () => ['recipient']);
      if (failures.size > 0) throw new ValidationError(failures.get(0)!);
      const ready = await signing;
      const created =
        (await commitAtOnce(principal, template, rendered[0]!, issuedAt, ready)) ??
        (await commit(principal, template, rendered, issuedAt, ready)).created[0];
      if (!created) throw new QuotaExceededError(await quotaDetails(principal, issuedAt));
      deps.onIssued?.(1);
      return created;
    },

    // Correct and reissue (decisions 19): a new certificate from the old one's template (its current
    // version) for the corrected recipient, with its own code, credential and signed PDF; the old one
    // is revoked "Superseded by <new code>" in the same transaction. No quota is used. The expiry is
    // the recipient's expiresAt, else the old certificate's, else the template's validity.
    async reissue(principal: Principal, certificateId: string, input: unknown): Promise<CertificateView> {
      const old = await findCertificate(db, principal.accountId, certificateId);
      if (!old) throw new NotFoundError('Certificate');
      if (old.status !== 'Issued') {
        throw new ConflictError(`A ${old.status} certificate cannot be corrected and reissued`);
      }
      const template = await findActiveWithDesign(db, principal.accountId, old.template_id);
      if (!template) {
        throw new ConflictError("The certificate's template is archived: it cannot be reissued from it");
      }
      const issuedAt = deps.now();
      const checked = checkRecipient(input, template.fields, ['recipient'], issuedAt);
      if (!checked.ok) throw new ValidationError(checked.issues);
      const inherited =
        old.expires_at && old.expires_at.getTime() > issuedAt.getTime() ? old.expires_at : null;
      const c = candidate(
        0,
        checked.recipient,
        issuedAt,
        inherited ?? validityOf(template)?.(issuedAt) ?? null,
        inherited ? (old.expires_on ?? null) : null,
      );
      c.inheritedExpiry = checked.recipient.expiresAt === undefined && inherited !== null;
      const signing = prepareSigning(principal.accountId, issuedAt);
      const { rendered, failures } = await renderUpTo(template, [c], 1, () => ['recipient']);
      if (failures.size > 0) throw new ValidationError(failures.get(0)!);
      const { created } = await commit(principal, template, rendered, issuedAt, await signing, {
        supersedes: certificateId,
      });
      deps.onIssued?.(1);
      return created[0]!;
    },

    // `opts.tx`: issue within the caller's transaction (an import's chunk commits its rows' results
    // with the certificates).
    async issueBatch(
      principal: Principal,
      templateId: string,
      inputs: unknown[],
      opts: { tx?: Queryable } = {},
    ): Promise<BatchOutcome> {
      const template = await loadTemplate(principal.accountId, templateId);
      const issuedAt = deps.now();
      const results: BatchItem[] = new Array(inputs.length);
      const candidates: Candidate[] = [];
      const templateExpiry = validityOf(template)?.(issuedAt) ?? null;
      inputs.forEach((input, index) => {
        const checked = checkRecipient(input, template.fields, ['recipients', index], issuedAt);
        if (checked.ok) candidates.push(candidate(index, checked.recipient, issuedAt, templateExpiry));
        else results[index] = validationItem(index, checked.issues);
      });

      const remaining = await remainingQuota(principal, issuedAt);
      const signing =
        candidates.length > 0 && remaining > 0 ? prepareSigning(principal.accountId, issuedAt) : undefined;
      const { rendered, failures, untried } = await renderUpTo(
        template,
        candidates,
        Math.min(candidates.length, remaining),
        (c) => ['recipients', c.index],
      );
      for (const [index, issues] of failures) results[index] = validationItem(index, issues);
      const { created, rejected } =
        rendered.length > 0
          ? await commit(principal, template, rendered, issuedAt, await signing!, { outer: opts.tx })
          : { created: [], rejected: [] };
      created.forEach((certificate, i) => {
        const index = rendered[i]!.index;
        results[index] = { index, status: 'created', certificate };
      });
      if (created.length > 0) deps.onIssued?.(created.length);
      for (const c of [...rejected, ...untried]) {
        results[c.index] = {
          index: c.index,
          status: 'failed',
          error: { code: 'quota_exceeded', message: QUOTA_MESSAGE },
        };
      }
      return { created: created.length, failed: inputs.length - created.length, results };
    },
  };
}

// Email on issue, when the plan or contract delivers email at all (a send would be 403).
function emailedOnIssue(principal: Principal, template: TemplateWithDesign): boolean {
  return template.design.emailOnIssue === true && principal.emailDelivery;
}

function validationItem(index: number, issues: Issue[]): BatchItem {
  return {
    index,
    status: 'failed',
    error: { code: 'validation_error', message: 'The recipient is not valid', details: { issues } },
  };
}

export type IssueService = ReturnType<typeof createIssueService>;
