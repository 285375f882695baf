import pg from 'pg';
import type { Db, Queryable } from '../../platform/db/db.js';
import {
  ConflictError,
  NotFoundError,
  QuotaExceededError,
  ValidationError,
  type Issue,
} from '../../platform/errors.js';
import { uniqueCode, uuidv7 } from '../../platform/ids.js';
import type { PdfRenderer } from '../../pdf/pdf-renderer.js';
import type { Principal } from '../../platform/principal.js';
import type { ProofBatch, ProofService, Prover } from '../proof/proof.service.js';
import { findActiveWithDesign, type TemplateWithDesign } from '../templates/templates.repository.js';
import { isoDate, periodEnd, periodStart } from '../usage/period.js';
import { usedInPeriod } from '../usage/usage.repository.js';
import { certificateView, type CertificateView } from './certificate.view.js';
import { findCertificate, type NewCertificate } from './certificates.repository.js';
import {
  certificateOf,
  emailedOnIssue,
  issueExpiry,
  planCandidate,
  reissueExpiry,
  type Candidate,
  type DefaultExpiry,
} from './issue-plan.js';
import { renderUpTo, type Rendered } from './issue-render.js';
import {
  CREDENTIAL_ENTRY_KEY,
  issueAtOnce,
  NO_ROOM,
  writeIssue,
  type IssueTarget,
} from './issue.repository.js';
import { checkRecipient, type ValidRecipient } from './recipient.js';
import { auditBodies, recordAudit, type AuditInput } from '../audit/audit-log.js';

// Issuing: a single certificate, a batch (the API's, or an import's chunk in its transaction) and a
// correction. Each goes the same way: the plan (issue-plan.ts), the rendering (issue-render.ts) beside
// the preparing of its proof, then the write (issue.repository.ts), whose proofs the proof service
// makes once per issue.

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

// Status entries looked up for a single issue, so that one of them is nearly always free: a list is
// left once half full, so each is taken with a chance of at most 1/2, all eight with 1/256.
const ENTRY_GUESSES = 8;
const DEADLOCK = '40P01';

export const QUOTA_MESSAGE = 'The certificate quota of the current period is exhausted';

function validationItem(index: number, issues: Issue[]): BatchItem {
  return {
    index,
    status: 'failed',
    error: { code: 'validation_error', message: 'The recipient is not valid', details: { issues } },
  };
}

// The audit trail's event of each certificate written (one per certificate, decisions 21): a
// summary, never the recipient's data or the PDF. A correction names the certificate it replaces.
function issuedEvents(
  template: TemplateWithDesign,
  items: { id: string; uniqueCode: string }[],
  emailed: boolean,
  supersedes?: string,
): AuditInput[] {
  return items.map((item) => ({
    action: supersedes === undefined ? 'certificate.issued' : 'certificate.reissued',
    target: { type: 'certificate', id: item.id },
    changes: {
      code: item.uniqueCode,
      templateId: template.id,
      ...(emailed ? { emailed: true } : {}),
      ...(supersedes === undefined ? {} : { supersedes }),
    },
  }));
}

function proofBatch(
  template: TemplateWithDesign,
  issuedAt: Date,
  items: NewCertificate[],
  rendered: Rendered[],
): ProofBatch {
  return {
    template: {
      id: template.id,
      name: template.name,
      recipientDescription: template.design.recipientDescription ?? null,
    },
    issuedAt,
    certificates: items.map((item, i) => ({
      certificateId: item.id,
      recipientName: item.recipientName,
      recipientEmail: item.recipientEmail,
      title: item.title,
      expiresAt: item.expiresAt ?? null,
      unsealed: rendered[i]!.unsealed,
    })),
  };
}

// Each of these means the single statement wrote nothing. (A deadlock is not expected, the lock order
// being everyone's; should one pick this statement, the issue still goes through.)
function leftUndone(err: unknown): boolean {
  if (!(err instanceof pg.DatabaseError)) return false;
  const taken = err.code === '23505' && err.constraint === CREDENTIAL_ENTRY_KEY;
  return taken || err.code === NO_ROOM || err.code === DEADLOCK;
}

interface IssueDeps {
  db: Db;
  renderer: () => PdfRenderer;
  proof: ProofService;
  /** Told how many certificates each issue created (metrics). */
  onIssued?: (count: number) => void;
  publicBaseUrl: string;
  now: () => Date;
}

async function loadTemplate(
  deps: IssueDeps,
  accountId: string,
  templateId: string,
): Promise<TemplateWithDesign> {
  const template = await findActiveWithDesign(deps.db, accountId, templateId);
  if (!template) throw new NotFoundError('Template');
  return template;
}

// The issue's proof, prepared while it renders: outside the transaction, so that it stays short.
// (Starting this read beside the template's, rather than after it, was measured slower on 2 cores.)
function prepareProof(deps: IssueDeps, accountId: string, at: Date, guesses = 0): Promise<Prover> {
  const prover = deps.proof.prepare(accountId, at, { guesses });
  // Awaited only once rendering is done: a render that fails first leaves it unobserved.
  prover.catch(() => undefined);
  return prover;
}

function candidate(
  deps: IssueDeps,
  index: number,
  recipient: ValidRecipient,
  issuedAt: Date,
  expiry: DefaultExpiry,
): Candidate {
  const code = uniqueCode();
  const id = uuidv7(issuedAt.getTime());
  return planCandidate({ index, recipient, issuedAt, expiry, id, code, publicBaseUrl: deps.publicBaseUrl });
}

// A single issue in one statement (issue.repository.ts issueAtOnce) instead of a transaction: its
// credential signed and its PDF sealed first, at the status entry the preparing read found free.
// Undefined when that statement could not take it (no guessed entry free, the list full, the entry
// taken meanwhile, no room in the quota or no usage row for the period): the caller then writes it
// the usual way, which settles each of those cases.
async function commitAtOnce(
  deps: IssueDeps,
  principal: Principal,
  template: TemplateWithDesign,
  r: Rendered,
  issuedAt: Date,
  prover: Prover,
): Promise<CertificateView | undefined> {
  const entry = prover.freeEntry;
  if (!entry) return undefined;
  const item = certificateOf(template, r, issuedAt);
  const [proof] = await prover.prove(proofBatch(template, issuedAt, [item], [r]), [entry]);
  const emailed = emailedOnIssue(principal, template);
  try {
    const row = await issueAtOnce(deps.db, {
      ...issueTarget(principal, template, issuedAt, prover),
      item,
      credential: proof!.credential,
      pdf: proof!.sealedPdf,
      ...(emailed ? { emailId: uuidv7(issuedAt.getTime()) } : {}),
      audit: auditBodies(principal, issuedEvents(template, [item], emailed), issuedAt),
    });
    return row && certificateView(row, deps.publicBaseUrl);
  } catch (err) {
    if (leftUndone(err)) return undefined;
    throw err;
  }
}

function issueTarget(
  principal: Principal,
  template: TemplateWithDesign,
  issuedAt: Date,
  prover: Prover,
): IssueTarget {
  return {
    accountId: principal.accountId,
    templateId: template.id,
    templateVersion: template.version,
    issuedAt,
    issuerName: prover.issuerName,
    period: isoDate(periodStart(issuedAt)),
    limit: principal.monthlyLimit,
  };
}

// Writes the rendered certificates in `tx` (issue.repository.ts writeIssue), proven once for all of
// them. Returns the created views (input order) and the rendered left without quota. A reissue
// (`supersedes`: the certificate it corrects) uses no quota and revokes the old certificate in the
// same transaction, or fails with 409 (and leaves nothing) when it is no longer Issued.
async function commit(
  deps: IssueDeps,
  tx: Queryable,
  principal: Principal,
  template: TemplateWithDesign,
  rendered: Rendered[],
  issuedAt: Date,
  prover: Prover,
  supersedes?: string,
  deferred?: AuditInput[],
) {
  const correcting = supersedes !== undefined;
  const items = rendered.map((r) => certificateOf(template, r, issuedAt, correcting));
  const emailed = emailedOnIssue(principal, template);
  const { rows, granted, superseded } = await writeIssue(
    tx,
    {
      ...issueTarget(principal, template, issuedAt, prover),
      items,
      emailed,
      ...(correcting
        ? { supersedes: { id: supersedes, reason: `Superseded by ${items[0]!.uniqueCode}` } }
        : {}),
    },
    (accepted, entries) => prover.prove(proofBatch(template, issuedAt, accepted, rendered), entries),
  );
  if (!superseded) throw new ConflictError('Only an Issued certificate can be corrected and reissued');
  // One call for the whole batch (one round trip), last in the transaction (see issue.repository.ts).
  const events = issuedEvents(template, items.slice(0, granted), emailed, supersedes);
  if (deferred) deferred.push(...events);
  else await recordAudit(tx, principal.accountId, principal, events, issuedAt);
  return {
    created: rows.map((row) => certificateView(row, deps.publicBaseUrl)),
    rejected: rendered.slice(granted),
  };
}

async function remainingQuota(deps: IssueDeps, principal: Principal, now: Date): Promise<number> {
  if (principal.monthlyLimit === null) return Number.POSITIVE_INFINITY;
  const used = await usedInPeriod(deps.db, principal.accountId, isoDate(periodStart(now)));
  return Math.max(0, principal.monthlyLimit - used);
}

// A batch, its certificates written by `write` (in a transaction of its own, or the caller's).
async function issueBatchWith(
  deps: IssueDeps,
  write: <T>(work: (tx: Queryable) => Promise<T>) => Promise<T>,
  principal: Principal,
  templateId: string,
  inputs: unknown[],
  deferred?: AuditInput[],
): Promise<BatchOutcome> {
  const template = await loadTemplate(deps, principal.accountId, templateId);
  const issuedAt = deps.now();
  const results: BatchItem[] = new Array(inputs.length);
  const candidates: Candidate[] = [];
  const expiry = issueExpiry(template, issuedAt);
  inputs.forEach((input, index) => {
    const checked = checkRecipient(input, template.fields, ['recipients', index], issuedAt);
    if (checked.ok) candidates.push(candidate(deps, index, checked.recipient, issuedAt, expiry));
    else results[index] = validationItem(index, checked.issues);
  });

  const remaining = await remainingQuota(deps, principal, issuedAt);
  const prover =
    candidates.length > 0 && remaining > 0 ? prepareProof(deps, principal.accountId, issuedAt) : undefined;
  const { rendered, failures, untried } = await renderUpTo(
    deps.renderer,
    template,
    candidates,
    Math.min(candidates.length, remaining),
    (c) => ['recipients', c.index],
  );
  for (const [index, issues] of failures) results[index] = validationItem(index, issues);
  const ready = rendered.length > 0 ? await prover! : undefined;
  const { created, rejected } = ready
    ? await write((tx) =>
        commit(deps, tx, principal, template, rendered, issuedAt, ready, undefined, deferred),
      )
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
}

export function createIssueService(deps: IssueDeps) {
  const { db } = deps;

  return {
    async issueOne(principal: Principal, templateId: string, input: unknown): Promise<CertificateView> {
      const template = await loadTemplate(deps, principal.accountId, templateId);
      const issuedAt = deps.now();
      const checked = checkRecipient(input, template.fields, ['recipient'], issuedAt);
      if (!checked.ok) throw new ValidationError(checked.issues);
      // No quota check before rendering: the reservation in the transaction is the check (an
      // account out of quota costs one render, every other issue two reads less).
      const prover = prepareProof(deps, principal.accountId, issuedAt, ENTRY_GUESSES);
      const c = candidate(deps, 0, checked.recipient, issuedAt, issueExpiry(template, issuedAt));
      const { rendered, failures } = await renderUpTo(deps.renderer, template, [c], 1, () => ['recipient']);
      if (failures.size > 0) throw new ValidationError(failures.get(0)!);
      const ready = await prover;
      const created =
        (await commitAtOnce(deps, principal, template, rendered[0]!, issuedAt, ready)) ??
        (await db.transaction((tx) => commit(deps, tx, principal, template, rendered, issuedAt, ready)))
          .created[0];
      if (!created) {
        const used = await usedInPeriod(db, principal.accountId, isoDate(periodStart(issuedAt)));
        const limit = principal.monthlyLimit ?? 0;
        const resetAt = periodEnd(issuedAt).toISOString();
        throw new QuotaExceededError({ remaining: Math.max(0, limit - used), limit, resetAt });
      }
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
      const expiry = reissueExpiry(
        template,
        { expiresAt: old.expires_at, expiresOn: old.expires_on ?? null },
        issuedAt,
      );
      const c = candidate(deps, 0, checked.recipient, issuedAt, expiry);
      const prover = prepareProof(deps, principal.accountId, issuedAt);
      const { rendered, failures } = await renderUpTo(deps.renderer, template, [c], 1, () => ['recipient']);
      if (failures.size > 0) throw new ValidationError(failures.get(0)!);
      const ready = await prover;
      const { created } = await db.transaction((tx) =>
        commit(deps, tx, principal, template, rendered, issuedAt, ready, certificateId),
      );
      deps.onIssued?.(1);
      return created[0]!;
    },

    issueBatch(principal: Principal, templateId: string, inputs: unknown[]): Promise<BatchOutcome> {
      return issueBatchWith(deps, (work) => db.transaction(work), principal, templateId, inputs);
    },

    // A batch issued within the caller's transaction `tx` (an import's chunk commits its rows' results
    // with the certificates). Its audit events are left in `deferred` for the caller to record, last
    // in its transaction (the account's audit head is every transaction's last lock).
    issueBatchIn(
      tx: Queryable,
      principal: Principal,
      templateId: string,
      inputs: unknown[],
      deferred: AuditInput[],
    ): Promise<BatchOutcome> {
      return issueBatchWith(deps, (work) => work(tx), principal, templateId, inputs, deferred);
    },
  };
}

export type IssueService = ReturnType<typeof createIssueService>;
